"""Shared helpers for the protocol-level tests (deal flow, match, invariants, errors).

Everything here is written from docs/rules.md and docs/format.md alone, independently of the engine:
the card list, card values and points (R4, R5), hand sizes for a play number (R18, R19), a builder
of complete docs/format.md positions from the cards that matter, and a canonical key for comparing
moves ("two moves are the same move when action, card, value, house and the sets of loose and houses
agree", docs/format.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Position = dict[str, Any]
Move = dict[str, Any]

RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)

#: docs/rules.md §3: every option key with its standard value ("a dump writes every key").
DEFAULT_RULES: dict[str, Any] = {
    "capture_rule": "maximal",
    "throw_rule": "no_capture_possible",
    "absorb_loose_groups": "optional",
    "allow_pair_build": False,
    "house_in_sums": False,
    "partner_cement_free": True,
    "add_retention": "self",
    "sweep_value": 50,
    "sweep_first": 25,
    "sweep_last": 0,
    "min_score": 9,
    "min_score_includes_sweeps": True,
    "baazi_lead": 100,
    "ten_diamonds_points": 6,
    "majority_bonus": 0,
    "max_houses": None,
    "dealer_rule": "losing_team",
    "deal_before_bid": False,
}

#: docs/rules.md §3 "Presets".
PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "family": {"ten_diamonds_points": 2, "majority_bonus": 4},
    "two_houses": {"max_houses": 2},
}


def value(card: str) -> int:
    """Capture value of a card (R4): A=1, 2..9, T=10, J=11, Q=12, K=13."""
    return RANKS.index(card[0]) + 1


def full_rules(rules: str | Mapping[str, Any]) -> dict[str, Any]:
    """The complete rules object for a preset name or a partial dict (docs/rules.md §3)."""
    extra = PRESETS[rules] if isinstance(rules, str) else dict(rules)
    return {**DEFAULT_RULES, **extra}


def card_points(cards: Sequence[str], rules: str | Mapping[str, Any] = "standard") -> int:
    """Card points of a pile (R5): spades at capture value, other aces 1, TD per option."""
    td = full_rules(rules)["ten_diamonds_points"]
    total = 0
    for c in cards:
        if c[1] == "S":
            total += value(c)
        elif c[0] == "A":
            total += 1
        elif c == "TD":
            total += td
    return total


def bidder(dealer: int) -> int:
    """The bidder is the player on the dealer's right (R12, docs/format.md)."""
    return (dealer + 1) % 4


def mover(dealer: int, plays: int) -> int:
    """The seat to move after ``plays`` plays: ``(dealer + 1 + plays) % 4`` (§2)."""
    return (dealer + 1 + plays) % 4


def hand_sizes(dealer: int, plays: int, deal_before_bid: bool = False) -> list[int]:
    """Hand sizes in phase play/over after ``plays`` plays (R12, R18, R19).

    At plays 0 only the bidder holds 4 cards (every seat 4 with ``deal_before_bid``); from play 1
    on every seat has 12 cards minus the plays it made (play i is made by seat (dealer+i) % 4).
    """
    if plays == 0:
        return [4 if deal_before_bid or s == bidder(dealer) else 0 for s in range(4)]
    return [12 - sum(1 for i in range(1, plays + 1) if (dealer + i) % 4 == s) for s in range(4)]


def plays_for(dealer: int, seat: int, hand_len: int) -> int:
    """The play count (1..47) at which ``seat`` is to move holding ``hand_len`` cards."""
    for k in range(1, 48):
        if mover(dealer, k) == seat and hand_sizes(dealer, k)[seat] == hand_len:
            return k
    raise ValueError(f"seat {seat} never moves with {hand_len} cards (dealer {dealer})")


def house(
    val: int, cards: Sequence[str], owners: Sequence[int], cemented: bool | None = None
) -> dict[str, Any]:
    """A docs/format.md house object; ``cemented`` defaults to "cards total at least twice the
    value"."""
    if cemented is None:
        cemented = sum(value(c) for c in cards) > val
    return {"value": val, "cards": list(cards), "cemented": cemented, "owners": list(owners)}


def all_cards_of(pos: Position) -> list[str]:
    """Every card string listed anywhere in a position (hands, floor, piles, stock)."""
    out: list[str] = []
    for hand in pos["hands"]:
        out.extend(hand)
    out.extend(pos["loose"])
    for h in pos["houses"]:
        out.extend(h["cards"])
    for pile in pos["captured"]:
        out.extend(pile)
    out.extend(pos["stock"])
    return out


def _take(pool: list[str], pred: Any) -> str:
    for i, c in enumerate(pool):
        if pred(c):
            return pool.pop(i)
    raise ValueError("no filler card left that fits")


def play_position(
    *,
    dealer: int = 0,
    plays: int,
    hands: Mapping[int, Sequence[str]] | None = None,
    loose: Sequence[str] = (),
    houses: Sequence[Mapping[str, Any]] = (),
    captured: Sequence[Sequence[str]] | None = None,
    sweeps: Sequence[int] = (0, 0),
    last_capture: int | str | None = "auto",
    rules: str | Mapping[str, Any] = "standard",
    bid: int = 13,
    match: Mapping[str, Any] | None = None,
) -> Position:
    """A complete, valid docs/format.md position with ``plays`` in 1..48 (phase play, or over at
    48).

    ``hands`` fixes some seats' hands (their sizes must fit ``plays``); the other hands are filled
    with unused cards, each owner of a house first getting a card of its value (R21d). Unless given,
    the remaining cards are split over the two captured piles (team 0 first) and
    ``last_capture`` is 0 when any card was captured (``"auto"``), else null.
    """
    if not 1 <= plays <= 48:
        raise ValueError("plays must be 1..48 for play_position")
    hands = dict(hands or {})
    sizes = hand_sizes(dealer, plays)
    for seat, hand in hands.items():
        if len(hand) != sizes[seat]:
            raise ValueError(f"seat {seat} must hold {sizes[seat]} cards at plays {plays}")
    used = [c for h in hands.values() for c in h] + list(loose)
    for h in houses:
        used.extend(h["cards"])
    if captured is not None:
        for pile in captured:
            used.extend(pile)
    if len(set(used)) != len(used):
        raise ValueError("a card is used twice")
    pool = [c for c in ALL_CARDS if c not in set(used)]
    # Prefer worthless cards as filler so the piles keep the points (reverse: kings first).
    pool.sort(key=lambda c: (card_points([c]) > 0, -value(c)))
    full_hands: list[list[str]] = [list(hands.get(s, [])) for s in range(4)]
    for s in range(4):
        if s in hands:
            continue
        for h in houses:
            v = h["value"]
            if 1 <= v <= 13 and s in h["owners"] and all(value(c) != v for c in full_hands[s]):
                full_hands[s].append(_take(pool, lambda c, v=v: value(c) == v))
        while len(full_hands[s]) < sizes[s]:
            full_hands[s].append(_take(pool, lambda c: True))
        if len(full_hands[s]) != sizes[s]:
            raise ValueError(f"seat {s}: too many cards needed for its houses")
    if captured is None:
        half = (len(pool) + 1) // 2
        piles = [pool[:half], pool[half:]]
    else:
        if pool:
            raise ValueError(f"cards not placed: {pool}")
        piles = [list(captured[0]), list(captured[1])]
    if last_capture == "auto":
        last_capture = 0 if (piles[0] or piles[1]) else None
    over = plays == 48
    return {
        "format": "seep/1",
        "rules": full_rules(rules),
        "dealer": dealer,
        "phase": "over" if over else "play",
        "bid": bid,
        "plays": plays,
        "to_move": None if over else mover(dealer, plays),
        "hands": full_hands,
        "stock": [],
        "loose": list(loose),
        "houses": [dict(h) for h in houses],
        "captured": piles,
        "sweeps": list(sweeps),
        "last_capture": last_capture,
        "match": dict(match or {"diff": 0, "baazis": [0, 0], "deals": 0}),
    }


def bid_position(
    *,
    dealer: int = 0,
    hand: Sequence[str],
    floor: Sequence[str],
    stock: Sequence[str] | None = None,
    other_hands: Mapping[int, Sequence[str]] | None = None,
    rules: str | Mapping[str, Any] = "standard",
    match: Mapping[str, Any] | None = None,
) -> Position:
    """A complete phase-"bid" position (R12): the bidder holds ``hand``, 4 cards lie loose.

    With ``deal_before_bid`` every other seat also holds 4 cards (``other_hands`` or fillers) and
    the stock has 32 cards; otherwise 44. The stock defaults to the unused cards in pack order.
    """
    full = full_rules(rules)
    b = bidder(dealer)
    hands: list[list[str]] = [[] for _ in range(4)]
    hands[b] = list(hand)
    used = set(hand) | set(floor)
    if full["deal_before_bid"]:
        for s in range(4):
            if s == b:
                continue
            given = list((other_hands or {}).get(s, []))
            used |= set(given)
            hands[s] = given
        pool = [c for c in ALL_CARDS if c not in used]
        for s in range(4):
            while len(hands[s]) < 4:
                hands[s].append(pool.pop(0))
        used = {c for h in hands for c in h} | set(floor)
    rest = [c for c in ALL_CARDS if c not in used]
    if stock is None:
        stock = rest
    if sorted(stock) != sorted(rest):
        raise ValueError("stock must hold exactly the unused cards")
    return {
        "format": "seep/1",
        "rules": full,
        "dealer": dealer,
        "phase": "bid",
        "bid": None,
        "plays": 0,
        "to_move": b,
        "hands": hands,
        "stock": list(stock),
        "loose": list(floor),
        "houses": [],
        "captured": [[], []],
        "sweeps": [0, 0],
        "last_capture": None,
        "match": dict(match or {"diff": 0, "baazis": [0, 0], "deals": 0}),
    }


def piles_for_points(
    points0: int, rules: str | Mapping[str, Any] = "standard", cards0: int = 26
) -> tuple[list[str], list[str]]:
    """Split the pack into two piles: team 0's has ``cards0`` cards worth ``points0`` (R5)."""
    scoring = [c for c in ALL_CARDS if card_points([c], rules) > 0]
    scoring.sort(key=lambda c: -card_points([c], rules))
    pile0: list[str] = []
    left = points0
    for c in scoring:
        p = card_points([c], rules)
        if p <= left:
            pile0.append(c)
            left -= p
    if left:
        raise ValueError(f"cannot make {points0} card points")
    worthless = [c for c in ALL_CARDS if card_points([c], rules) == 0]
    need = cards0 - len(pile0)
    if need < 0 or need > len(worthless):
        raise ValueError(f"cannot make a pile of {cards0} cards worth {points0}")
    pile0.extend(worthless[:need])
    pile1 = [c for c in ALL_CARDS if c not in set(pile0)]
    return pile0, pile1


def finished_position(
    points0: int,
    *,
    sweeps: Sequence[int] = (0, 0),
    dealer: int = 0,
    match: Mapping[str, Any] | None = None,
    rules: str | Mapping[str, Any] = "standard",
    cards0: int = 26,
) -> Position:
    """A phase-"over" position (48 plays, empty hands and floor) with team 0 holding
    ``points0`` card points in ``cards0`` cards and the given sweep points."""
    pile0, pile1 = piles_for_points(points0, rules, cards0)
    return play_position(
        dealer=dealer,
        plays=48,
        captured=[pile0, pile1],
        sweeps=sweeps,
        last_capture=0,
        rules=rules,
        match=match,
    )


def move_key(move: Mapping[str, Any]) -> tuple[Any, ...]:
    """Canonical identity of a move (docs/format.md: lists of loose cards and houses are sets)."""
    return (
        move.get("action"),
        move.get("card"),
        move.get("value"),
        move.get("house"),
        frozenset(move.get("loose") or ()),
        frozenset(move.get("houses") or ()),
    )


def move_keys(moves: Sequence[Mapping[str, Any]]) -> set[tuple[Any, ...]]:
    """The set of canonical keys of a list of moves."""
    return {move_key(m) for m in moves}

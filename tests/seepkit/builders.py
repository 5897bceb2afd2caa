"""Build complete, valid docs/format.md positions from the few cards a test cares about.

docs/rules.md's worked examples (§10) show only the mover's hand and the floor. A real position also
needs the other hands, the captured piles, ``plays``, ``to_move`` and so on, all consistent:

* all 52 cards exactly once across hands, stock, loose cards, houses and captured piles (§11.1);
* hand sizes match ``plays`` (R18, R19): in the ``bid`` phase and on play 1 (``plays == 0``) the
  bidder holds 4 cards, the others none (4 each with ``deal_before_bid``), 4 cards lie loose and
  the rest is ``stock``; once play 1 is made seat ``s`` holds 12 minus the plays it has made,
  play ``k`` (1-based) being made by seat ``(dealer + k) % 4``;
* ``to_move == (dealer + 1 + plays) % 4``;
* every house owner holds a card of the house's value (R21d, §11.4).

``make_position`` takes the cards that matter and deals every other card deterministically
(sorted pack order) into the unspecified hands, then the stock or one team's captured pile.
Seats may be named by the compass letters of the examples: N = 0 (dealer), W = 1, S = 2, E = 3.

Houses can be given in the notation of docs/rules.md §2, e.g. ``"H10[TC | 7D 3C]{S}"`` (sets
separated by ``|``, owners in braces), or as docs/format.md dicts.

The module also holds what every protocol-level test needs, written from docs/rules.md and
docs/format.md alone, independently of the engine: the card list, card values and points (R4, R5),
the rules objects, hand sizes for a play number (R18, R19), whole positions of a bid phase, a
running deal or a finished one, and a canonical key for comparing moves ("two moves are the same
move when action, card, value, house and the sets of loose and houses agree", docs/format.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Position = dict[str, Any]
Move = dict[str, Any]

RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)

#: docs/rules.md §3: every option key with its standard value ("a dump writes every key").
#: Also the brute-force oracle's (tests/seepkit/bruteforce.py).
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
    "players": 4,
    "second_deal": True,
    "majority_tie": "none",
    "min_score_effect": "lose_baazi",
}

#: docs/rules.md §3 "Presets".
PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "family": {"ten_diamonds_points": 2, "majority_bonus": 4},
    "two_houses": {"max_houses": 2},
    "two_player": {"players": 2},
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


def bidder(dealer: int, players: int = 4) -> int:
    """The bidder is the player on the dealer's right (R12, docs/format.md; R2P3)."""
    return (dealer + 1) % players


def mover(dealer: int, plays: int, players: int = 4) -> int:
    """The seat to move after ``plays`` plays: ``(dealer + 1 + plays) % players`` (§2; R2P6)."""
    return (dealer + 1 + plays) % players


def hand_sizes(
    dealer: int,
    plays: int,
    deal_before_bid: bool = False,
    players: int = 4,
    second_deal: bool = True,
) -> list[int]:
    """Hand sizes in phase play/over after ``plays`` plays (R12, R18, R19; two players R2P4).

    At plays 0 only the bidder holds 4 cards (every seat 4 with ``deal_before_bid``); from play 1
    on every seat has 12 cards minus the plays it made (play i is made by seat (dealer+i) % 4).
    With two players each holds 12 per half (docs/rules.md §12.7 invariant 2): 24 minus his plays
    from play 24 on, or from play 1 on under ``second_deal: false``.
    """
    if plays == 0:
        return [4 if deal_before_bid or s == bidder(dealer, players) else 0 for s in range(players)]
    per_seat = 12 if players == 4 or (second_deal and plays < 24) else 24
    return [
        per_seat - sum(1 for i in range(1, plays + 1) if (dealer + i) % players == s)
        for s in range(players)
    ]


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


#: Compass seats of the worked examples (docs/rules.md §2): N deals, W bids.
N, W, S, E = 0, 1, 2, 3
SEAT_NAMES = {"N": N, "W": W, "S": S, "E": E}

_HOUSE_RE = re.compile(r"^H(\d+)\[([^\]]*)\]\{([^}]*)\}$")


def _deal_before_bid(rules: str | Mapping[str, Any]) -> bool:
    return not isinstance(rules, str) and bool(rules.get("deal_before_bid", False))


def _of_value(house_value: int) -> Callable[[str], bool]:
    """A predicate: the card has capture value ``house_value``."""
    return lambda card: value(card) == house_value


def parse_house(text: str) -> dict[str, Any]:
    """Parse docs/rules.md house notation, e.g. ``"H10[TC | 7D 3C]{S}"`` or ``"H9[5H 4C]{S, E}"``.

    Each ``|``-separated set must sum to the house value (R21b); owners are compass letters or
    seat numbers.
    """
    m = _HOUSE_RE.match(text.replace(" ,", ",").strip())
    if not m:
        raise ValueError(f"bad house notation: {text!r}")
    house_value = int(m.group(1))
    sets = [part.split() for part in m.group(2).split("|")]
    for cards in sets:
        if not cards or sum(value(c) for c in cards) != house_value:
            raise ValueError(f"set {cards} of {text!r} does not sum to {house_value}")
    owners = []
    for name in m.group(3).replace(",", " ").split():
        owners.append(SEAT_NAMES[name] if name in SEAT_NAMES else int(name))
    return {
        "value": house_value,
        "cards": [c for cards in sets for c in cards],
        "cemented": len(sets) >= 2,
        "owners": sorted(owners),
    }


def make_position(
    hand: Sequence[str],
    *,
    mover: int | None = None,
    plays: int | None = None,
    dealer: int = 0,
    others: Mapping[int, Sequence[str]] | None = None,
    loose: Sequence[str] = (),
    houses: Sequence[str | Mapping[str, Any]] = (),
    rules: str | Mapping[str, Any] = "standard",
    phase: str = "play",
    bid: int | None = None,
    capture_team: int | None = None,
) -> dict[str, Any]:
    """A complete docs/format.md position in which ``hand`` belongs to the seat to move.

    Args:
        hand: the mover's cards.
        mover: the seat to move; with ``plays`` omitted, the mid-deal play count at which that
            seat holds ``len(hand)`` cards is used (``mid_deal_plays``).
        plays: plays made so far (0 = the opening play 1 is next). Either it or ``mover``
            (or both, consistently) must be given in the play phase.
        dealer: the dealer's seat.
        others: known hands of other seats, by seat.
        loose: loose cards on the floor. For ``phase == "bid"`` / ``plays == 0`` the floor is
            4 loose cards; missing ones are filled in.
        houses: houses, in docs/rules.md notation or as docs/format.md dicts.
        rules: the position's ``rules`` (preset name or options dict), stored as given.
        phase: ``"bid"`` or ``"play"``.
        bid: the bid; defaults to the highest card value >= 9 of the bidder's hand on play 1
            and to 13 mid-deal (any value does: it binds only play 1, R16).
        capture_team: the team whose pile receives the cards that are nowhere else (it also
            becomes ``last_capture``); default: the team of the seat that made the last play.

    Returns:
        The position dict. Raises ``ValueError`` when the given cards cannot be completed into
        a valid position (duplicate cards, wrong hand sizes, an owner who cannot hold his house's
        value, a floor larger than the cards played, ...).
    """
    others = dict(others or {})
    house_dicts = [parse_house(h) if isinstance(h, str) else dict(h) for h in houses]
    dbb = _deal_before_bid(rules)

    if phase == "bid":
        if plays not in (None, 0):
            raise ValueError("the bid phase has plays == 0")
        plays = 0
    elif phase != "play":
        raise ValueError(f"phase must be 'bid' or 'play', not {phase!r}")
    if plays is None:
        if mover is None:
            raise ValueError("give plays or mover")
        plays = plays_for(dealer, mover, len(hand))
    to_move = (dealer + 1 + plays) % 4
    if mover is not None and mover != to_move:
        raise ValueError(f"seat {mover} is not to move after {plays} plays")
    if to_move in others:
        raise ValueError("the mover's hand goes in `hand`, not in `others`")

    hands: list[list[str] | None] = [None] * 4
    hands[to_move] = list(hand)
    for seat, cards in others.items():
        hands[seat] = list(cards)
    sizes = hand_sizes(dealer, plays, dbb)
    for s in range(4):
        known = hands[s]
        if known is not None and len(known) != sizes[s]:
            raise ValueError(f"seat {s} must hold {sizes[s]} cards after {plays} plays")

    used: list[str] = [c for h in hands if h for c in h] + list(loose)
    used += [c for h in house_dicts for c in h["cards"]]
    if len(used) != len(set(used)) or not set(used) <= set(ALL_CARDS):
        raise ValueError(f"duplicate or unknown cards in {sorted(used)}")
    pool = [c for c in ALL_CARDS if c not in set(used)]
    floor_size = len(loose) + sum(len(h["cards"]) for h in house_dicts)
    if plays > 0 and floor_size > 4 + plays:
        raise ValueError(f"{floor_size} floor cards, but only {4 + plays} ever reached the floor")

    def take(predicate: Callable[[str], bool] | None = None) -> str:
        for c in pool:
            if predicate is None or predicate(c):
                pool.remove(c)
                return c
        raise ValueError("not enough free cards to complete the position")

    # Owners' duty (R21d): give every owner whose hand is open a card of the house value first.
    filled: list[list[str]] = [[] if h is None else h for h in hands]
    for h in house_dicts:
        for owner in h["owners"]:
            if any(value(c) == h["value"] for c in filled[owner]):
                continue
            if hands[owner] is not None or len(filled[owner]) >= sizes[owner]:
                raise ValueError(f"seat {owner} owns H{h['value']} but holds no such card")
            filled[owner].append(take(_of_value(h["value"])))
    for s in range(4):
        while len(filled[s]) < sizes[s]:
            filled[s].append(take())

    loose_cards = list(loose)
    stock: list[str] = []
    captured: list[list[str]] = [[], []]
    last_capture: int | None = None
    if plays == 0:
        if house_dicts:
            raise ValueError("no house exists before play 1")
        while len(loose_cards) < 4:
            loose_cards.append(take())
        if len(loose_cards) != 4:
            raise ValueError("4 cards lie on the floor before play 1 (R12)")
        stock = list(pool)
        if phase == "play" and bid is None:
            bid = max((value(c) for c in filled[to_move] if value(c) >= 9), default=None)
            if bid is None:
                raise ValueError("the bidder holds no card above 8 (R14)")
    else:
        # Floor + piles hold the 4 initial floor cards and every card played (52 - hands).
        leftover = list(pool)
        if leftover:
            team = capture_team if capture_team is not None else ((dealer + plays) % 4) % 2
            if len(leftover) < 2:
                raise ValueError("a capture pile always holds at least two cards")
            captured[team] = leftover
            last_capture = team
        if bid is None:
            bid = 13
    pool.clear()

    position: dict[str, Any] = {
        "format": "seep/1",
        "rules": rules if isinstance(rules, str) else dict(rules),
        "dealer": dealer,
        "phase": phase,
        "bid": bid if phase == "play" else None,
        "plays": plays,
        "to_move": to_move,
        "hands": filled,
        "stock": stock,
        "loose": loose_cards,
        "houses": house_dicts,
        "captured": captured,
        "sweeps": [0, 0],
        "last_capture": last_capture,
        "match": {"diff": 0, "baazis": [0, 0], "deals": 0},
    }
    validate_position(position)
    return position


def validate_position(position: Mapping[str, Any]) -> None:
    """Assert the structural invariants of a running deal (docs/rules.md §11.1-4, docs/format.md).

    Raises ``ValueError`` with a description of the first problem found.
    """
    hands = position["hands"]
    cards = [c for h in hands for c in h] + list(position["stock"]) + list(position["loose"])
    cards += [c for h in position["houses"] for c in h["cards"]]
    cards += [c for pile in position["captured"] for c in pile]
    if sorted(cards) != sorted(ALL_CARDS):
        raise ValueError("the 52 cards are not each present exactly once")
    plays, dealer = position["plays"], position["dealer"]
    if position["phase"] == "over":
        return
    if position["to_move"] != (dealer + 1 + plays) % 4:
        raise ValueError("to_move != (dealer + 1 + plays) % 4")
    dbb = _deal_before_bid(position["rules"])
    for s in range(4):
        if len(hands[s]) != hand_sizes(dealer, plays, dbb)[s]:
            raise ValueError(f"seat {s} holds {len(hands[s])} cards after {plays} plays")
    seen_values = set()
    loose_values = {value(c) for c in position["loose"]}
    for h in position["houses"]:
        v = h["value"]
        total = sum(value(c) for c in h["cards"])
        if not 9 <= v <= 13 or len(h["cards"]) < 2 or total % v:
            raise ValueError(f"invalid house {h}")
        if h["cemented"] != (total >= 2 * v):
            raise ValueError(f"house {h}: cemented flag wrong")
        if not h["owners"] or (not h["cemented"] and len(h["owners"]) != 1):
            raise ValueError(f"house {h}: wrong number of owners")
        if v in seen_values or v in loose_values:
            raise ValueError(f"second house or loose card of value {v}")
        seen_values.add(v)
        for owner in h["owners"]:
            if not any(value(c) == v for c in hands[owner]):
                raise ValueError(f"owner {owner} of H{v} holds no card of value {v}")


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

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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)

#: Compass seats of the worked examples (docs/rules.md §2): N deals, W bids.
N, W, S, E = 0, 1, 2, 3
SEAT_NAMES = {"N": N, "W": W, "S": S, "E": E}

_HOUSE_RE = re.compile(r"^H(\d+)\[([^\]]*)\]\{([^}]*)\}$")


def card_value(card: str) -> int:
    """Capture value of a card (R4)."""
    return RANKS.index(card[0]) + 1


def _deal_before_bid(rules: str | Mapping[str, Any]) -> bool:
    return not isinstance(rules, str) and bool(rules.get("deal_before_bid", False))


def _of_value(house_value: int) -> Callable[[str], bool]:
    """A predicate: the card has capture value ``house_value``."""
    return lambda card: card_value(card) == house_value


def plays_made(seat: int, plays: int, dealer: int = 0) -> int:
    """How many of plays 1..``plays`` seat ``seat`` has made (play k is by ``(dealer+k) % 4``)."""
    return sum(1 for k in range(1, plays + 1) if (dealer + k) % 4 == seat)


def hand_size(seat: int, plays: int, dealer: int = 0, deal_before_bid: bool = False) -> int:
    """Cards held by ``seat`` after ``plays`` plays of the play phase (R12, R18, R19).

    ``plays == 0`` is the moment of the bid / opening play: the bidder holds 4 cards, the others
    hold 4 only under ``deal_before_bid`` (A5). Afterwards everyone has been dealt 12.
    """
    if plays == 0:
        bidder = (dealer + 1) % 4
        return 4 if seat == bidder or deal_before_bid else 0
    return 12 - plays_made(seat, plays, dealer)


def mid_deal_plays(seat: int, cards_held: int, dealer: int = 0) -> int:
    """The play count (1..47) at which ``seat`` is to move holding ``cards_held`` cards."""
    for plays in range(1, 48):
        if (dealer + 1 + plays) % 4 == seat and hand_size(seat, plays, dealer) == cards_held:
            return plays
    raise ValueError(f"seat {seat} never moves mid-deal holding {cards_held} cards")


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
        if not cards or sum(card_value(c) for c in cards) != house_value:
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
        plays = mid_deal_plays(mover, len(hand), dealer)
    to_move = (dealer + 1 + plays) % 4
    if mover is not None and mover != to_move:
        raise ValueError(f"seat {mover} is not to move after {plays} plays")
    if to_move in others:
        raise ValueError("the mover's hand goes in `hand`, not in `others`")

    hands: list[list[str] | None] = [None] * 4
    hands[to_move] = list(hand)
    for seat, cards in others.items():
        hands[seat] = list(cards)
    sizes = [hand_size(s, plays, dealer, dbb) for s in range(4)]
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
            if any(card_value(c) == h["value"] for c in filled[owner]):
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
            bid = max((card_value(c) for c in filled[to_move] if card_value(c) >= 9), default=None)
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
        if len(hands[s]) != hand_size(s, plays, dealer, dbb):
            raise ValueError(f"seat {s} holds {len(hands[s])} cards after {plays} plays")
    seen_values = set()
    loose_values = {card_value(c) for c in position["loose"]}
    for h in position["houses"]:
        v = h["value"]
        total = sum(card_value(c) for c in h["cards"])
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
            if not any(card_value(c) == v for c in hands[owner]):
                raise ValueError(f"owner {owner} of H{v} holds no card of value {v}")

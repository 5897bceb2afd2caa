"""docs/format.md positions: reading with full validation, writing.

:func:`position_from_dict` checks every field and every invariant of docs/rules.md §11 that a single
position can break, and raises :class:`InvalidPositionError` with a message naming the problem
(the card, the house, the field). Writing is :meth:`seep.engine.Position.to_dict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import (
    CARD_NAMES,
    VALUE,
    VALUE_MASK,
    card_name,
    parse_card,
    plays_made,
    seat_to_move,
)
from .codes import PHASE_BID, PHASE_NAMES, PHASE_OVER, PHASE_PLAY
from .engine import House, Position
from .errors import InvalidPositionError, InvalidRulesError, NotationError
from .floor import split_cards
from .options import Rules

__all__ = ["FORMAT_VERSION", "position_from_dict"]

FORMAT_VERSION = "seep/1"
_KNOWN_KEYS = frozenset(
    {
        "format",
        "rules",
        "dealer",
        "phase",
        "bid",
        "plays",
        "to_move",
        "hands",
        "stock",
        "loose",
        "houses",
        "captured",
        "sweeps",
        "last_capture",
        "match",
    }
)


def _fail(msg: str) -> InvalidPositionError:
    return InvalidPositionError(f"invalid position: {msg}")


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(f"'{field}' must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise _fail(f"'{field}' must be {lo}..{hi}, got {value}")
    return value


def _cards(value: Any, field: str, seen: dict[int, str]) -> int:
    """Parse a card list, recording where each card was seen to report duplicates."""
    if not isinstance(value, list):
        raise _fail(f"'{field}' must be a list of cards, got {value!r}")
    mask = 0
    for item in value:
        try:
            c = parse_card(item, strict=True)
        except NotationError as exc:
            raise _fail(f"{field}: {exc}") from None
        if c in seen:
            where = seen[c]
            raise _fail(
                f"card {card_name(c)} appears twice (in {where} and in {field})"
                if where != field
                else f"card {card_name(c)} appears twice in {field}"
            )
        seen[c] = field
        mask |= 1 << c
    return mask


def position_from_dict(data: Any, *, check_retention: bool = True) -> Position:
    """Read and validate a docs/format.md position (``check_retention=False`` skips the owners'
    duty, R21d, for positions whose hidden hands are stand-ins, as when reading a view).
    This is the one reader of positions from outside; writing is ``Position.to_dict``.

    >>> from seep.engine import Position
    >>> p = Position.new_deal(3)
    >>> position_from_dict(p.to_dict()).to_dict() == p.to_dict()
    True
    """
    if not isinstance(data, Mapping):
        raise _fail(f"a position must be a JSON object, got {type(data).__name__}")
    unknown = sorted(k for k in data if k not in _KNOWN_KEYS)
    if unknown:
        raise _fail(f"unknown field(s) {', '.join(map(repr, unknown))}")
    fmt = data.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        raise _fail(f"'format' must be {FORMAT_VERSION!r}, got {fmt!r}")
    for key in ("dealer", "phase", "plays", "hands", "loose"):
        if key not in data:
            raise _fail(f"missing field {key!r}")
    try:
        rules = Rules.parse(data.get("rules", "standard"))
    except InvalidRulesError as exc:
        raise InvalidPositionError(f"invalid position: rules: {exc}") from None

    n_players = rules.players
    dealer = _int(data["dealer"], "dealer", 0, n_players - 1)
    phase_name = data["phase"]
    if phase_name not in PHASE_NAMES:
        raise _fail(f"'phase' must be one of 'bid', 'play', 'over', got {phase_name!r}")
    phase = PHASE_NAMES.index(phase_name)
    plays = _int(data["plays"], "plays", 0, 48)
    if phase == PHASE_BID and plays != 0:
        raise _fail(f"in the bid phase 'plays' must be 0, got {plays}")
    if phase == PHASE_PLAY and plays == 48:
        raise _fail("after 48 plays the phase must be 'over'")
    if phase == PHASE_OVER and plays != 48:
        raise _fail(f"a deal is over only after 48 plays, got 'plays' {plays}")

    bid = data.get("bid")
    if phase == PHASE_BID:
        if bid is not None:
            raise _fail(f"no bid is made yet in the bid phase, got 'bid' {bid!r}")
        bid_value = 0
    else:
        if bid is None:
            raise _fail("'bid' is missing: after the bid phase it must be 9..13")
        bid_value = _int(bid, "bid", 9, 13)

    expected_to_move = None if phase == PHASE_OVER else seat_to_move(dealer, plays, n_players)
    if "to_move" in data and data["to_move"] != expected_to_move:
        raise _fail(
            f"wrong 'to_move' {data['to_move']!r}: with dealer {dealer} after {plays} plays "
            f"it is {expected_to_move!r} ({'R19' if n_players == 4 else 'R2P6'})"
        )

    seen: dict[int, str] = {}
    hands_data = data["hands"]
    if not isinstance(hands_data, list) or len(hands_data) != n_players:
        raise _fail(
            f"'hands' must be a list of {n_players} card lists (seats 0..{n_players - 1}; "
            f"rules.players is {n_players})"
        )
    hands = [_cards(h, f"hands[{s}]", seen) for s, h in enumerate(hands_data)]
    stock_data = data.get("stock", [])
    if not isinstance(stock_data, list):
        raise _fail("'stock' must be a list of cards")
    _cards(stock_data, "stock", seen)
    stock = tuple(parse_card(c) for c in stock_data)
    loose = _cards(data["loose"], "loose", seen)
    captured_data = data.get("captured", [[], []])
    if not isinstance(captured_data, list) or len(captured_data) != 2:
        raise _fail("'captured' must be a list of two card lists (teams 0 and 1)")
    captured = [_cards(c, f"captured[{t}]", seen) for t, c in enumerate(captured_data)]

    houses_data = data.get("houses", [])
    if not isinstance(houses_data, list):
        raise _fail("'houses' must be a list")
    houses: list[House] = []
    for i, h in enumerate(houses_data):
        house = _read_house(h, i, seen, n_players)
        if any(house[0] == other[0] for other in houses):
            raise _fail(f"two houses of value {house[0]}: equal houses must be one (R21e)")
        houses.append(house)

    missing = [CARD_NAMES[c] for c in range(52) if c not in seen]
    if missing:
        raise _fail(f"card(s) missing: {' '.join(missing)} (all 52 must appear exactly once)")

    sweeps = data.get("sweeps", [0, 0])
    if (
        not isinstance(sweeps, list)
        or len(sweeps) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in sweeps)
    ):
        raise _fail(f"'sweeps' must be a list of two integers, got {sweeps!r}")
    last = data.get("last_capture")
    if last is not None:
        last = _int(last, "last_capture", 0, 1)  # a team (two players: a seat, R2P1)
    match = data.get("match", {"diff": 0, "baazis": [0, 0], "deals": 0})
    if not isinstance(match, Mapping):
        raise _fail("'match' must be an object with 'diff', 'baazis' and 'deals'")
    diff = match.get("diff", 0)
    baazis = match.get("baazis", [0, 0])
    deals = match.get("deals", 0)
    if not isinstance(diff, int) or isinstance(diff, bool):
        raise _fail(f"'match.diff' must be an integer, got {diff!r}")
    if (
        not isinstance(baazis, list)
        or len(baazis) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in baazis)
    ):
        raise _fail(f"'match.baazis' must be two counts, got {baazis!r}")
    _int(deals, "match.deals", 0, 10**9)

    pos = Position(
        rules,
        dealer,
        phase_id=phase,
        bid=bid_value,
        plays=plays,
        hands=hands,
        stock=stock,
        loose=loose,
        houses=sorted(houses),
        captured=captured,
        sweeps=sweeps,
        last_capture=-1 if last is None else last,
        match=(diff, (baazis[0], baazis[1]), deals),
    )
    _check_deal_state(pos, check_retention)
    return pos


def _read_house(h: Any, i: int, seen: dict[int, str], players: int = 4) -> House:
    """One house: R21a (value 9..13), R21b (sets), R21c (owners: seats below ``players``,
    R2P9), R21e (one per value)."""
    where = f"houses[{i}]"
    if not isinstance(h, Mapping):
        raise _fail(f"{where} must be an object with value, cards, cemented, owners")
    for key in ("value", "cards", "owners"):
        if key not in h:
            raise _fail(f"{where} is missing {key!r}")
    value = h["value"]
    if not isinstance(value, int) or isinstance(value, bool) or not 9 <= value <= 13:
        raise _fail(f"{where}: a house value is 9..13 (R21a), got {value!r}")
    where = f"house {value}"
    cards = _cards(h["cards"], where, seen)
    n = cards.bit_count()
    if n < 2:
        raise _fail(f"{where} has {n} card(s): a house has at least 2 (R21a)")
    total = sum(VALUE[c] for c in range(52) if cards >> c & 1)
    names = " ".join(CARD_NAMES[c] for c in range(52) if cards >> c & 1)
    if total % value:
        raise _fail(f"{where}: its cards {names} sum to {total}, not a multiple of {value} (R21b)")
    sets = total // value
    if sets > 1 and split_cards(cards, value) is None:
        raise _fail(f"{where}: its cards {names} cannot be split into sets of {value} (R21b)")
    cemented = h.get("cemented", sets > 1)
    if not isinstance(cemented, bool):
        raise _fail(f"{where}: 'cemented' must be true or false")
    if cemented != (sets > 1):
        raise _fail(
            f"{where}: 'cemented' is {str(cemented).lower()} but the house holds {sets} set(s) "
            "(cemented means two or more sets, R21b)"
        )
    owners = h["owners"]
    if (
        not isinstance(owners, list)
        or not owners
        or not all(
            isinstance(o, int) and not isinstance(o, bool) and 0 <= o < players for o in owners
        )
        or len(set(owners)) != len(owners)
    ):
        raise _fail(f"{where}: 'owners' must be a non-empty list of distinct seats, got {owners!r}")
    if not cemented and len(owners) != 1:
        raise _fail(f"{where}: an ordinary house has exactly one owner (R21c), got {owners}")
    mask = 0
    for o in owners:
        mask |= 1 << o
    return (value, cards, cemented, mask)


def _check_deal_state(pos: Position, check_retention: bool = True) -> None:
    """Hand sizes, stock, floor and house invariants against the phase and ``plays``."""
    rules = pos.rules
    bidder = pos.bidder
    phase = pos.phase_id
    before_deal = phase == PHASE_BID or (phase == PHASE_PLAY and pos.plays == 0)
    players = rules.players
    stock_size = 44 - 4 * (players - 1) if rules.deal_before_bid else 44
    # Two players (R2P4, R2P7, §12.7 invariants 1, 2): 12 cards a half, the second half dealt
    # right after play 24 (with second_deal false, all 24 after play 1).
    half_time = players == 2 and rules.second_deal
    per_seat = 12 if players == 4 or (half_time and pos.plays < 24) else 24
    rule = "R18" if players == 4 else "R2P4"
    for s in range(players):
        n = pos.hands[s].bit_count()
        if before_deal:
            want = 4 if (s == bidder or rules.deal_before_bid) else 0
        else:
            want = per_seat - plays_made(pos.dealer, pos.plays, s, players)
        if n != want:
            raise _fail(
                f"seat {s} holds {n} card(s); after {pos.plays} plays it must hold {want} ({rule})"
            )
    if before_deal:
        if len(pos.stock) != stock_size:
            raise _fail(f"before play 1 the stock holds {stock_size} cards, got {len(pos.stock)}")
    elif half_time and pos.plays < 24:
        if len(pos.stock) != 24:
            raise _fail(
                f"between play 1 and play 24 the stock holds the 24 half-time cards (R2P7), got "
                f"{len(pos.stock)}"
            )
    elif pos.stock:
        if players == 2:
            raise _fail("the half-time cards are dealt after play 24: 'stock' must be empty")
        raise _fail("the stock is dealt after play 1: 'stock' must be empty")
    if phase == PHASE_BID:
        if pos.loose.bit_count() != 4 or pos.hpresent:
            raise _fail("in the bid phase the floor is exactly 4 loose cards (R12)")
        if pos.captured[0] or pos.captured[1] or pos.sweeps != [0, 0]:
            raise _fail("in the bid phase nothing is captured yet")
    if half_time and pos.plays == 24 and pos.hpresent:
        raise _fail("no house outlives play 24: retention counts the hand only (R2P8)")
    if phase == PHASE_OVER and pos.hpresent:
        raise _fail("a finished deal has no houses left (R41)")
    for v in range(9, 14):
        if not pos.hpresent >> v & 1:
            continue
        if pos.loose & VALUE_MASK[v]:
            c = (pos.loose & VALUE_MASK[v]).bit_length() - 1
            raise _fail(
                f"loose card {card_name(c)} has the value of house {v}: it would have merged "
                "into the house (R21f)"
            )
        if not check_retention:
            continue
        for s in range(players):
            if pos.howners[v] >> s & 1 and not pos.hands[s] & VALUE_MASK[v]:
                raise _fail(
                    f"seat {s} owns house {v} but holds no card of value {v} (retention, R21d)"
                )

"""Two-player Seep (docs/rules.md §12): the worked examples T1-T3 on the engine and on the
independent brute-force enumerator (tests/seepkit/bruteforce.py), the deal packet by packet (§12.4),
the baazi and the dealer (R2P12-R2P15), the options of §12.3, the §12.7 invariants under
hypothesis for every two-player option set, and docs/format.md round trips of positions and views.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seep import protocol
from seep.baazi import settle_deal
from seep.cards import parse_card
from seep.engine import Position
from seep.format import position_from_dict
from seep.options import PRESETS, Rules
from seep.view import View
from seepkit.bruteforce import brute_legal, make_key, move_key
from seepkit.builders import ALL_CARDS, hand_sizes
from seepkit.invariants import check_deal

pytestmark = pytest.mark.default_build_only

TWO = Rules.parse("two_player")

# T1's stock, packet by packet (docs/rules.md §12.6).
T1_PACKETS = [
    "KH QD 6H 7H",
    "KS QC AH 8H",
    "3D JC 6C 8C",
    "6D JS AS KC",
    "JH 4H 4C AD",
    "7D 3C TH 2S",
    "TD 9H 9D TS",
    "7C JD AC 6S",
    "3S 5H KD 9C",
    "2D 8S 2C 5S",
    "4S 5D QS QH",
]


def _cards(text: str) -> list[str]:
    return text.split()


def _t1_deck() -> list[int]:
    names = _cards("9S 5C 3H 8D") + _cards("7S 2H 4D TC")
    for p in T1_PACKETS:
        names += _cards(p)
    return [parse_card(c) for c in names]


def _packets(*indices: int) -> set[str]:
    return {c for i in indices for c in _cards(T1_PACKETS[i - 1])}


def two_player_position(
    *,
    dealer: int,
    plays: int,
    hands: Mapping[int, Sequence[str]],
    loose: Sequence[str] = (),
    houses: Sequence[dict[str, Any]] = (),
    bid: int = 9,
    rules: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A docs/format.md two-player position in phase play: the given hands, floor and houses; every
    other card goes (sorted pack order) to the unspecified hand, then the half-time stock (24
    cards while 1 <= plays < 24), then team 0's captured pile. Independent of the engine."""
    rules = {"players": 2, **(rules or {})}
    sizes = hand_sizes(dealer, plays, players=2, second_deal=rules.get("second_deal", True))
    used = {c for h in hands.values() for c in h} | set(loose)
    used |= {c for h in houses for c in h["cards"]}
    pool = [c for c in ALL_CARDS if c not in used]
    full_hands = []
    for s in range(2):
        if s in hands:
            assert len(hands[s]) == sizes[s], (s, sizes)
            full_hands.append(list(hands[s]))
        else:
            full_hands.append(pool[: sizes[s]])
            pool = pool[sizes[s] :]
    stock_n = 24 if rules.get("second_deal", True) and 1 <= plays < 24 else 0
    stock, pool = pool[:stock_n], pool[stock_n:]
    return {
        "format": "seep/1",
        "rules": rules,
        "dealer": dealer,
        "phase": "play",
        "bid": bid,
        "plays": plays,
        "to_move": (dealer + 1 + plays) % 2,
        "hands": full_hands,
        "stock": stock,
        "loose": list(loose),
        "houses": list(houses),
        "captured": [pool, []],
        "sweeps": [0, 0],
        "last_capture": 0,
    }


def _both(position: dict[str, Any]) -> set[Any]:
    """The legal moves by the engine, checked equal to the brute force's."""
    engine = {move_key(m) for m in protocol.legal(position)}
    assert engine == brute_legal(position)
    return engine


# --- T1: the deal (R2P4, §12.4) ------------------------------------------------------------


def test_t1_bid_and_openings() -> None:
    pos = Position.from_deck(_t1_deck(), 0, TWO)
    d = pos.to_dict()
    assert d["to_move"] == 1 and len(d["hands"]) == 2 and d["hands"][0] == []
    assert len(d["stock"]) == 44
    assert {move_key(m) for m in protocol.legal(d)} == {make_key("bid", value_=9)}
    assert brute_legal(d) == {make_key("bid", value_=9)}
    after_bid = protocol.apply(d, {"action": "bid", "value": 9})
    assert _both(after_bid) == {
        make_key("capture", "9S", loose={"7S", "2H"}),
        make_key("build", "5C", 9, loose={"4D"}),
        make_key("build", "5C", 9, loose={"4D", "7S", "2H"}),
        make_key("build", "3H", 9, loose={"2H", "4D"}),
    }


def test_t1_packets() -> None:
    pos = Position.from_deck(_t1_deck(), 0, TWO)
    pos.play({"action": "bid", "value": 9})
    pos.play({"action": "capture", "card": "9S", "loose": ["7S", "2H"], "houses": []})
    d = pos.to_dict()
    assert set(d["hands"][1]) == {"5C", "3H", "8D"} | _packets(1, 3)
    assert set(d["hands"][0]) == _packets(2, 4, 5)
    assert d["to_move"] == 0  # R2P6: play 2 is the dealer's
    assert d["stock"] == [c for i in range(6, 12) for c in _cards(T1_PACKETS[i - 1])]
    rng = random.Random(1)
    first_half = {1: set(d["hands"][1]), 0: set(d["hands"][0])}
    while pos.plays < 24:
        assert len(pos.stock) == 24
        pos.push(rng.choice(pos.legal_codes()))
    d = pos.to_dict()
    assert d["stock"] == [] and d["houses"] == []  # R2P7, R2P8
    assert set(d["hands"][1]) == _packets(6, 8, 10)
    assert set(d["hands"][0]) == _packets(7, 9, 11)
    assert d["to_move"] == 1  # R2P6: the bidder makes play 25
    assert first_half[0].isdisjoint(d["hands"][0])


@pytest.mark.parametrize(
    ("options", "first", "half"),
    [
        ({}, "bdbdd", "bdbdbd"),
        ({"deal_before_bid": True}, "bdbd", "bdbdbd"),
        ({"second_deal": False}, "bdbdbdbdbdd", ""),
        ({"second_deal": False, "deal_before_bid": True}, "bdbdbdbdbd", ""),
    ],
)
def test_deal_packet_orders(options: dict[str, Any], first: str, half: str) -> None:
    """§12.4: who gets each packet of the stock, after play 1 and at half-time."""
    rules = TWO.with_options(**options)
    for dealer in (0, 1):
        deck = list(range(52))
        random.Random(dealer).shuffle(deck)
        pos = Position.from_deck(deck, dealer, rules)
        b, d = 1 - dealer, dealer
        seat = {"b": b, "d": d}
        stock = list(pos.stock)
        assert len(stock) == (40 if rules.deal_before_bid else 44)
        if rules.deal_before_bid:
            assert pos.hands[d] == sum(1 << c for c in deck[8:12])
        pos.push(pos.legal_codes()[0])
        if pos.phase == "bid":  # a redeal: try the next deck
            continue
        before = pos.hands[:]
        pos.push(pos.legal_codes()[0])
        for i, who in enumerate(first):
            packet = sum(1 << c for c in stock[4 * i : 4 * i + 4])
            assert pos.hands[seat[who]] & packet == packet
            assert not before[seat[who]] & packet
        assert len(pos.stock) == len(half) * 4
        rest = list(pos.stock)
        while pos.plays < 24:
            pos.push(pos.legal_codes()[0])
        for i, who in enumerate(half):
            packet = sum(1 << c for c in rest[4 * i : 4 * i + 4])
            assert pos.hands[seat[who]] & packet == packet
        assert [h.bit_count() for h in pos.hands] == [12, 12] if half else True


# --- T2: ownership (R2P9) ------------------------------------------------------------------

H9 = {"value": 9, "cards": ["5H", "4C"], "cemented": False, "owners": [0]}


def test_t2_opponent_may_break_or_not_add() -> None:
    pos = two_player_position(
        dealer=0,
        plays=16,
        hands={1: _cards("2H JD 9S 6D"), 0: _cards("9C KS KH KD")},
        loose=["8C", "2S"],
        houses=[H9],
    )
    assert _both(pos) == {
        make_key("capture", "2H", loose={"2S"}),
        make_key("break", "2H", 11, 9),
        make_key("capture", "9S", houses={9}),
        make_key("build", "9S", 11, loose={"2S"}),
        make_key("throw", "JD"),
        make_key("throw", "6D"),
    }


def test_t2_second_nine_cements_and_co_owns() -> None:
    pos = two_player_position(
        dealer=0,
        plays=14,
        hands={1: _cards("2H JD 9S 6D 9H"), 0: _cards("9C KS KH KD QS")},
        loose=["8C", "2S"],
        houses=[H9],
    )
    moves = _both(pos)
    assert len(moves) == 10
    assert make_key("cement", "9S", 9) in moves and make_key("cement", "9H", 9) in moves
    after = protocol.apply(pos, {"action": "cement", "card": "9H", "value": 9, "loose": []})
    assert after["houses"] == [
        {"value": 9, "cards": ["4C", "5H", "9H"], "cemented": True, "owners": [0, 1]}
    ]


def test_t2_owner_may_not_break_his_own_house() -> None:
    pos = two_player_position(
        dealer=0,
        plays=19,
        hands={0: _cards("2D JC 9D")},
        loose=["8C", "2S"],
        houses=[H9],
    )
    assert _both(pos) == {
        make_key("capture", "2D", loose={"2S"}),
        make_key("capture", "9D", houses={9}),
        make_key("throw", "JC"),
    }
    refusal = protocol_refusal(
        pos, {"action": "break", "card": "2D", "house": 9, "value": 11, "loose": []}
    )
    assert "R29" in refusal


def protocol_refusal(position: dict[str, Any], move: dict[str, Any]) -> str:
    from seep.errors import IllegalMoveError

    with pytest.raises(IllegalMoveError) as info:
        protocol.apply(position, move)
    return str(info.value)


# --- T3: half-time and scoring (R2P7-R2P15) -----------------------------------------------

H12 = {"value": 12, "cards": ["5D", "7C"], "cemented": False, "owners": [0]}


def test_t3_play_24_sweeps_then_half_time() -> None:
    pos = two_player_position(
        dealer=0, plays=23, hands={0: ["QH"], 1: []}, loose=["3S", "9D"], houses=[H12]
    )
    take_all = make_key("capture", "QH", loose={"3S", "9D"}, houses={12})
    assert _both(pos) == {take_all}
    after = protocol.apply(
        pos, {"action": "capture", "card": "QH", "loose": ["3S", "9D"], "houses": [12]}
    )
    assert after["sweeps"] == [50, 0]  # R2P10: play 24 is an ordinary sweep
    assert after["plays"] == 24 and after["to_move"] == 1
    assert [len(h) for h in after["hands"]] == [12, 12] and after["stock"] == []
    moves = _both(after)
    assert len(moves) == 12 and all(k[0] == "throw" for k in moves)


def test_t3_house_alone() -> None:
    pos = two_player_position(
        dealer=0, plays=23, hands={0: ["QH"], 1: []}, loose=["3S", "8D"], houses=[H12]
    )
    assert _both(pos) == {make_key("capture", "QH", houses={12})}


@pytest.mark.parametrize(
    ("options", "diff", "winner", "dealer"),
    [
        ({}, -80, None, 0),
        ({"min_score_includes_sweeps": False}, 0, 1, 0),
        (
            {"min_score_includes_sweeps": False, "min_score_effect": "zero_card_points"},
            -85,
            None,
            0,
        ),
    ],
)
def test_t3_deal_end(options: dict[str, Any], diff: int, winner: int | None, dealer: int) -> None:
    """Seat 0: 3S AH AD (5) + one sweep = 55; seat 1: 95. D was -40; seat 0 dealt."""
    s = settle_deal(TWO.with_options(**options), 0, -40, (0, 0), (5, 95), (50, 0))
    assert (s.diff, s.winner, s.dealer) == (diff, winner, dealer)


# --- baazi and dealer (R2P12-R2P15), the §12.3 options ------------------------------------


def test_dealer_after_a_deal_and_a_baazi() -> None:
    # R2P14: the dealer ahead passes the deal to the player behind; level: the same dealer.
    assert settle_deal(TWO, 0, 0, (0, 0), (60, 40), (0, 0)).dealer == 1
    assert settle_deal(TWO, 1, 0, (0, 0), (60, 40), (0, 0)).dealer == 1
    assert settle_deal(TWO, 1, 0, (0, 0), (50, 50), (0, 0)).dealer == 1
    # R2P12, R2P15: a lead of 100 ends the baazi; its loser deals.
    s = settle_deal(TWO, 0, 50, (0, 0), (80, 20), (0, 0))
    assert (s.diff, s.baazis, s.winner, s.dealer) == (0, (1, 0), 0, 1)
    s = settle_deal(TWO, 0, -50, (0, 0), (20, 80), (0, 0))
    assert (s.winner, s.dealer) == (1, 0)
    # R46: 8 points lose the baazi at once; the loser deals.
    s = settle_deal(TWO, 1, 0, (0, 0), (92, 8), (0, 0))
    assert (s.winner, s.dealer) == (0, 1)
    # dealer_rule "rotate" alternates (NC).
    assert (
        settle_deal(TWO.with_options(dealer_rule="rotate"), 1, 0, (0, 0), (92, 8), (0, 0)).dealer
        == 0
    )


def test_zero_card_points_four_players() -> None:
    """§12.3: min_score_effect applies to four players too: the team under min_score keeps
    only its sweeps and the baazi goes on."""
    rules = Rules(min_score_effect="zero_card_points")
    s = settle_deal(rules, 0, 0, (0, 0), (95, 5), (0, 50))
    assert (s.diff, s.winner, s.under_min) == (95 - 55, None, (False, False))
    s = settle_deal(
        rules.with_options(min_score_includes_sweeps=False), 0, 0, (0, 0), (95, 5), (0, 50)
    )
    assert (s.diff, s.winner, s.under_min) == (45, None, (False, True))
    s = settle_deal(
        rules.with_options(min_score_includes_sweeps=False), 0, 60, (0, 0), (95, 5), (0, 0)
    )
    assert (s.diff, s.winner) == (0, 0)  # 60 + 95 >= 100: won on the lead, not on R46


def test_majority_tie_split() -> None:
    from seep.scoring import majority_bonus

    half = (1 << 26) - 1
    piles = [half, ((1 << 52) - 1) & ~half]
    for players in (2, 4):
        rules = Rules(players=players, majority_bonus=4)
        assert majority_bonus(piles, rules) == (0, 0)
        assert majority_bonus(piles, rules.with_options(majority_tie="split")) == (2, 2)
        assert majority_bonus([piles[0] | 1 << 51, piles[1] & ~(1 << 51)], rules) == (4, 0)


def test_options_and_preset() -> None:
    assert PRESETS["two_player"] == Rules(players=2)
    assert Rules.parse("two_player").players == 2
    for bad in ({"players": 3}, {"players": True}, {"second_deal": 1}, {"majority_tie": "x"}):
        with pytest.raises(Exception, match="rule option"):
            Rules.parse(bad)
    with pytest.raises(Exception, match=r"dealer must be a seat 0\.\.1"):
        Position.new_deal(1, 2, TWO)


def test_match_alternates_dealers_and_records_replay() -> None:
    from seep.session import Session, replay_record

    session = Session("two_player", seed=5, deals=3)
    rng = random.Random(5)
    dealers = []
    while not session.match_over:
        if session.position.is_over():
            out = session.outcome()
            assert out is not None
            dealers.append((session.position.dealer, out.dealer, out.diff))
            session.start_next_deal()
            assert session.position.dealer == out.dealer
            continue
        session.play_legal(rng.choice(session.position.legal_codes()))
    record = session.to_record()
    assert len(record["deals"]) == 3
    assert all(len(d["start"]["hands"]) == 2 for d in record["deals"])
    replay_record(record)


# --- the §12.7 invariants under hypothesis, per option set ---------------------------------

TWO_PLAYER_SETS: list[str | dict[str, Any]] = [
    "two_player",
    {"players": 2, "second_deal": False},
    {"players": 2, "deal_before_bid": True},
    {"players": 2, "majority_tie": "split", "majority_bonus": 4},
    {"players": 2, "min_score_effect": "zero_card_points", "min_score_includes_sweeps": False},
]


@pytest.mark.parametrize("rules", TWO_PLAYER_SETS, ids=str)
@settings(max_examples=6, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 1), rng=st.integers(0, 2**32 - 1))
def test_invariants_two_players(rules: Any, seed: int, dealer: int, rng: int) -> None:
    check_deal(seed, dealer, rules, rng)


# --- docs/format.md round trips -------------------------------------------------------------------


@pytest.mark.parametrize("rules", TWO_PLAYER_SETS, ids=str)
def test_round_trips_positions_and_views(rules: Any) -> None:
    r = Rules.parse(rules)
    for seed in range(6):
        pos = Position.new_deal(seed, seed % 2, r)
        rng = random.Random(seed)
        while True:
            d = pos.to_dict()
            assert position_from_dict(d).to_dict() == d
            for seat in (0, 1):
                view = View.from_position(pos, seat)
                vd = view.to_dict()
                other = vd["hands"][1 - seat]
                assert isinstance(other, int)  # the opponent's hand as a count
                assert vd["stock"] == len(pos.stock)  # the unseen stock as a count
                assert View.from_dict(vd) == view
                assert protocol.view(d, seat) == vd
                sample = view.determinize(rng)
                assert View.from_position(sample, seat) == view
            if pos.is_over():
                break
            pos.push(rng.choice(pos.legal_codes()))


def test_bad_two_player_positions_are_refused() -> None:
    pos = Position.new_deal(3, 0, TWO)
    while pos.phase == "bid":
        pos.push(pos.legal_codes()[0])
    d = pos.to_dict()
    four = {**d, "hands": [*d["hands"], [], []]}
    with pytest.raises(Exception, match="'hands' must be a list of 2"):
        position_from_dict(four)
    with pytest.raises(Exception, match="dealer"):
        position_from_dict({**d, "dealer": 3})
    pos.push(pos.legal_codes()[0])
    d = pos.to_dict()
    no_stock = {**d, "stock": [], "captured": [d["captured"][0] + d["stock"], d["captured"][1]]}
    with pytest.raises(Exception, match="24 half-time cards"):
        position_from_dict(no_stock)


# --- the web seats two for two_player --------------------------------------------------------


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_web_seats_two_for_two_player(tmp_path: Any) -> None:
    pytest.importorskip("fastapi")
    from seepkit.web import web_client

    with web_client(tmp_path) as (client, _, _):
        r = client.post("/api/tables", json={"preset": "two_player"})
        assert r.status_code == 201, r.text
        code = r.json()["code"]
        assert len(client.get(f"/api/tables/{code}").json()["seats"]) == 2
        r = client.post("/api/tables", json={"preset": "nonsense"})
        assert r.status_code == 400 and "unknown preset" in r.json()["error"]["message"]

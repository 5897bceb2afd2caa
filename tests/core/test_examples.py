"""docs/rules.md's worked examples (§10) E1 and E3-E11, on the engine and on the brute-force oracle.

Each example is turned into a complete, valid position with ``builders.make_position``; the
legal moves of the engine (``seep.protocol.legal``) and of the independent oracle
(tests/seepkit/bruteforce.py) must both equal the example's exact list of moves (and its stated
count).
A second group of tests exercises every option of docs/rules.md §3 that changes legal moves, on the
same positions; the last tests apply the examples' moves and check what they make (sweeps,
merged and cemented houses, owners). E2, E12 and E13 are in test_deal_flow.py and
test_match.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from seep import protocol
from seepkit.bruteforce import MoveKey, make_key, move_key
from seepkit.bruteforce import brute_legal as oracle_legal
from seepkit.builders import E, N, S, W, make_position, parse_house, validate_position


def brute_legal(position: dict[str, Any]) -> set[MoveKey]:
    """The oracle's legal moves, after checking that the engine lists exactly the same, once."""
    oracle = oracle_legal(position)
    engine = [move_key(m) for m in protocol.legal(position, limit=1_000_000)]
    assert len(engine) == len(set(engine)), "the engine lists a move twice"
    assert set(engine) == oracle, (set(engine) - oracle, oracle - set(engine))
    return oracle


# ---- compact constructors for expected keys ---------------------------------------------------


def cap(card: str, loose: tuple[str, ...] = (), houses: tuple[int, ...] = ()) -> MoveKey:
    return make_key("capture", card, loose=loose, houses=houses)


def thr(card: str) -> MoveKey:
    return make_key("throw", card)


def bld(card: str, value: int, loose: tuple[str, ...]) -> MoveKey:
    return make_key("build", card, value, loose=loose)


def cem(card: str, value: int, loose: tuple[str, ...] = ()) -> MoveKey:
    return make_key("cement", card, value, loose=loose)


def brk(card: str, house: int, value: int, loose: tuple[str, ...] = ()) -> MoveKey:
    return make_key("break", card, value, house, loose=loose)


# ---- the positions of §10 -----------------------------------------------------------------------


def e1(
    loose: tuple[str, ...] = ("6C", "7D", "9H", "4S"), rules: Any = "standard"
) -> dict[str, Any]:
    """E1: W's opening play (plays == 0) after bidding 13 with KH 4D 2C 8S."""
    return make_position(["KH", "4D", "2C", "8S"], plays=0, loose=loose, bid=13, rules=rules)


def e3(hand: list[str], rules: Any = "standard") -> dict[str, Any]:
    """E3: W owns H10[6D 4C]; loose 7H 2S 5C."""
    return make_position(
        hand, mover=W, houses=["H10[6D 4C]{W}"], loose=["7H", "2S", "5C"], rules=rules
    )


def e4(
    mover: int, hand: list[str], house: str = "H9[5H 4C]{E}", rules: Any = "standard"
) -> dict[str, Any]:
    """E4: E owns ordinary H9[5H 4C]; loose 8C."""
    return make_position(hand, mover=mover, houses=[house], loose=["8C"], rules=rules)


def e5(hand: list[str], h12_owner: str = "N", rules: Any = "standard") -> dict[str, Any]:
    """E5: H12[8D 4S] (N's, or W's in the variant); E owns H10[7C 3H]; loose 6D; N to move."""
    return make_position(
        hand,
        mover=N,
        houses=[f"H12[8D 4S]{{{h12_owner}}}", "H10[7C 3H]{E}"],
        loose=["6D"],
        rules=rules,
    )


def e6(hand: list[str], rules: Any = "standard") -> dict[str, Any]:
    """E6: S owns H11[6C 5D]; loose 9C 2D; E to move."""
    return make_position(hand, mover=E, houses=["H11[6C 5D]{S}"], loose=["9C", "2D"], rules=rules)


def e7(hand: Sequence[str] = ("6C", "JC", "2S"), rules: Any = "standard") -> dict[str, Any]:
    """E7: loose JD 5S 3H; W to move."""
    return make_position(list(hand), mover=W, loose=["JD", "5S", "3H"], rules=rules)


def e8(rules: Any = "standard") -> dict[str, Any]:
    """E8: loose 2S 3D 5C 6H; W holds JH 9C."""
    return make_position(["JH", "9C"], mover=W, loose=["2S", "3D", "5C", "6H"], rules=rules)


def e9(mover: int, hand: list[str], rules: Any = "standard", **kw: Any) -> dict[str, Any]:
    """E9: S owns cemented H10[TC | 7D 3C]; loose 6S."""
    return make_position(
        hand, mover=mover, houses=["H10[TC | 7D 3C]{S}"], loose=["6S"], rules=rules, **kw
    )


def e10(rules: Any = "standard") -> dict[str, Any]:
    """E10: E owns cemented H9[9D | 5C 4H]; loose 2C; N holds JH 7S."""
    return make_position(
        ["JH", "7S"], mover=N, houses=["H9[9D | 5C 4H]{E}"], loose=["2C"], rules=rules
    )


def e11(hand: Sequence[str] = ("3C", "QS"), rules: Any = "standard") -> dict[str, Any]:
    """E11: E owns ordinary H9[5H 4C]; loose QD; N to move."""
    return make_position(list(hand), mover=N, houses=["H9[5H 4C]{E}"], loose=["QD"], rules=rules)


# ---- the examples themselves ----------------------------------------------------------------


def test_e1_opening() -> None:
    expected = {
        cap("KH", ("6C", "7D", "9H", "4S")),  # both 13-groups: maximal (R25) -> 25-point sweep
        bld("4D", 13, ("9H",)),
        bld("4D", 13, ("9H", "6C", "7D")),  # optional absorption of {6C,7D} (R31)
        bld("2C", 13, ("7D", "4S")),
    }
    assert brute_legal(e1()) == expected
    assert len(expected) == 4


def test_e1_variant_throw_allowed() -> None:
    expected = {
        thr("KH"),  # KH cannot capture, so the bid card may be thrown (R16.3)
        bld("4D", 13, ("6C", "3H")),
        bld("4D", 13, ("5D", "3H", "AC")),
        bld("2C", 13, ("6C", "5D")),
        bld("8S", 13, ("5D",)),
    }
    assert brute_legal(e1(("6C", "5D", "3H", "AC"))) == expected


def test_e1_capture_any_takes_one_group() -> None:
    moves = brute_legal(e1(rules={"capture_rule": "any"}))
    assert cap("KH", ("6C", "7D")) in moves
    assert cap("KH", ("9H", "4S")) in moves
    assert len(moves) == 6


def test_e1_bid_and_e2_redeal() -> None:
    bid_pos = make_position(["KH", "4D", "2C", "8S"], phase="bid")
    assert brute_legal(bid_pos) == {make_key("bid", value_=13)}  # R13: only card > 8
    e2 = make_position(["8S", "5H", "3C", "AD"], phase="bid")
    assert brute_legal(e2) == {make_key("redeal")}  # R14
    several = make_position(["KH", "9D", "QC", "9S"], phase="bid")
    assert brute_legal(several) == {make_key("bid", value_=v) for v in (9, 12, 13)}


def test_e3a() -> None:
    expected = {
        cap("TS", houses=(10,)),
        cem("TS", 10),
        bld("TS", 12, ("2S",)),
        bld("TS", 12, ("2S", "7H", "5C")),
        cap("TH", houses=(10,)),
        cem("TH", 10),
        bld("TH", 12, ("2S",)),
        bld("TH", 12, ("2S", "7H", "5C")),
        thr("3D"),
        cem("3D", 10, ("7H",)),
        cem("3D", 10, ("2S", "5C")),
        bld("3D", 12, ("7H", "2S")),
        cap("QC", ("7H", "5C")),
    }
    assert brute_legal(e3(["TS", "TH", "3D", "QC"])) == expected
    assert len(expected) == 13


def test_e3b() -> None:
    expected = {
        cap("TS", houses=(10,)),  # adding or building would leave W without a 10 (R21d)
        cap("9H", ("7H", "2S")),
        thr("3D"),
        cem("3D", 10, ("7H",)),
        cem("3D", 10, ("2S", "5C")),
        bld("3D", 12, ("7H", "2S")),
        cap("QC", ("7H", "5C")),
    }
    assert brute_legal(e3(["TS", "9H", "3D", "QC"])) == expected
    # capture_rule any: TS may still not leave H10 behind (retention); nothing else changes here.
    assert brute_legal(e3(["TS", "9H", "3D", "QC"], {"capture_rule": "any"})) == expected


def test_e4_opponent_and_partner_break() -> None:
    expected = {
        brk("2H", 9, 11),
        thr("2H"),
        thr("JD"),
        bld("3S", 11, ("8C",)),
        thr("3S"),
        thr("KC"),
    }
    assert brute_legal(e4(N, ["2H", "JD", "3S", "KC"])) == expected
    assert brute_legal(e4(W, ["2H", "JD", "3S", "KC"])) == expected  # R34: partner may break


def test_e4_owner() -> None:
    expected = {
        cap("9C", houses=(9,)),
        thr("2H"),
        thr("JD"),
        bld("3S", 11, ("8C",)),
        thr("3S"),
    }
    assert brute_legal(e4(E, ["2H", "JD", "3S", "9C"])) == expected


def test_e4_cemented_cannot_be_broken() -> None:
    for mover in (N, W):
        moves = brute_legal(e4(mover, ["2H", "JD", "3S", "KC"], house="H9[9D | 5H 4C]{E}"))
        assert not any(k[0] == "break" for k in moves)
        assert len(moves) == 5


def test_e5() -> None:
    expected = {
        brk("2C", 10, 12),  # merges into N's H12 (R29, R30)
        thr("2C"),
        cap("QH", houses=(12,)),
        cem("QH", 12),
        cap("QD", houses=(12,)),
        cem("QD", 12),
        thr("5S"),
    }
    assert brute_legal(e5(["2C", "QH", "QD", "5S"])) == expected


def test_e5_one_queen() -> None:
    expected = {brk("2C", 10, 12), thr("2C"), cap("QH", houses=(12,)), thr("4D"), thr("5S")}
    assert brute_legal(e5(["2C", "QH", "4D", "5S"])) == expected


def test_e5_variant_partner_owns_h12() -> None:
    expected = {
        brk("2C", 10, 12),  # merges into W's H12; owners {W, N} (A15)
        thr("2C"),
        cap("QH", houses=(12,)),
        cem("QH", 12),  # W is an opponent: N keeps QD and joins the owners (R28)
        cap("QD", houses=(12,)),
        cem("QD", 12),
        thr("5S"),
    }
    assert brute_legal(e5(["2C", "QH", "QD", "5S"], h12_owner="W")) == expected


def test_e6() -> None:
    expected = {cap("JS", ("9C", "2D"), (11,)), thr("8H"), thr("AC")}
    assert brute_legal(e6(["JS", "8H", "AC"])) == expected


def test_e6_two_jacks() -> None:
    expected = {thr("8H")}
    for j in ("JS", "JH"):
        expected |= {cap(j, ("9C", "2D"), (11,)), cem(j, 11), cem(j, 11, ("9C", "2D"))}
    assert brute_legal(e6(["JS", "JH", "8H"])) == expected
    assert len(expected) == 7


def test_e7() -> None:
    expected = {bld("6C", 11, ("5S", "JD")), thr("6C"), cap("JC", ("JD",)), thr("2S")}
    assert brute_legal(e7()) == expected


def test_e8() -> None:
    expected = {
        cap("JH", ("5C", "6H")),
        cap("JH", ("2S", "3D", "6H")),
        cap("9C", ("3D", "6H")),
        bld("9C", 11, ("2S",)),
        bld("9C", 11, ("2S", "5C", "6H")),
    }
    assert brute_legal(e8()) == expected
    assert brute_legal(e8({"capture_rule": "any"})) == expected  # each choice is one group


def test_e9() -> None:
    assert brute_legal(e9(N, ["4D", "8C"])) == {cem("4D", 10, ("6S",)), thr("4D"), thr("8C")}
    assert brute_legal(e9(E, ["4D", "8C"])) == {thr("4D"), thr("8C")}
    assert brute_legal(e9(E, ["4D", "TH"])) == {
        cem("4D", 10, ("6S",)),
        cap("TH", houses=(10,)),
        thr("4D"),
    }


def test_e10() -> None:
    assert brute_legal(e10()) == {thr("JH"), thr("7S")}
    # house_in_sums (A10): J takes H9 + loose 2 and so can no longer be thrown.
    assert brute_legal(e10({"house_in_sums": True})) == {cap("JH", ("2C",), (9,)), thr("7S")}


def test_e11() -> None:
    expected = {brk("3C", 9, 12, ("QD",)), thr("3C"), cap("QS", ("QD",))}
    assert brute_legal(e11()) == expected


# ---- options of §3 that act on legal moves ------------------------------------------------------


def test_absorb_mandatory() -> None:
    mandatory = {"absorb_loose_groups": "mandatory"}
    assert len(brute_legal(e1(rules=mandatory))) == 3  # 4D + 9H must take {6C,7D}
    assert bld("4D", 13, ("9H",)) not in brute_legal(e1(rules=mandatory))
    assert len(brute_legal(e3(["TS", "TH", "3D", "QC"], mandatory))) == 11
    assert brute_legal(e8(mandatory)) == brute_legal(e8()) - {bld("9C", 11, ("2S",))}
    assert len(brute_legal(e6(["JS", "JH", "8H"], mandatory))) == 5


def test_absorb_never() -> None:
    never = {"absorb_loose_groups": "never"}
    assert brute_legal(e1(rules=never)) == brute_legal(e1()) - {bld("4D", 13, ("9H", "6C", "7D"))}
    assert len(brute_legal(e8(never))) == 4
    # Single loose cards of the house value still merge (R21f(a)).
    assert brute_legal(e7(rules=never)) == brute_legal(e7())
    assert brute_legal(e11(rules=never)) == brute_legal(e11())


def test_throw_rule_always() -> None:
    always = {"throw_rule": "always"}
    # TS/TH still may not be thrown: H10 is on the floor (R21f(b)).
    assert brute_legal(e3(["TS", "TH", "3D", "QC"], always)) == brute_legal(
        e3(["TS", "TH", "3D", "QC"])
    ) | {thr("QC")}
    assert brute_legal(e8(always)) == brute_legal(e8()) | {thr("JH"), thr("9C")}
    # Opening (R16): only the bid card may be thrown, now even though it can capture.
    assert brute_legal(e1(rules=always)) == brute_legal(e1()) | {thr("KH")}


def test_throw_rule_no_other_move() -> None:
    strict = {"throw_rule": "no_other_move"}
    assert brute_legal(e4(N, ["2H", "JD", "3S", "KC"], rules=strict)) == {
        brk("2H", 9, 11),
        bld("3S", 11, ("8C",)),
    }
    assert brute_legal(e10(strict)) == {thr("JH"), thr("7S")}  # nothing else is legal
    assert brute_legal(e1(("6C", "5D", "3H", "AC"), rules=strict)) == brute_legal(
        e1(("6C", "5D", "3H", "AC"))
    ) - {thr("KH")}


def test_allow_pair_build() -> None:
    pair = {"allow_pair_build": True}
    # QS on the loose QD while keeping QH: a cemented H12 (A12). Breaking H9 with 3C to 12
    # still merges QD.
    pos = e11(("3C", "QS", "QH"), pair)
    assert bld("QS", 12, ("QD",)) in brute_legal(pos)
    assert bld("QH", 12, ("QD",)) in brute_legal(pos)
    assert not any(k[0] == "build" for k in brute_legal(e11(("3C", "QS", "QH"))))
    # With only one jack W cannot pair-build JC on JD (he must keep a jack).
    assert brute_legal(e7(rules=pair)) == brute_legal(e7())


def test_max_houses() -> None:
    one = {"max_houses": 1}
    moves = brute_legal(e3(["TS", "TH", "3D", "QC"], one))
    assert not any(k[0] == "build" for k in moves)
    assert len(moves) == 13 - 5
    # A break never adds a house, so it stays legal at the limit (E5 has two houses).
    assert brute_legal(e5(["2C", "QH", "QD", "5S"], rules="two_houses")) == brute_legal(
        e5(["2C", "QH", "QD", "5S"])
    )


def test_partner_cement_free_false() -> None:
    strict = {"partner_cement_free": False}
    # S's H10 is cemented: N may still add freely.
    assert cem("4D", 10, ("6S",)) in brute_legal(e9(N, ["4D", "8C"], strict))
    # S's ordinary H10: free by default, needs a 10 in N's hand when the option is off (A13).
    ordinary = make_position(["4D", "8C"], mover=N, houses=["H10[6C 4S]{S}"], loose=["6S"])
    assert cem("4D", 10, ("6S",)) in brute_legal(ordinary)
    ordinary["rules"] = strict
    assert brute_legal(ordinary) == {thr("4D"), thr("8C")}


def test_add_retention_team() -> None:
    # E holds 4D 8C (no 10); his partner W holds a 10: under "team" E may add to S's house (A14).
    team = {"add_retention": "team"}
    pos = e9(E, ["4D", "8C"], team, others={W: ["TH"]})
    assert cem("4D", 10, ("6S",)) in brute_legal(pos)
    pos["rules"] = "standard"
    assert cem("4D", 10, ("6S",)) not in brute_legal(pos)


def test_add_retention_team_adder_without_the_value_is_no_owner() -> None:
    """docs/rules.md §3: under "team" the mover becomes an owner only if he himself still holds
    the value after the move; otherwise the owners stay as they were (invariant 4)."""
    team = {"add_retention": "team"}
    pos = e9(E, ["4D", "8C"], team, others={W: ["TH"]})
    after = protocol.apply(pos, {"action": "cement", "card": "4D", "value": 10, "loose": ["6S"]})
    assert [h["owners"] for h in after["houses"]] == [[S]]
    # With a 10 of his own he does join (R28, R21c).
    pos = e9(E, ["4D", "TD"], team, others={W: ["TH"]})
    after = protocol.apply(pos, {"action": "cement", "card": "4D", "value": 10, "loose": ["6S"]})
    assert [h["owners"] for h in after["houses"]] == [[S, E]]


# ---- helpers -------------------------------------------------------------------------------------


def test_move_key_shapes() -> None:
    assert move_key({"action": "bid", "value": 13}) == (
        "bid",
        None,
        13,
        None,
        frozenset(),
        frozenset(),
    )
    assert move_key({"action": "redeal"}) == ("redeal", None, None, None, frozenset(), frozenset())
    assert move_key({"action": "throw", "card": "KH"}) == thr("KH")
    assert move_key({"action": "capture", "card": "KH", "loose": ["9H", "4S"], "houses": [13]}) == (
        "capture",
        "KH",
        None,
        None,
        frozenset({"9H", "4S"}),
        frozenset({13}),
    )
    assert move_key({"action": "build", "card": "4D", "value": 13, "loose": ["9H"]}) == bld(
        "4D", 13, ("9H",)
    )
    assert move_key({"action": "cement", "card": "TS", "value": 10, "loose": []}) == cem("TS", 10)
    assert move_key({"action": "break", "card": "2H", "house": 9, "value": 11, "loose": []}) == brk(
        "2H", 9, 11
    )


def test_builders_positions_are_valid() -> None:
    pos = e9(N, ["4D", "8C"])
    validate_position(pos)
    assert pos["plays"] == 43 and pos["to_move"] == N
    assert any(c[0] == "T" for c in pos["hands"][S])  # the owner holds a 10 (R21d)
    assert parse_house("H10[TC | 7D 3C]{S, E}") == {
        "value": 10,
        "cards": ["TC", "7D", "3C"],
        "cemented": True,
        "owners": [S, E],
    }
    with pytest.raises(ValueError):
        parse_house("H10[TC | 7D 2C]{S}")
    with pytest.raises(ValueError):  # owner S is given a hand without a 10
        e9(N, ["4D", "8C"], others={S: ["2C"]})


# ---- what the examples' moves make ------------------------------------------------------------


def play(position: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    return protocol.apply(position, move)


def house_of(position: dict[str, Any], value: int) -> dict[str, Any]:
    return next(h for h in position["houses"] if h["value"] == value)


def test_e1_capture_is_a_25_point_sweep() -> None:
    after = play(
        e1(), {"action": "capture", "card": "KH", "loose": ["6C", "7D", "9H", "4S"], "houses": []}
    )
    assert after["loose"] == [] and after["houses"] == []
    assert after["sweeps"][W % 2] == 25  # R17, R38


def test_e5_break_merges_into_a_cemented_house() -> None:
    after = play(
        e5(["2C", "QH", "QD", "5S"]),
        {"action": "break", "card": "2C", "house": 10, "value": 12, "loose": []},
    )
    assert [h["value"] for h in after["houses"]] == [12]
    h12 = house_of(after, 12)
    assert sorted(h12["cards"]) == sorted(["8D", "4S", "7C", "3H", "2C"])
    assert h12["cemented"] and h12["owners"] == [N]  # R30, A15


def test_e5_variant_owners_union() -> None:
    after = play(
        e5(["2C", "QH", "QD", "5S"], h12_owner="W"),
        {"action": "break", "card": "2C", "house": 10, "value": 12, "loose": []},
    )
    assert sorted(house_of(after, 12)["owners"]) == [N, W]


def test_e6_jack_sweeps_for_50() -> None:
    after = play(
        e6(["JS", "8H", "AC"]),
        {"action": "capture", "card": "JS", "loose": ["9C", "2D"], "houses": [11]},
    )
    assert after["loose"] == [] and after["houses"] == []
    assert after["sweeps"][E % 2] == 50


def test_e6_added_jack_makes_co_owner() -> None:
    after = play(
        e6(["JS", "JH", "8H"]), {"action": "cement", "card": "JS", "value": 11, "loose": []}
    )
    h11 = house_of(after, 11)
    assert h11["cemented"] and sorted(h11["owners"]) == [S, E]  # R28


def test_e7_build_merges_the_loose_jack() -> None:
    after = play(e7(), {"action": "build", "card": "6C", "value": 11, "loose": ["5S", "JD"]})
    h11 = house_of(after, 11)
    assert sorted(h11["cards"]) == sorted(["6C", "5S", "JD"])
    assert h11["cemented"] and h11["owners"] == [W]  # R21f(a)
    assert after["loose"] == ["3H"]


def test_e9_partner_adds_without_joining() -> None:
    after = play(
        e9(N, ["4D", "8C"]), {"action": "cement", "card": "4D", "value": 10, "loose": ["6S"]}
    )
    assert house_of(after, 10)["owners"] == [S]  # R33, A16


def test_e11_break_onto_a_loose_queen() -> None:
    after = play(e11(), {"action": "break", "card": "3C", "house": 9, "value": 12, "loose": ["QD"]})
    h12 = house_of(after, 12)
    assert sorted(h12["cards"]) == sorted(["5H", "4C", "3C", "QD"])
    assert h12["cemented"] and h12["owners"] == [N]

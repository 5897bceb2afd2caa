"""The legal-move face, ``pos.legal`` (seep.engine.LegalMoves): iterating is the generator,
membership is the checker, the counts are the list's length (per card too), one card's moves
are the list's, and a dead card's reason is the checker's refusal of throwing it. Checked on
random positions under many option sets (hypothesis), on the huge floor that is counted
rather than listed, and against the answers of the protocol, the web and the terminal."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seep.cards import CARD_NAMES, parse_card
from seep.codes import code_card
from seep.engine import LegalMoves, Position
from seep.format import position_from_dict
from seep.moves import Move
from seep.options import Rules
from seep.verify import check
from seepkit.builders import make_position

RULESETS: list[str | dict[str, Any]] = [
    "standard",
    "family",
    "two_houses",
    "two_player",
    {"throw_rule": "always"},
    {"throw_rule": "no_other_move"},
    {"capture_rule": "any", "throw_rule": "always"},
    {"absorb_loose_groups": "mandatory", "throw_rule": "always"},
    {"absorb_loose_groups": "never"},
    {"allow_pair_build": True, "house_in_sums": True},
    {"house_in_sums": True, "capture_rule": "any"},
    {"partner_cement_free": False, "add_retention": "team"},
    {"max_houses": 1, "deal_before_bid": True},
    {"players": 2, "throw_rule": "always"},
]

PROPERTY = settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def position_after(seed: int, rules: str | dict[str, Any], plies: int) -> Position:
    """Deal ``seed`` after ``plies`` random moves (fewer if the deal ends first)."""
    parsed = Rules.parse(rules)
    pos = Position.new_deal(seed, seed % parsed.players, parsed)
    rng = random.Random(seed)
    for _ in range(plies):
        if pos.is_over():
            break
        pos.push(rng.choice(pos.legal_codes()))
    return pos


positions = st.builds(
    position_after,
    st.integers(0, 10_000),
    st.sampled_from(RULESETS),
    st.integers(0, 48),
)


def check_face(pos: Position, legal: LegalMoves) -> None:
    """Every answer of the face agrees with the generator and the checker."""
    codes = pos.legal_codes()
    assert list(legal) == codes  # iterating is the generator, in its order
    assert len(legal) == legal.count() == len(codes)
    assert all(c in legal for c in codes)
    if pos.is_over():
        assert legal.by_card() == {} and legal.dead_cards() == {}
        return
    seat = pos.to_move
    assert seat is not None
    hand = pos.hands[seat]
    if pos.phase != "play":
        assert legal.by_card() == {} and legal.playable() == 0
        assert all(legal.of_card(c) == [] for c in range(52))
        assert legal.within(1) == codes  # the bids are always listed
        assert legal.within(1, card=0) == []
        return
    per_card = Counter(code_card(c) for c in codes)
    counts = legal.by_card()
    assert list(counts) == sorted(counts)  # card order
    assert counts == {c: per_card.get(c, 0) for c in range(52) if hand >> c & 1}
    assert sum(counts.values()) == len(codes)
    playable = 0
    for card in range(52):
        mine = [c for c in codes if code_card(c) == card]
        assert legal.of_card(card) == mine  # in generator order
        assert legal.card_count(card) == len(mine)
        if mine:
            playable |= 1 << card
    assert legal.playable() == playable
    dead = legal.dead_cards()
    assert set(dead) == {c for c in range(52) if hand >> c & 1 and not playable >> c & 1}
    for card in range(52):
        throw = int(Move.throw(card))
        reason = legal.why_dead(card)
        if playable >> card & 1:
            assert reason is None
        else:
            # The checker's refusal of throwing it, which names the rule (R16, R21d ...).
            refusal = check(pos, throw)
            assert reason is not None and refusal is not None
            assert (reason.rule, reason.args) == (refusal.rule, refusal.args)
            if hand >> card & 1:
                assert dead[card] is not None and dead[card].rule == refusal.rule  # type: ignore[union-attr]
    assert legal.within(len(codes)) == codes
    if codes:
        assert legal.within(len(codes) - 1) is None
    for card, n in counts.items():
        assert legal.within(n, card) == legal.of_card(card)
        if n:
            assert legal.within(n - 1, card) is None


def illegal_codes(pos: Position, rng: random.Random) -> list[int]:
    """Codes near the legal ones (one field changed) and plain throws of every card."""
    out = [int(Move.throw(c)) for c in range(52)] + [int(Move.bid(v)) for v in range(9, 14)]
    for code in pos.legal_codes()[:20]:
        out.append(code ^ 1 << rng.randrange(52))  # a loose card more or less
        out.append(code ^ 1 << (57 + rng.randrange(6)))  # another card
    return out


@PROPERTY
@given(positions)
def test_the_face_agrees_with_the_generator_on_random_positions(pos: Position) -> None:
    check_face(pos, pos.legal)


@PROPERTY
@given(positions, st.integers(0, 1000))
def test_membership_is_the_checker(pos: Position, seed: int) -> None:
    legal = pos.legal
    listed = set(pos.legal_codes())
    for code in illegal_codes(pos, random.Random(seed)):
        assert (code in legal) == (check(pos, code) is None) == (code in listed)


def test_membership_takes_notation_and_move_objects() -> None:
    pos = Position.new_deal(1)
    assert "bid 13" in pos.legal and "bid 9" not in pos.legal
    assert {"action": "bid", "value": 10} in pos.legal
    assert Move.bid(13) in pos.legal


def _big_floor() -> Position:
    loose = [r + s for r in "A2345" for s in "SHDC"]
    hand = ["9S", "9H", "TS", "JS", "QS", "KS", "KH", "8S"]
    d = make_position(hand, mover=1, plays=16, loose=loose, rules={"throw_rule": "always"})
    return position_from_dict(d)


def test_a_huge_floor_is_counted_never_listed() -> None:
    pos = _big_floor()
    legal = pos.legal
    assert len(legal) == 1_663_906  # listing takes seconds; counting milliseconds
    assert legal.within(10_000) is None
    counts = legal.by_card()
    assert sum(counts.values()) == 1_663_906
    assert {CARD_NAMES[c] for c in counts} == {"9S", "9H", "TS", "JS", "QS", "KS", "KH", "8S"}
    card = min(counts, key=counts.__getitem__)  # one card's list, its moves alone
    some = legal.of_card(card)
    assert len(some) == counts[card] and {code_card(c) for c in some} == {card}
    assert legal.within(counts[card], card) == some
    assert legal.dead_cards() == {}
    assert "8S" in legal  # the checker, no list made


def test_the_small_and_huge_paths_count_alike() -> None:
    # A floor of ten items or more is counted by value; below, the list is counted. Both ways
    # must give the same numbers: deals that mostly throw (to grow the floor) are checked at
    # every position of ten items or more.
    rng = random.Random(3)
    rules = Rules.parse({"throw_rule": "always"})
    seen = 0
    for seed in range(12):
        pos = Position.new_deal(seed, seed % 4, rules)
        while not pos.is_over():
            if pos.phase == "play" and pos.loose.bit_count() + pos.hpresent.bit_count() >= 10:
                seen += 1
                check_face(pos, pos.legal)
            codes = pos.legal_codes()
            throws = [c for c in codes if Move(c).action == "throw"]
            pos.push(rng.choice(throws if throws and rng.random() < 0.8 else codes))
    assert seen > 20


def test_dead_card_reasons_name_the_rule() -> None:
    pos = Position.new_deal(1)
    pos.play("bid 13")
    legal = pos.legal
    dead = legal.dead_cards()
    assert [CARD_NAMES[c] for c in dead] == ["6D"]
    reason = dead[parse_card("6D")]
    assert reason is not None and reason.rule == "R16" and reason.args == {"bid": 13}
    assert legal.why_dead(parse_card("KH")) is None


@pytest.mark.parametrize("rules", RULESETS)
def test_the_surfaces_answer_from_the_face(rules: str | dict[str, Any]) -> None:
    from seep import protocol
    from seep.web import social

    for seed in range(3):
        pos = position_after(seed, rules, 7 + seed)
        legal = pos.legal
        assert social.legal_or_counts(pos) == (pos.legal_codes(), None)
        assert protocol.legal(pos.to_dict(), limit=1_000_000) == [Move(c).to_dict() for c in legal]
        for card in legal.by_card():
            assert social.card_moves(pos, card) == (legal.of_card(card), legal.card_count(card))

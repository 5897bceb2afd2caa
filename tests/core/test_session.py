"""seep.session: history, checked moves, the match length (deals or baazis, R45, R46), the deal
outcome without a next deal (R42, R44-R47), last moves, undo across deals, docs/format.md records;
and seep.baazi.settle_deal, the pure baazi arithmetic that Position.next_deal uses."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seep import IllegalMoveError, InvalidPositionError, MalformedMoveError, Rules
from seep.baazi import settle_deal
from seep.format import position_from_dict
from seep.moves import Move, MoveRecord
from seep.scoring import deal_result
from seep.session import Session
from seepkit.builders import finished_position
from seepkit.match_cases import CASES
from seepkit.play import play_deal
from seepkit.reference_match import Match


def play_match(s: Session, rng: random.Random) -> list[Any]:
    """Random legal moves to the end of the session; every deal's outcome."""
    outcomes = []
    while True:
        play_deal(s, rng)
        out = s.outcome()
        assert out is not None
        outcomes.append(out)
        if s.match_over:
            return outcomes
        s.start_next_deal()


# --- the pure baazi arithmetic ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("dealer", "before", "points0", "sweeps", "rules", "after", "next_dealer"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_settle_deal_table(
    dealer: int,
    before: dict[str, Any],
    points0: int,
    sweeps: tuple[int, int],
    rules: dict[str, Any],
    after: dict[str, Any],
    next_dealer: int,
) -> None:
    """settle_deal gives test_match's table of R9, R10, R44-R46 cases without dealing."""
    pos = position_from_dict(
        finished_position(points0, sweeps=sweeps, dealer=dealer, match=before, rules=rules)
    )
    pts, bon = pos.card_points(), pos.majority_bonus()
    s = settle_deal(
        Rules.parse(rules),
        dealer,
        before["diff"],
        tuple(before["baazis"]),  # type: ignore[arg-type]
        (pts[0] + bon[0], pts[1] + bon[1]),
        sweeps,
    )
    assert s.diff == after["diff"] and list(s.baazis) == after["baazis"]
    assert s.dealer == next_dealer
    won = [b - a for a, b in zip(before["baazis"], after["baazis"], strict=True)]
    assert s.winner == (won.index(1) if any(won) else None)


# --- history, last moves, checks -------------------------------------------------------------


def test_history_and_last_moves() -> None:
    """The session keeps (seat, code) of the deal in play and each seat's latest move with the
    sweep bonus it scored (R38)."""
    s = Session(seed=3)
    rng = random.Random(1)
    made: list[tuple[int, int]] = []
    bonus: list[int] = []
    while not s.deal_over:
        seat = s.to_move
        before = sum(s.position.sweeps)
        code = rng.choice(s.position.legal_codes())
        assert s.play(code) == (seat, code)
        made.append((seat, code))  # type: ignore[arg-type]
        bonus.append(sum(s.position.sweeps) - before)
        assert s.history == tuple(made) and s.deal_sweeps() == bonus
        last = s.last_moves()
        for t in range(4):
            mine = [i for i, (x, _) in enumerate(made) if x == t]
            want = MoveRecord(t, made[mine[-1]][1], bonus[mine[-1]]) if mine else None
            assert last[t] == want
    assert s.moves_made == len(made) and s.deal_history(0) == tuple(made)
    s.start_next_deal()
    assert s.history == () and s.last_moves() == [None] * 4 and s.deal_history(0) == tuple(made)
    assert s.deal_sweeps() == []


def test_moves_are_checked_once_with_reasons() -> None:
    """An illegal move is refused with the engine's reason and changes nothing; a move for the
    wrong seat, a malformed one, and one after the deal are refused too."""
    s = Session(seed=5)
    pos = s.position
    bidder = pos.to_move
    assert bidder is not None
    illegal = next(Move.bid(v) for v in range(9, 14) if not pos.is_legal(Move.bid(v)))
    with pytest.raises(IllegalMoveError, match="bid"):
        s.play(illegal)
    with pytest.raises(IllegalMoveError, match=f"seat {bidder} is to move"):
        s.verify(pos.legal_codes()[0], seat=(bidder + 1) % 4)
    with pytest.raises(MalformedMoveError):
        s.play({"action": "fly"})
    with pytest.raises(MalformedMoveError):
        s.play(None)  # type: ignore[arg-type]
    assert s.moves_made == 0
    code = s.verify(Move(pos.legal_codes()[0]).to_dict(), seat=bidder)
    assert s.play(code) == (bidder, code)
    play_deal(s, random.Random(0))
    with pytest.raises(IllegalMoveError, match="deal 1 is over"):
        s.play(0)


# --- the match length --------------------------------------------------------------------------


def test_length_by_deals() -> None:
    """deals=3: over at the end of the third deal, whatever the baazis."""
    s = Session(seed=11, deals=3)
    outs = play_match(s, random.Random(2))
    assert [o.deal for o in outs] == [1, 2, 3]
    assert [o.match_over for o in outs] == [False, False, True]
    assert s.match_over and s.deals_finished == 3
    with pytest.raises(IllegalMoveError, match="match is over"):
        s.start_next_deal()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_length_by_baazis(seed: int) -> None:
    """baazis=1: deals follow one another until a team wins a baazi (R45, R46)."""
    s = Session(seed=seed, baazis=1)
    outs = play_match(s, random.Random(seed))
    assert all(o.winner is None and not o.match_over for o in outs[:-1])
    last = outs[-1]
    assert last.winner is not None and last.baazi_over and last.match_over
    assert last.diff == 0 and sum(last.baazis) == 1 and last.baazis[last.winner] == 1
    assert s.standing() == (len(outs), 0, last.baazis)


def test_deals_and_baazis_whichever_first() -> None:
    """Both lengths: the match ends at the first one reached (the arena's unfinished baazi)."""
    s = Session(seed=1, baazis=1, deals=1)
    outs = play_match(s, random.Random(1))
    assert len(outs) == 1 and outs[0].match_over


def _first_under_nine() -> tuple[int, int]:
    """A (seed, rng seed) whose first deal of random play leaves a team under 9 points."""
    for seed in range(400):
        s = Session(seed=seed, baazis=1)
        play_deal(s, random.Random(seed))
        out = s.outcome()
        assert out is not None
        if any(out.under_min):
            return seed, seed
    raise AssertionError("no deal under 9 points found")


def test_nine_point_rule_ends_the_baazi() -> None:
    """R46: a team under 9 loses the baazi at once, whatever D; the session is over at 1
    baazi though the lead is under 100; the next dealer is from the losing team (R10)."""
    seed, rng_seed = _first_under_nine()
    s = Session(seed=seed, baazis=1)
    play_deal(s, random.Random(rng_seed))
    out = s.outcome()
    assert out is not None
    scores = out.result["score"]
    loser = 0 if scores[0] < 9 else 1
    assert out.under_min[loser] and not out.under_min[1 - loser]
    assert out.winner == 1 - loser and out.diff == 0 and s.match_over
    assert out.dealer & 1 == loser


def test_min_score_option_ends_the_baazi() -> None:
    """R46 with min_score 60 (an option): nearly every deal ends the baazi."""
    s = Session({"min_score": 60}, seed=4, baazis=1)
    play_deal(s, random.Random(4))
    out = s.outcome()
    assert out is not None
    if any(out.under_min) and not all(out.under_min):
        assert out.winner == (1 if out.under_min[0] else 0) and s.match_over


# --- the outcome is what next_deal then does -----------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 1 << 30),
    preset=st.sampled_from(["standard", "family", "two_houses"]),
    extra=st.sampled_from([{}, {"baazi_lead": 40}, {"dealer_rule": "rotate"}, {"min_score": 30}]),
)
def test_outcome_is_what_next_deal_does(seed: int, preset: str, extra: dict[str, Any]) -> None:
    """For several deals in a row: the outcome (told before any next deal exists) equals the
    result Match.next_deal returns and the match and dealer of the deal it deals."""
    rules = {**Rules.parse(preset).to_dict(), **extra}
    s = Session(rules, seed=seed)
    m = Match(seed, rules)
    rng = random.Random(seed)
    for _ in range(3):
        while not s.deal_over:
            code = rng.choice(s.position.legal_codes())
            s.play(code)
            m.play(code)
        out = s.outcome()
        assert out is not None
        before = m.position
        assert m.next_deal() == out.result == deal_result(before)
        nxt = m.position
        assert (nxt.dealer, nxt.match_diff, nxt.match_baazis) == (out.dealer, out.diff, out.baazis)
        assert (nxt.match_baazis != before.match_baazis) == out.baazi_over
        assert s.start_next_deal().to_dict() == nxt.to_dict()


# --- undo -------------------------------------------------------------------------------


def test_undo_to_a_seat_across_a_deal_boundary() -> None:
    """undo_to(seat) takes back the seat's last move and all after it, though it was in the
    previous deal: the next deal goes, the finished deal is running again."""
    s = Session(seed=9)
    rng = random.Random(9)
    play_deal(s, rng)
    record_before = s.to_record()
    last_seat = s.history[-1][0]
    fresh = s.start_next_deal()
    s.play(fresh.legal_codes()[0])  # the bid of deal 2: by the bidder
    bidder = s.history[0][0]
    # A seat that has not moved in deal 2 (not the bidder): its last move is in deal 1.
    seat = next(t for t in range(4) if t != bidder)
    deal1 = s.deal_history(0)
    idx = max(i for i, (t, _) in enumerate(deal1) if t == seat)
    n = s.undo_to(seat)
    assert n == 1 + (len(deal1) - idx)  # deal 2's bid, then deal 1 from the seat's move on
    assert s.deal_number == 1 and s.to_move == seat and not s.deal_over
    assert s.history == deal1[:idx]
    # The position is the one deal 1 had before that move; playing the moves again gives the
    # same record as before.
    for _, code in deal1[idx:]:
        s.play(code)
    assert s.to_record() == record_before
    assert last_seat in range(4)


def test_undo_counts_and_refusals() -> None:
    """undo(n) across deals; nothing to take back is refused with a reason."""
    s = Session(seed=2)
    with pytest.raises(IllegalMoveError, match="seat 0 has made no move"):
        s.undo_to(0)
    with pytest.raises(IllegalMoveError):
        s.undo()
    play_deal(s, random.Random(2))
    n = s.moves_made
    s.start_next_deal()
    assert s.undo(n) == n
    assert s.deal_number == 1 and s.moves_made == 0
    assert s.position.to_dict() == Session(seed=2).position.to_dict()


# --- records -------------------------------------------------------------------------------


def test_record_round_trip_and_steps() -> None:
    """to_record -> from_record -> to_record is the identity; steps walks every position;
    replay of the stored moves rebuilds the session (a web table's restart)."""
    s = Session(seed=21, deals=3)
    rng = random.Random(21)
    play_match(s, rng)
    s2 = Session(seed=21, deals=3)
    rec = s.to_record()
    assert len(rec["deals"]) == 3 and all("result" in d for d in rec["deals"])
    back = Session.from_record(rec, deals=3)
    assert back.to_record() == rec and back.match_over
    steps = [(x.deal_number, x.moves_made) for x in Session.steps(rec)]
    assert len(steps) == 3 + sum(len(d["moves"]) for d in rec["deals"])
    moves = [m for d in rec["deals"] for m in d["moves"]]
    assert s2.restore(moves) == len(moves)
    assert s2.to_record() == rec


def test_record_of_a_running_deal() -> None:
    """A running deal is in the record without a result (unless unfinished=False, which a
    server uses: its start shows every hand)."""
    s = Session(seed=8)
    assert s.to_record()["deals"] == []
    s.play(s.position.legal_codes()[0])
    rec = s.to_record()
    assert len(rec["deals"]) == 1 and "result" not in rec["deals"][0]
    assert s.to_record(unfinished=False)["deals"] == []
    assert Session.from_record(rec).to_record() == rec


def test_bad_record_is_refused() -> None:
    """A record with an illegal move or a wrong result is refused, naming the deal."""
    s = Session(seed=4)
    play_deal(s, random.Random(4))
    rec = s.to_record()
    rec["deals"][0]["result"]["score"] = [0, 0]
    with pytest.raises(InvalidPositionError, match="deal 1"):
        Session.from_record(rec)
    rec = s.to_record()
    rec["deals"][0]["moves"] = rec["deals"][0]["moves"][1:]
    with pytest.raises((IllegalMoveError, InvalidPositionError), match="deal 1"):
        Session.from_record(rec)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 1 << 40),
    preset=st.sampled_from(["standard", "family", "two_houses"]),
    deals=st.integers(1, 3),
    extra=st.integers(0, 60),
)
def test_session_and_match_write_the_same_record(
    seed: int, preset: str, deals: int, extra: int
) -> None:
    """Random play through a Session and through a Match: the same game record, finished deals
    and a deal in progress alike."""
    s = Session(preset, seed=seed)
    m = Match(seed, preset)
    rng = random.Random(seed)
    for _ in range(deals):
        while not s.deal_over:
            code = rng.choice(s.position.legal_codes())
            assert s.play(code)[1] == code
            m.play(code)
        s.start_next_deal()
        m.next_deal()
    for _ in range(extra):
        if s.deal_over:
            break
        code = rng.choice(s.position.legal_codes())
        s.play(code)
        m.play(code)
    rec = s.to_record()
    assert Session.from_record(rec).to_record() == rec
    if s.deal_over:  # Match writes a deal's result once it has dealt the next one
        del rec["deals"][-1]["result"]
    assert rec == m.to_record()


def test_copy_and_redealt() -> None:
    """A copy is independent; a redealt copy goes on from another position of the same point
    and refuses what needs the unknown start."""
    s = Session(seed=6)
    rng = random.Random(6)
    for _ in range(10):
        s.play(rng.choice(s.position.legal_codes()))
    c = s.copy()
    c.play(c.position.legal_codes()[0])
    assert c.moves_made == s.moves_made + 1 and s.moves_made == 10
    r = s.redealt(s.position.copy())
    r.play(r.position.legal_codes()[0])
    with pytest.raises(IllegalMoveError, match="redealt"):
        r.undo(5)
    with pytest.raises(InvalidPositionError, match="redealt"):
        r.to_record()
    with pytest.raises(InvalidPositionError):
        s.redealt(Session(seed=6).position)


def test_deal_records_are_the_history_with_its_sweeps() -> None:
    """deal_records() holds each move's seat, code and sweep, and writes the record's moves."""
    s = Session(seed=5)
    play_deal(s, random.Random(5))
    records = s.deal_records()
    assert [(r.seat, r.code) for r in records] == list(s.history)
    assert [r.sweep for r in records] == s.deal_sweeps()
    assert [r.to_dict() for r in records] == s.to_record()["deals"][0]["moves"]
    assert s.deal_records(0) == records

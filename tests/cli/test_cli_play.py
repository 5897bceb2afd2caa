"""``seep play``, ``seep replay`` and ``seep show`` driven through a real terminal (pexpect).

Two deals are played by typed input only (card numbers, then use numbers), with a malformed
input, an illegal move, a hint, an undo and a save on the way; the saved record is then replayed
forwards and backwards, shown, and checked against ``seep.protocol`` move by move. Easy bots,
a fixed seed and ``--delay 0`` keep it to a few seconds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

from seep import protocol  # noqa: E402
from seep.session import Session, replay_record  # noqa: E402
from seepkit.terminal import (  # noqa: E402
    BID,
    CARD,
    CHOOSE,
    NEXT_DEAL,
    PLAYED,
    SAVE_TO,
    TIMEOUT,
    finish,
    play_args,
    spawn,
    terminal_env,
)

SEED = 11
# A refusal of seep play (a regular expression; the other prompts are seepkit.terminal's).
CANNOT = r"You cannot play \w\w now: [^\r\n]+ Rule [^\r\n]+\."


def bid(child: Any) -> None:
    """At the bid prompt (just matched): Enter when one move is possible, else the first bid
    the prompt names."""
    allowed = child.match.group(1)
    found = re.search(r"\d+", allowed)
    child.sendline(found.group(0) if found and "only" not in allowed else "")
    child.expect(PLAYED)


def pick_a_card(child: Any) -> bool:
    """At the card prompt: the first card of the hand that has a use (at play 1 only cards
    of the bid's value do). True if its list of uses is open (the prompt matched), False if
    it had a single use and was played at once."""
    n = 1
    child.sendline(str(n))
    while (i := child.expect([CHOOSE, CANNOT, PLAYED])) == 1:
        n += 1
        child.expect(CARD)
        child.sendline(str(n))
    return i == 0


def play_a_card(child: Any) -> None:
    """At the card prompt: a card that has a use, then its first use."""
    if pick_a_card(child):
        child.sendline("1")


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two deals played by typed input, saved by ``--save`` at the end."""
    path = tmp_path_factory.mktemp("cli") / "game.json"
    mid = path.with_name("mid.json")
    child = spawn(*play_args(SEED, "--deals", "2", "--practice", "--save", str(path)))
    transcript: list[str] = []
    checks = {"malformed": False, "illegal": False, "range": False, "undo": False, "save": False}
    moves = 0
    while True:
        i = child.expect([CARD, CHOOSE, NEXT_DEAL, pexpect.EOF, BID])
        transcript.append(child.before or "")
        if i == 3:
            break
        if i == 4:
            bid(child)
            continue
        if i == 2:
            child.sendline("")
            continue
        if i == 1:
            child.sendline("1")  # the first use (or the first narrowing option)
            continue
        # Your turn, choosing a card: try the error paths once each, then play card 1.
        if not checks["malformed"]:
            checks["malformed"] = True
            child.sendline("9S =x")
            child.expect(r"Cannot read '9S =x' as a move: [^\r\n]+")
            continue
        if not checks["illegal"]:
            checks["illegal"] = True
            child.sendline("bid 13")  # a bid in the play phase
            child.expect(r"You cannot bid 13: the bid has been made; [^\r\n]+ Rule R20\.")
            continue
        if not checks["range"]:
            checks["range"] = True
            child.sendline("99")
            child.expect(r"Your cards are numbered 1 to \d+\.")
            child.expect(CARD)
            child.sendline("?")
            child.expect(r"Hint: [^\r\n]+")
            continue
        if moves == 1 and not checks["undo"]:
            checks["undo"] = True
            child.sendline("u")
            child.expect(r"Took back your [^\r\n]+")
            moves -= 1
            continue
        if moves == 3 and not checks["save"]:
            checks["save"] = True
            child.sendline("s")
            child.expect(SAVE_TO)
            child.sendline(str(mid))
            child.expect(r"Saved the game to")
            continue
        play_a_card(child)
        moves += 1
    child.close()
    out = "".join(transcript)
    assert "Traceback" not in out
    assert child.exitstatus == 0
    assert all(checks.values()), checks
    assert "Deal 1 is over." in out and "Deal 2 is over." in out
    assert "The match is over." in out or "Saved the game" in out
    assert mid.exists()
    return path


def test_saved_record_is_complete_and_valid(saved_game: Path) -> None:
    record = json.loads(saved_game.read_text())
    assert record["format"] == "seep/1" and record["seed"] == SEED
    assert len(record["deals"]) == 2 and all("result" in d for d in record["deals"])
    list(replay_record(record))  # the core's check, move by move
    assert Session.from_record(record).deals_finished == 2


def test_saved_record_replays_identically_through_the_protocol(saved_game: Path) -> None:
    record = json.loads(saved_game.read_text())
    replayed = [p for _, p in replay_record(record)]
    k = 0
    prev_final: dict[str, Any] | None = None
    for deal in record["deals"]:
        pos = deal["start"]
        if prev_final is not None:  # the next deal's dealer and match follow from the last
            nxt = protocol.next_deal(prev_final, seed=0)
            assert (pos["dealer"], pos["match"]) == (nxt["dealer"], nxt["match"])
        assert pos == replayed[k]
        k += 1
        for mv in deal["moves"]:
            assert mv["seat"] == pos["to_move"]
            move = {key: v for key, v in mv.items() if key != "seat"}
            assert move in protocol.legal(pos)
            pos = protocol.apply(pos, move)
            assert pos == replayed[k]
            k += 1
        assert protocol.score(pos) == deal["result"]
        prev_final = pos
    assert k == len(replayed)


def test_mid_game_save_is_a_valid_prefix(saved_game: Path) -> None:
    mid = json.loads(saved_game.with_name("mid.json").read_text())
    full = json.loads(saved_game.read_text())
    list(replay_record(mid))
    first = mid["deals"][0]
    assert "result" not in first  # saved during deal 1
    assert first["moves"] == full["deals"][0]["moves"][: len(first["moves"])]


def test_replay_steps_forward_and_back(saved_game: Path) -> None:
    child = spawn("replay", str(saved_game))
    child.expect(r"position 1/(\d+)")
    total = int(child.match.group(1))
    child.expect("replay> ")
    child.sendline("n")
    child.expect(r"position 2/")
    child.expect(r"deal 1, move 1/\d+: \w plays bid \d+")
    child.expect("replay> ")
    child.sendline("")  # Enter steps forward too
    child.expect(r"position 3/")
    child.expect("replay> ")
    child.sendline("p")
    child.expect(r"position 2/")
    child.expect("replay> ")
    child.sendline("p")
    child.expect(r"position 1/")
    child.expect("replay> ")
    child.sendline("p")
    child.expect("This is the first position.")
    child.sendline("d 2")
    child.expect(r"deal 2, move 0/\d+: the deal's start")
    child.expect("replay> ")
    child.sendline("m 10")
    child.expect(r"deal 2, move 10/")
    child.expect("replay> ")
    child.sendline("d 9")
    child.expect("The record has deals 1 to 2.")
    child.sendline("e")
    child.expect(rf"position {total}/{total}")
    child.expect("the deal is over")
    child.expect("deal result")
    child.expect("replay> ")
    child.sendline("n")
    child.expect("This is the last position")
    child.sendline("q")
    assert finish(child) == 0


def run_seep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "seep", *args],
        capture_output=True,
        text=True,
        env=terminal_env() | {"COLUMNS": "160"},
        timeout=TIMEOUT,
        check=False,
    )


def test_show_prints_results_and_final_scores(saved_game: Path) -> None:
    record = json.loads(saved_game.read_text())
    res = run_seep("show", str(saved_game))
    assert res.returncode == 0, res.stdout + res.stderr
    totals = [sum(d["result"]["score"][t] for d in record["deals"]) for t in (0, 1)]
    for deal in record["deals"]:
        r = deal["result"]
        assert f"{r['points'][0]} + {r['sweeps'][0]} = {r['score'][0]}" in res.stdout
    assert f"Final: total scores NS {totals[0]}, WE {totals[1]}" in res.stdout


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[1", "is not JSON"),
        ("[1]", "a game record is a JSON object"),
        ('{"format": "seep/1", "deals": [{"start": {}, "moves": []}]}', "missing field"),
        ('{"format": "seep/2", "deals": []}', "format 'seep/1'"),
    ],
)
def test_bad_files_get_a_clear_error(tmp_path: Path, content: str, problem: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for command in ("show", "replay"):
        res = run_seep(command, str(bad))
        assert res.returncode == 2
        assert problem in res.stdout and "Traceback" not in res.stdout + res.stderr


def test_illegal_move_in_a_record_is_named(saved_game: Path, tmp_path: Path) -> None:
    record = json.loads(saved_game.read_text())
    record["deals"][0]["moves"][5] = dict(record["deals"][0]["moves"][4])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    res = run_seep("show", str(bad))
    assert res.returncode == 2 and "deal 1, move 6" in res.stdout


def test_missing_file() -> None:
    res = run_seep("replay", "/nonexistent/game.json")
    assert res.returncode == 2 and "cannot read" in res.stdout


def _first_prompt(child: Any) -> str:
    """Answer bids and uses until seep play asks for a card; the number of a playable card."""
    while (i := child.expect([CARD, CHOOSE, BID])) != 0:
        if i == 1:
            child.sendline("1")
        else:
            bid(child)
    found = re.search(r"cards you can play now: (\d+):", child.before or "")
    return found.group(1) if found else "1"


def _a_use_list(child: Any) -> None:
    """Play on until a card with several uses is found; leaves its list of uses open."""
    _first_prompt(child)
    while not pick_a_card(child):
        _first_prompt(child)


def test_quit_asks_to_save(tmp_path: Path) -> None:
    child = spawn(*play_args(SEED))
    _first_prompt(child)
    child.sendline("q")
    child.expect(r"Save the game before quitting\? \[y/n\] ")
    child.sendline("maybe")
    child.expect("Please answer y or n.")
    child.sendline("y")
    child.expect(SAVE_TO)
    child.sendline(str(tmp_path / "quit.json"))
    child.expect("Saved the game to")
    child.expect("Goodbye")
    assert finish(child) == 0
    list(replay_record(json.loads((tmp_path / "quit.json").read_text())))


def test_undo_needs_practice_mode() -> None:
    child = spawn(*play_args(SEED))
    _first_prompt(child)
    child.sendline("u")
    child.expect("Undo is for practice games")
    child.expect(CARD)
    child.sendline("q")
    child.expect(r"\[y/n\] ")
    child.sendline("n")
    assert finish(child) == 0


def test_back_and_bad_choice_in_the_use_list() -> None:
    child = spawn(*play_args(SEED))
    _a_use_list(child)
    child.sendline("77")
    child.expect(r"Please choose a number from 1 to \d+\.")
    child.expect(CHOOSE)
    child.sendline("b")
    child.expect(CARD)
    child.sendline("ZZ")  # neither a card nor a move
    child.expect(r"Cannot read 'ZZ' as a move: [^\r\n]+")
    child.expect(CARD)  # back at the prompt, waiting for input
    child.sendintr()
    child.expect("Goodbye")
    assert finish(child) == 130


def test_end_of_input_exits_cleanly() -> None:
    child = spawn(*play_args(SEED))
    _first_prompt(child)
    child.sendeof()
    child.expect("Goodbye")
    assert finish(child) == 0


# --- two players (docs/rules.md §12) ------------------------------------------------------------


def test_two_player_game_against_one_bot(tmp_path: Path) -> None:
    """``seep play --rules two_player``: one deal against one bot, typed input only; the saved
    record has two hands a deal and replays; ``seep show`` names the players N and S."""
    path = tmp_path / "two.json"
    child = spawn(*play_args(SEED, "--rules", "two_player", "--deals", "1", "--save", str(path)))
    transcript: list[str] = []
    while True:
        i = child.expect([CARD, CHOOSE, NEXT_DEAL, pexpect.EOF, BID], timeout=60)
        transcript.append(child.before or "")
        if i == 3:
            break
        if i == 4:
            bid(child)
        elif i == 2:
            child.sendline("")
        elif i == 1:
            child.sendline("1")
        else:
            play_a_card(child)
    child.close()
    out = "".join(transcript)
    assert "Traceback" not in out and child.exitstatus == 0
    assert "Seep for two: you are S (South) against the easy bot N (North)" in out
    assert "Deal 1 is over." in out
    record = json.loads(path.read_text())
    assert record["rules"]["players"] == 2
    assert all(len(d["start"]["hands"]) == 2 for d in record["deals"])
    replay_record(record)
    shown = subprocess.run(
        [sys.executable, "-m", "seep", "show", str(path)],
        capture_output=True,
        text=True,
        env=terminal_env(),
        timeout=TIMEOUT,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "baazis won N 0, S 0; baazi difference N-S" in shown.stdout


def test_two_player_seat_must_be_0_or_1() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "seep", *play_args(SEED, "--rules", "two_player", "--seat", "2")],
        capture_output=True,
        text=True,
        env=terminal_env(),
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert "--seat must be 0 (N) or 1 (S) with two players" in done.stderr

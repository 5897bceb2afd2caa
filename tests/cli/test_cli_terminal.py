"""``seep play`` as a player at a terminal sees it (pexpect, with the ``pyte`` terminal
emulator reading the screen): a card with one use and every bid are played at once with an
echo, the table is redrawn in place (``--plain`` and a pipe print it anew), hints name cards
as the screen does, and ``--load`` resumes a saved game exactly (also checked in-process:
the resumed game goes on exactly as the uninterrupted one).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("rich")

from rich.console import Console  # noqa: E402

from seep.cards import card_name, card_value, cards_of_mask  # noqa: E402
from seep.cli.play import Game, Settings, resume  # noqa: E402
from seep.notation import format_move  # noqa: E402
from seep.session import Session  # noqa: E402
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

SYMBOLS = "♠♥♦♣"


def quit_game(child: Any) -> None:
    """Quit, without saving if asked (right after a save it is not asked)."""
    child.sendline("q")
    if child.expect([r"\[y/n\] ", r"\(no move since\)"]) == 0:
        child.sendline("n")
    assert finish(child) == 0


def hand_of(seed: int) -> list[int]:
    """South's cards at the first bid of a match with this seed (South bids first there)."""
    pos = Session(seed=seed).position
    assert pos.to_move == 2 and pos.phase == "bid"
    return list(cards_of_mask(pos.hands[2]))


def to_my_turn(child: Any, moves: int, *, at_card: bool = False) -> str:
    """Bid with Enter or the first value offered, play ``moves`` cards (the first with a use,
    its first use), and stop at the card prompt; what the screen printed before it.
    ``at_card``: the card prompt was matched already, and is answered first."""
    made = 0
    while True:
        i = 0 if at_card else child.expect([CARD, CHOOSE, BID, NEXT_DEAL])
        at_card = False
        if i == 2:
            allowed = child.match.group(1)
            found = re.search(r"\d+", allowed)
            child.sendline(found.group(0) if found and "only" not in allowed else "")
            child.expect(PLAYED)
        elif i == 1:
            child.sendline("1")
        elif i == 3:
            child.sendline("")
        elif made == moves:
            return str(child.before)
        else:
            n = 1
            child.sendline(str(n))
            while child.expect([CHOOSE, r"You cannot play \w\w now", PLAYED]) == 1:
                n += 1
                child.expect(CARD)
                child.sendline(str(n))
            if child.match.re.pattern == CHOOSE:
                child.sendline("1")
            made += 1


# --- a card with one use, and every bid, is played at once --------------------------------


def test_a_card_with_one_use_is_played_at_once_with_an_echo() -> None:
    # Seed 11: South must bid 12 (its only card above 8 is QS); at play 1 the bid binds the
    # play (R16) and QS has one use, capturing QD.
    child = spawn(*play_args(11))
    child.expect(BID)
    assert child.match.group(1) == "12 only"
    child.sendline("")  # Enter makes the only possible bid
    child.expect(r"S \(you\): bid 12")
    child.expect(CARD)
    child.sendline("QS")
    assert child.expect([CHOOSE, r"S \(you\) plays QS x QD +capture QD"]) == 1
    child.expect(CARD)  # the next turn: no list of one use was shown on the way
    assert "Which move?" not in child.before
    quit_game(child)


@pytest.mark.parametrize(("how", "value"), [("value", 9), ("name", 13), ("number", 13)])
def test_every_bid_is_played_at_once(how: str, value: int) -> None:
    seed = 18  # South holds cards for bids of 9, 10 and 13
    hand = hand_of(seed)
    card = next(c for c in hand if card_value(c) == value)
    low = next(c for c in hand if card_value(c) < 9)
    child = spawn(*play_args(seed))
    child.expect(BID)
    assert child.match.group(1) == "9, 10 or 13"
    child.sendline(card_name(low))  # a card of value under 9 cannot be bid (R13)
    refused = rf"You cannot bid {card_name(low)}: a bid is a house value 9..13, not "
    child.expect(refused + rf"{card_value(low)}\. Rule R13\.")
    child.expect(BID)
    child.sendline("7")  # neither a bid nor one of the 4 cards
    child.expect(r"Your cards are numbered 1 to 4\.")
    child.expect(BID)
    typed = {"value": str(value), "name": card_name(card), "number": str(hand.index(card) + 1)}
    child.sendline(typed[how])
    assert child.expect([CHOOSE, rf"S \(you\): bid {value}\b"]) == 1
    quit_game(child)


def test_no_card_above_8_redeals_with_enter() -> None:
    child = spawn(*play_args(1))  # seed 1: South holds AC 3C 5S 8S
    child.expect(BID)
    assert child.match.group(1) == "no card above 8"
    child.sendline("")
    child.expect(r"S \(you\): show the hand and deal again")
    child.expect(BID)  # the same bidder bids again after the redeal (R14)
    quit_game(child)


# --- the table is redrawn in place ---------------------------------------------------------


def test_the_table_is_redrawn_in_place() -> None:
    pyte = pytest.importorskip("pyte")
    rows, cols = 40, 120
    screen = pyte.Screen(cols, rows)
    stream = pyte.Stream(screen)
    child = spawn(*play_args(11), rows=rows, cols=cols)
    child.logfile_read = io.StringIO()  # everything the program wrote, as the terminal got it
    fed = 0
    for turn in range(3):
        to_my_turn(child, 1, at_card=turn > 0)
        seen = child.logfile_read.getvalue()
        stream.feed(seen[fed:])
        fed = len(seen)
        shown = [line.rstrip() for line in screen.display]
        # One table on the screen, at its top, with the latest moves under it and the prompt.
        assert shown[0].startswith("Seep  deal 1 · rules standard"), shown[:3]
        assert sum(line.startswith("your hand:") for line in shown) == 1
        assert any(re.match(r"[NWE](?: \(partner\))? plays ", line) for line in shown)
        assert any(line.startswith("Your move: card number or name") for line in shown)
    # A fresh screen after each of your moves; the bots' moves redraw the same lines.
    assert seen.count("\x1b[2J") >= 3
    assert "\x1b[1A" in seen or "\x1b[A" in seen
    quit_game(child)


def test_plain_prints_the_table_anew() -> None:
    child = spawn(*play_args(11, "--plain"))
    child.logfile_read = io.StringIO()
    to_my_turn(child, 2)
    out = child.logfile_read.getvalue()
    assert "\x1b[2J" not in out and "\x1b[1A" not in out and "\x1b[A" not in out
    assert out.count("your hand:") >= 3  # at the bid, at play 1 and now: printed each time
    assert re.search(r"S \(you\) plays QS x QD", out)  # every move on a line of its own
    quit_game(child)


def test_output_that_is_not_a_terminal_is_plain() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "seep", *play_args(11)],
        input="h\nq\nn\n",
        capture_output=True,
        text=True,
        env=terminal_env() | {"COLUMNS": "160"},
        timeout=TIMEOUT,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stdout  # no colour, no cursor movement in a pipe or a log
    assert "your hand: 1:" in res.stdout and "Goodbye." in res.stdout


# --- hints use the screen's card names -----------------------------------------------------


def test_hints_name_cards_as_the_screen_does() -> None:
    child = spawn(*play_args(11))
    hints = []
    for moves in (0, 3):
        to_my_turn(child, moves, at_card=moves > 0)
        child.sendline("?")
        child.expect(r"Hint: ([^\r\n]+)")
        hints.append(child.match.group(1))
    quit_game(child)
    for hint in hints:
        assert not any(s in hint for s in SYMBOLS), hint
        assert re.search(r"\b[A2-9TJQK][SHDC]\b", hint), hint
    assert "QS x QD" in hints[0] and "QD" in hints[0].split(":", 1)[1]


# --- seep play --load ----------------------------------------------------------------------


def test_load_resumes_the_saved_game_exactly(tmp_path: Path) -> None:
    mid, again = tmp_path / "mid.json", tmp_path / "again.json"
    child = spawn(*play_args(11, "--deals", "2", "--practice", "--bots", "medium", "--seat", "2"))
    child.logfile_read = io.StringIO()
    to_my_turn(child, 3)
    before = child.logfile_read.getvalue()
    child.sendline("s")
    child.expect(SAVE_TO)
    child.sendline(str(mid))
    child.expect("Saved the game to")
    quit_game(child)
    record = json.loads(mid.read_text())
    assert record["play"] == {
        "seat": 2,
        "bots": "medium",
        "deals": 2,
        "baazis": None,
        "practice": True,
        "hint_bot": "medium",
    }
    assert "result" not in record["deals"][-1]  # the deal in play is saved as it stands

    child = spawn("play", "--load", str(mid), "--delay", "0")
    child.logfile_read = io.StringIO()
    child.expect(r"Resumed [^\r\n]*mid\.json: deal 1, at play \d+ of 48\.")
    child.expect(CARD)
    after = child.logfile_read.getvalue()
    intro = r"you are S \(South\); medium bots[^\r\n]*, 2 deals, seed 11, practice"
    assert re.search(intro, after)
    hand = re.compile(r"your hand: [^\r\n]+")
    assert hand.findall(after)[-1] == hand.findall(before)[-1]
    child.sendline("s")
    child.expect(rf"Save to which file\? \[{re.escape(str(mid))}\] ")  # where it came from
    child.sendline(str(again))
    child.expect("Saved the game to")
    quit_game(child)
    assert json.loads(again.read_text()) == record  # hands, scores, dealer, length, settings


def run_seep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "seep", *args],
        capture_output=True,
        text=True,
        env=terminal_env() | {"COLUMNS": "160"},
        timeout=TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _saved(tmp_path: Path) -> dict[str, Any]:
    """A game of seed 11 saved in deal 1 (in-process, through Game.record)."""
    game = Game(Settings(seed=11, bots="easy", deals=2, delay=0.0), Console(file=io.StringIO()))
    s = game.session
    while s.moves_made < 9:
        game.make(s.position.legal_codes()[0])
    return game.record()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: "[1", "is not JSON"),
        (lambda r: r.update(play="x"), "'play' must be an object"),
        (lambda r: r["play"].update(seat=7), "'play.seat' must be a seat from 0 to 3, got 7"),
        (lambda r: r["play"].update(bots="grandmaster"), "unknown bot 'grandmaster'"),
        (lambda r: r["play"].update(deals=0), "'play.deals' must be a positive integer"),
        (lambda r: r["play"].update(practice="yes"), "'play.practice' must be true or false"),
        (lambda r: r.update(seed="7"), "'seed' must be an integer"),
        (lambda r: r["deals"][0]["moves"].__setitem__(3, {"action": "bid"}), "deal 1, move 4"),
        (lambda r: r["deals"][0]["moves"][2].update(card="KS"), "deal 1, move 3"),
    ],
)
def test_load_names_the_problem_of_a_bad_file(tmp_path: Path, change: Any, problem: str) -> None:
    record = _saved(tmp_path)
    text = change(record)
    bad = tmp_path / "bad.json"
    bad.write_text(text if isinstance(text, str) else json.dumps(record))
    res = run_seep("play", "--load", str(bad))
    assert res.returncode == 2
    assert problem in res.stderr and "Traceback" not in res.stdout + res.stderr, res.stderr
    assert res.stderr.startswith(f"seep play: --load: {bad}")


def test_load_refuses_a_new_seed_or_rules_and_a_missing_file(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_saved(tmp_path)))
    for flag in (["--seed", "3"], ["--preset", "family"]):
        res = run_seep("play", "--load", str(good), *flag)
        assert res.returncode == 2 and "cannot be used with --load" in res.stderr
    res = run_seep("play", "--load", str(tmp_path / "none.json"))
    assert res.returncode == 2 and "cannot read" in res.stderr


# --- the round trip, in-process: the resumed game goes on as the uninterrupted one ---------


class Stop(Exception):
    """The scripted player stops here."""


def scripted(game: Game, save_at: Callable[[Session], bool] | None, path: Path) -> Any:
    """A player who makes the engine's first legal move at every prompt (typed in notation),
    and saves (then stops) at the first prompt where ``save_at`` is true."""
    s = game.session

    def ask(prompt: str) -> str:
        if "next deal" in prompt:
            return ""
        if prompt.startswith("Save the game"):
            return "n"
        if prompt.startswith("Save to which file"):
            return str(path)
        if save_at is not None and save_at(s):
            if path.exists():
                raise Stop
            return "s"
        return format_move(s.position.legal_codes()[0])

    return ask


@pytest.mark.parametrize(
    ("seed", "save_at", "deal", "begun"),
    [
        (11, lambda s: True, 1, False),  # at the first bid: the deal is saved without moves
        (11, lambda s: s.moves_made >= 17, 1, True),
        (28, lambda s: s.deal_number == 2, 2, False),  # South bids deal 2 of seed 28
        (11, lambda s: s.moves_made >= 80, 2, True),
    ],
)
def test_a_resumed_game_goes_on_exactly_as_the_uninterrupted_one(
    tmp_path: Path, seed: int, save_at: Callable[[Session], bool], deal: int, begun: bool
) -> None:
    settings = Settings(seed=seed, bots="medium", deals=2, practice=True, delay=0.0)
    whole = Game(settings, Console(file=io.StringIO(), width=160))
    whole.ask_fn = scripted(whole, None, tmp_path / "unused.json")
    assert whole.run() == 0
    assert whole.session.deal_number == 2 and whole.session.match_over

    path = tmp_path / "saved.json"
    first = Game(settings, Console(file=io.StringIO(), width=160))
    first.ask_fn = scripted(first, save_at, path)
    with pytest.raises(Stop):
        first.run()
    deals = json.loads(path.read_text())["deals"]
    assert len(deals) == deal and bool(deals[-1]["moves"]) == begun
    base = Settings(seed=0, delay=0.0)
    loaded, session = resume(str(path), base)
    assert loaded == replace(settings, load=str(path))
    same = first.session
    assert session.position.to_dict() == same.position.to_dict()
    assert session.history == same.history and session.deal_number == same.deal_number
    assert (session.deals_to_play, session.baazis_to_play) == (2, None)

    second = Game(loaded, Console(file=io.StringIO(), width=160), session=session)
    second.ask_fn = scripted(second, None, tmp_path / "unused.json")
    assert second.run() == 0
    assert second.record() == whole.record()


def test_a_narrowing_option_of_one_way_is_played_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A narrowing answer that leaves one move plays it: no list of one move (in-process, with
    every card's uses narrowed by kind, as on a crowded floor)."""
    from functools import partial

    import seep.cli.play as play
    from seep.cli.narrow import next_step

    monkeypatch.setattr(play, "next_step", partial(next_step, limit=1))
    out = io.StringIO()
    game = Game(Settings(seed=11, bots="easy", deals=1, delay=0.0), Console(file=out, width=160))
    s = game.session
    seen: dict[str, Any] = {}

    def ask(prompt: str) -> str:
        pos = s.position
        if "chosen" in seen:
            seen["prompt"] = prompt
            raise Stop
        if prompt.startswith("Your bid"):
            return ""
        if prompt.startswith("Choose a number"):
            step = next_step(seen["uses"], limit=1)
            n = next(i for i, o in enumerate(step.options, 1) if len(o.moves) == 1)
            seen["chosen"] = step.options[n - 1].moves[0]
            seen["before"] = s.moves_made
            return str(n)
        for card in cards_of_mask(pos.hands[2]):
            uses = [m for m in pos.legal_moves() if m.card == card]
            actions = [m.action for m in uses]
            if len(set(actions)) > 1 and any(actions.count(a) == 1 for a in actions):
                seen["uses"] = uses
                return card_name(card)
        return format_move(pos.legal_codes()[0])

    game.ask_fn = ask
    with pytest.raises(Stop):
        game.run()
    assert s.history[seen["before"] - s.moves_made] == (2, int(seen["chosen"]))
    assert not seen["prompt"].startswith("Choose a number")
    assert f"S (you) plays {format_move(seen['chosen'])}" in out.getvalue()

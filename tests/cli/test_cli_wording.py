"""What ``seep play`` says, in words for the player: refusals in the second person with the
rule's number (from :func:`seep.verify.check`'s refusal, never "seat 2" for you nor
"illegal" twice), no second save question right after a save, a help whose entries each fit
80 columns, counts with the right singular or plural, and seats by their compass names."""

from __future__ import annotations

import ast
import io
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("rich")

from rich.console import Console

from seep.cards import card_name, cards_of_mask
from seep.cli import play
from seep.cli.play import Game, Settings
from seep.cli.refusals import YOURS, refusal_text
from seep.notation import format_move, parse_move
from seep.session import Session
from seep.verify import Refusal, check

VERIFY = Path(__file__).resolve().parents[2] / "src" / "seep" / "verify.py"


class Stop(Exception):
    """The scripted player stops here."""


def game(
    answer: Callable[[str, Session], str], width: int = 160, **settings: Any
) -> tuple[Game, io.StringIO, list[str]]:
    """A game (seed 11, easy bots, one deal) whose player answers each prompt with
    ``answer(prompt, session)``; what it printed, and the prompts asked."""
    out = io.StringIO()
    options: dict[str, Any] = {"seed": 11, "bots": "easy", "deals": 1, "delay": 0.0}
    options.update(settings)
    g = Game(Settings(**options), Console(file=out, width=width))
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return answer(prompt, g.session)

    g.ask_fn = ask
    return g, out, prompts


def first_legal(prompt: str, s: Session) -> str:
    if "next deal" in prompt:
        return ""
    if prompt.startswith("Save"):
        return "n"
    return format_move(s.position.legal_codes()[0])


# --- refusals --------------------------------------------------------------------------------


def test_a_bid_not_held_is_refused_in_the_second_person_with_its_rule() -> None:
    said: list[str] = []

    def answer(prompt: str, s: Session) -> str:
        if not said:  # the first bid prompt: South holds 4H 4C 6C QS (12 only)
            said.append(prompt)
            return "bid 13"
        raise Stop

    g, out, _ = game(answer)
    with pytest.raises(Stop):
        g.run()
    text = " ".join(out.getvalue().split())
    assert (
        "You cannot bid 13: you hold no card of value 13, and a bid must be the value of a card "
        "in your hand (you can bid 12). Rule R13." in text
    )
    assert "seat 2" not in text and "illegal" not in text and "Not a legal move" not in text


def test_a_card_not_held_names_you_and_the_rule() -> None:
    tried: dict[str, str] = {}

    def answer(prompt: str, s: Session) -> str:
        pos = s.position
        if pos.phase == "bid":
            return ""
        if "move" in tried:
            raise Stop
        missing = next(c for c in range(52) if not pos.hands[2] >> c & 1)
        tried["move"] = f"{card_name(missing)} x"
        return tried["move"]

    g, out, _ = game(answer)
    with pytest.raises(Stop):
        g.run()
    text = " ".join(out.getvalue().split())
    card = tried["move"].split()[0]
    assert f"You cannot play {card} x: you do not hold {card}. Rule R20." in text


@pytest.mark.parametrize("template", sorted(YOURS))
def test_every_refusal_about_your_seat_is_worded_for_you(template: str) -> None:
    names = [n for _, n, _, _ in string.Formatter().parse(template) if n]
    facts: dict[str, object] = {"seat": 2, "card": "9S", "cards": "4H 5D", "possible": "10, 12"}
    args = {n: facts.get(n, 11) for n in names}
    worded = refusal_text(Refusal("R99", template, **args), parse_move("9S"), you=2)
    assert worded.startswith("You cannot play 9S: ") and worded.endswith(". Rule R99.")
    assert "seat" not in worded and " he " not in worded and " his " not in worded
    assert re.search(r"\byou(r)?\b", worded.split(": ", 1)[1])


def test_the_wordings_follow_the_engines_templates() -> None:
    """Every refusal of seep.verify that speaks of "seat {seat}" has its second-person
    wording, and every wording answers a template the engine still uses."""
    templates = set()
    for node in ast.walk(ast.parse(VERIFY.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Refusal":
            if isinstance(node.args[1], ast.Constant):
                templates.add(node.args[1].value)
    about_a_seat = {t for t in templates if "{seat}" in t}
    assert about_a_seat == set(YOURS)


def test_another_seat_is_named_by_its_compass_letter() -> None:
    refused = Refusal(
        "R13", "the deal is in the bid phase: seat {seat} (the bidder) must bid", seat=1
    )
    worded = refusal_text(refused, parse_move("9S"), you=2)
    assert "seat W (the bidder)" in worded and "seat 1" not in worded


def test_a_card_without_a_use_says_why_from_the_engine() -> None:
    """The message for a card with no use is the engine's refusal of throwing it."""
    s = Session(seed=11)
    s.play(s.position.legal_codes()[0])  # South's bid: at play 1 only its value may play (R16)
    pos = s.position
    you = pos.to_move
    assert you is not None
    stuck = [c for c in cards_of_mask(pos.hands[you]) if check(pos, parse_move(card_name(c)))]
    assert stuck
    refused = check(pos, parse_move(card_name(stuck[0])))
    assert refused is not None
    worded = refusal_text(refused, 0, you, attempt=f"play {card_name(stuck[0])} now")
    assert worded.startswith(f"You cannot play {card_name(stuck[0])} now: ")
    assert worded.endswith(f"Rule {refused.rule}.")


# --- saving ----------------------------------------------------------------------------------


def test_quit_right_after_a_save_does_not_ask_again(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    script = iter(["s", str(path), "q"])
    g, out, prompts = game(lambda prompt, s: next(script))
    assert g.run() == 0
    assert path.exists()
    assert not any("[y/n]" in p for p in prompts)
    assert f"The game is saved in {path} (no move since)." in out.getvalue()


def test_quit_after_a_move_since_the_save_asks(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    script = iter(["s", str(path), ""])  # save, then bid 12 (the only bid: Enter)

    def answer(prompt: str, s: Session) -> str:
        if prompt.startswith("Save the game"):
            return "n"
        return next(script, "q")

    g, _, prompts = game(answer)
    assert g.run() == 0
    assert prompts[-1] == "Save the game before quitting? [y/n] "


# --- the help at 80 columns --------------------------------------------------------------


def test_each_help_entry_fits_80_columns() -> None:
    entries = [line for line in play.HELP.splitlines() if line.startswith("  ")]
    assert len(entries) >= 10
    assert all(len(line) <= 80 for line in play.HELP.splitlines() if line.startswith("  "))


def test_the_help_on_an_80_column_terminal() -> None:
    """Read from the screen (pyte): every entry of the help on a row of its own, whole."""
    pexpect = pytest.importorskip("pexpect")
    pyte = pytest.importorskip("pyte")
    import os
    import sys

    rows, cols = 60, 80
    child = pexpect.spawn(
        sys.executable,
        ["-m", "seep", "play", "--seed", "11", "--bots", "easy", "--delay", "0"],
        env=dict(os.environ, NO_COLOR="1", PYTHONUNBUFFERED="1", TERM="xterm"),
        encoding="utf-8",
        timeout=30,
        dimensions=(rows, cols),
    )
    child.logfile_read = io.StringIO()
    child.expect(r"Your bid \(")
    child.expect(r"> ")
    child.sendline("h")
    child.expect(r"q +quit")
    child.expect(r"Your bid \(")
    screen = pyte.Screen(cols, rows)
    pyte.Stream(screen).feed(child.logfile_read.getvalue())
    shown = [line.rstrip() for line in screen.display]
    for entry in (line for line in play.HELP.splitlines() if line.startswith("  ")):
        assert entry in shown, (entry, shown)
    child.sendline("q")
    child.expect(r"\[y/n\] ")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# --- counts and seat names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "goal"),
    [
        ({"deals": 1}, "1 deal,"),
        ({"deals": 2}, "2 deals,"),
        ({"deals": None, "baazis": 1}, "until 1 baazi is won,"),
        ({"deals": None, "baazis": 3}, "until 3 baazis are won,"),
    ],
)
def test_the_banner_counts_in_words(settings: dict[str, Any], goal: str) -> None:
    def answer(prompt: str, s: Session) -> str:
        raise Stop

    g, out, _ = game(answer, **settings)
    with pytest.raises(Stop):
        g.run()
    text = " ".join(out.getvalue().split())
    assert goal in text and "(s)" not in text
    assert (
        "Seep: you are S (South); easy bots play your partner N (North) and your opponents "
        "W (West) and E (East)." in text
    )


def test_a_whole_deal_names_seats_by_compass_and_never_by_number() -> None:
    """Banner, table, echoes, summary and the end: letters N W S E (you S), no "seat 2",
    no "(s)"."""
    g, out, _ = game(first_legal)
    assert g.run() == 0
    text = out.getvalue()
    assert not re.search(r"\bseat \d", text) and "(s)" not in text
    assert "S (you) plays " in text and "NS (you)" in text
    assert re.search(r"^▶? *W +WE ", text, flags=re.M) or "W plays " in text


def test_two_players_are_north_and_south() -> None:
    def answer(prompt: str, s: Session) -> str:
        raise Stop

    g, out, _ = game(answer, preset="two_player", seat=1)
    with pytest.raises(Stop):
        g.run()
    text = " ".join(out.getvalue().split())
    assert "Seep for two: you are S (South) against the easy bot N (North);" in text


def test_the_demo_says_what_its_numbers_are(capsys: pytest.CaptureFixture[str]) -> None:
    from seep.__main__ import main

    assert main(["demo", "--seed", "3"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"deal over: NS \d+ card points \+ \d+ for sweeps = \d+; "
        r"WE \d+ card points \+ \d+ for sweeps = \d+",
        last,
    )


def test_the_replay_of_one_deal_says_so(tmp_path: Path) -> None:
    import json

    from seep.cli.replay import replay

    s = Session(seed=11, deals=1)
    while not s.deal_over:
        s.play(s.position.legal_codes()[0])
    path = tmp_path / "one.json"
    path.write_text(json.dumps(s.to_record()))
    out = io.StringIO()
    answers = iter(["d 2", "q"])
    assert replay(str(path), Console(file=out, width=160), lambda prompt: next(answers)) == 0
    assert "The record has only deal 1." in out.getvalue()

"""Terminal play: ``seep play``, ``seep replay FILE`` and ``seep show FILE``.

This package is the only part of seep that uses `rich` (the ``cli`` extra). Its argument
parsers are plain argparse and import nothing else, so ``seep protocol`` and the rest of the
command keep working where rich is not installed; the commands themselves say what to install.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

__all__ = ["COMMANDS", "add_cli_parsers", "run_cli"]

COMMANDS = ("play", "replay", "show")

# seep play's options that --load takes from the saved game, and their defaults otherwise.
PLAY_DEFAULTS: dict[str, Any] = {
    "preset": "standard",
    "seed": None,
    "seat": 2,
    "bots": "medium",
    "deals": None,
    "baazis": 1,
    "practice": False,
    "hint_bot": "medium",
}


def add_cli_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play``, ``replay`` and ``show`` subcommands to the ``seep`` parser."""
    p = sub.add_parser(
        "play",
        help="play a match in the terminal against bots",
        description="Play Seep in the terminal: you in one seat, bots in the other three.",
    )
    length = p.add_mutually_exclusive_group()
    length.add_argument("--deals", type=int, metavar="N", help="play N deals")
    length.add_argument(
        "--baazis", type=int, metavar="N", help="play until N baazis are won (default 1)"
    )
    p.add_argument(
        "--preset",
        "--rules",
        dest="preset",
        default="standard",
        choices=("standard", "family", "two_houses", "two_player"),
        help="rules preset; two_player: you against one bot (docs/rules.md §12)",
    )
    p.add_argument(
        "--bots",
        default="medium",
        choices=("easy", "medium", "hard", "expert"),
        help="the bots' difficulty (default medium)",
    )
    p.add_argument(
        "--seat",
        type=int,
        default=None,
        choices=range(4),
        metavar="0-3",
        help="your seat: 0=N, 1=W, 2=S (default), 3=E; partners are N and S, W and E; with "
        "two_player 0=N or 1=S (default)",
    )
    p.add_argument("--practice", action="store_true", help="allow undo (u)")
    p.add_argument("--seed", type=int, default=None, help="the match's seed (default: random)")
    p.add_argument("--save", metavar="FILE", help="save the game record here at the end")
    p.add_argument(
        "--delay",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="pause after each bot move (default 0.6; 0 for none)",
    )
    p.add_argument("--hint-bot", default="medium", help="the bot that answers '?' (default medium)")
    p.add_argument(
        "--load",
        metavar="FILE",
        help="resume a game saved with s or --save: its rules, seed, deals, seat, bots, length "
        "and practice come from the file (--seat, --bots, --deals, --baazis, --practice and "
        "--hint-bot given here replace the file's)",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="print the table anew at each turn instead of redrawing it in place (the default "
        "when the output is not a terminal: a pipe, a log, a screen reader)",
    )
    # None marks an option left out, so that --load can tell what was typed; the defaults
    # are applied in run_cli.
    p.set_defaults(**dict.fromkeys(PLAY_DEFAULTS, None))
    r = sub.add_parser("replay", help="step through a saved game record")
    r.add_argument("file", help="a docs/format.md game record (JSON)")
    s = sub.add_parser("show", help="print the results of a saved game record")
    s.add_argument("file", help="a docs/format.md game record (JSON)")


def run_cli(args: argparse.Namespace) -> int:
    """Run ``play``, ``replay`` or ``show`` from parsed arguments; returns the exit status."""
    try:
        from .render import make_console
    except ImportError:
        print(
            f"seep {args.command} needs the 'rich' package: pip install 'seep-game[cli]'",
            file=sys.stderr,
        )
        return 2
    console = make_console()
    if args.command == "replay":
        from .replay import replay

        return replay(args.file, console)
    if args.command == "show":
        from .replay import show

        return show(args.file, console)
    from ..bots import make_bot
    from .play import Game, Settings, resume
    from .replay import RecordError

    for name, value in (("--deals", args.deals), ("--baazis", args.baazis)):
        if value is not None and value < 1:
            print(f"seep play: {name} must be at least 1", file=sys.stderr)
            return 2
    given = {k: getattr(args, k) for k in PLAY_DEFAULTS if getattr(args, k) is not None}
    opts = {k: given.get(k, v) for k, v in PLAY_DEFAULTS.items()}
    try:
        make_bot(opts["hint_bot"])
    except ValueError as exc:
        print(f"seep play: --hint-bot: {exc}", file=sys.stderr)
        return 2
    two = opts["preset"] == "two_player"
    seat = opts["seat"] if "seat" in given or not two else 1  # S: seat 1 of two, 2 of four
    if two and seat > 1:
        print("seep play: --seat must be 0 (N) or 1 (S) with two players", file=sys.stderr)
        return 2
    settings = Settings(
        seed=opts["seed"] if opts["seed"] is not None else random.randrange(1 << 30),
        preset=opts["preset"],
        bots=opts["bots"],
        seat=seat,
        deals=opts["deals"],
        baazis=opts["baazis"],
        practice=opts["practice"],
        save=args.save,
        delay=max(0.0, args.delay),
        hint_bot=opts["hint_bot"],
        plain=args.plain,
    )
    session = None
    if args.load is not None:
        for fixed in ("preset", "seed"):
            if fixed in given:
                print(
                    f"seep play: --{fixed} cannot be used with --load: the saved game keeps "
                    f"its own {'rules' if fixed == 'preset' else 'seed'}",
                    file=sys.stderr,
                )
                return 2
        try:
            settings, session = resume(args.load, settings, given)
        except RecordError as exc:
            print(f"seep play: --load: {exc}", file=sys.stderr)
            return 2
    game = Game(settings, console, session=session)
    try:
        return game.run()
    except EOFError:
        console.print("\nGoodbye (end of input).")
        return 0
    except KeyboardInterrupt:
        console.print("\nGoodbye (interrupted).")
        return 130

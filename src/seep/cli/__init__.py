"""Terminal play: ``seep play``, ``seep replay FILE`` and ``seep show FILE``.

This package is the only part of seep that uses `rich` (the ``cli`` extra). Its argument
parsers are plain argparse and import nothing else, so ``seep protocol`` and the rest of the
command keep working where rich is not installed; the commands themselves say what to install.
"""

from __future__ import annotations

import argparse
import random
import sys

__all__ = ["COMMANDS", "add_cli_parsers", "run_cli"]

COMMANDS = ("play", "replay", "show")


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
        "--preset", default="standard", choices=("standard", "family", "two_houses"), help="rules"
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
        default=2,
        choices=range(4),
        metavar="0-3",
        help="your seat: 0=N, 1=W, 2=S (default), 3=E; partners are N and S, W and E",
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
    from .play import Game, Settings

    for name, value in (("--deals", args.deals), ("--baazis", args.baazis)):
        if value is not None and value < 1:
            print(f"seep play: {name} must be at least 1", file=sys.stderr)
            return 2
    try:
        make_bot(args.hint_bot)
    except ValueError as exc:
        print(f"seep play: --hint-bot: {exc}", file=sys.stderr)
        return 2
    settings = Settings(
        seed=args.seed if args.seed is not None else random.randrange(1 << 30),
        preset=args.preset,
        bots=args.bots,
        seat=args.seat,
        deals=args.deals,
        baazis=args.baazis if args.baazis is not None else 1,
        practice=args.practice,
        save=args.save,
        delay=max(0.0, args.delay),
        hint_bot=args.hint_bot,
    )
    game = Game(settings, console)
    try:
        return game.run()
    except EOFError:
        console.print("\nGoodbye (end of input).")
        return 0
    except KeyboardInterrupt:
        console.print("\nGoodbye (interrupted).")
        return 130

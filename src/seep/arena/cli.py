"""``seep arena``: bot against bot (or a round robin) from the command line.

    seep arena BOT_A BOT_B [--deals N | --baazis N] [--seed S] [--workers N]
               [--backend local|ray] [--address ADDR] [--json] [--rules PRESET]
    seep arena --round-robin random greedy heuristic --deals N

A bot is a registered name or difficulty preset, optionally with settings:
``ismcts:iterations=200``. The results table goes to stdout (with ``--json``: exactly one JSON
object), the progress bar to stderr when it is a terminal. A bad argument gives a one-line
error and exit status 2; a run that fails once started (a bot's illegal move, a worker
process that died), a one-line error and status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from ..errors import SeepError
from .play import RunError
from .progress import ProgressBar
from .runner import BACKENDS, MatchResult, RoundRobinResult, round_robin, run_match

__all__ = [
    "add_arena_parser",
    "add_run_arguments",
    "format_match",
    "format_round_robin",
    "run_arena",
]

DEFAULT_DEALS = 200


def add_run_arguments(p: argparse.ArgumentParser, *, workers: str, rules: str) -> None:
    """The options every command that plays bots' deals shares (``seep arena``, ``seep
    dataset``): ``--seed``, ``--workers``, ``--rules``, ``--plugin`` and ``--no-progress``,
    with the same names, defaults and meanings; ``workers`` and ``rules`` word their help."""
    p.add_argument("--seed", type=int, metavar="S", default=0, help="run seed (default 0)")
    p.add_argument("--workers", type=int, metavar="N", default=1, help=workers)
    p.add_argument("--rules", default="standard", metavar="PRESET", help=rules)
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE (which registers bots) in every worker",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def add_arena_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``arena`` subcommand to the ``seep`` command's subparsers."""
    p: argparse.ArgumentParser = sub.add_parser(
        "arena",
        help="bots against bots: duplicate deals, confidence intervals, Elo",
        description=(
            "Duplicate matches between bots: every shuffle is played twice with the teams' "
            "seats swapped. Prints the mean score difference per deal with its 95% "
            "confidence interval, baazi win rates, sweeps and speed; or Elo ratings for a "
            "round robin."
        ),
    )
    p.add_argument("bots", nargs="*", metavar="BOT", help="the two bots of a match (A and B)")
    p.add_argument(
        "--round-robin",
        nargs="+",
        metavar="BOT",
        help="every pair of these bots plays a match; prints Elo ratings",
    )
    length = p.add_mutually_exclusive_group()
    length.add_argument(
        "--deals", type=int, metavar="N", help=f"deals to play, even (default {DEFAULT_DEALS})"
    )
    length.add_argument("--baazis", type=int, metavar="N", help="baazis to play, even (R45, R46)")
    add_run_arguments(
        p, workers="processes or Ray tasks in parallel", rules="rules preset, or a JSON object"
    )
    p.add_argument("--backend", choices=BACKENDS, default="local")
    p.add_argument(
        "--address", metavar="ADDR", help="Ray cluster address (backend ray; default: a local Ray)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--no-timing",
        action="store_true",
        help="leave timings and worker counts out (output depends on the seed only)",
    )
    p.add_argument(
        "--anchor", metavar="BOT", help="round robin: pin this bot's Elo at 0 (default: mean 1500)"
    )
    p.add_argument(
        "--max-deals",
        type=int,
        metavar="N",
        default=1000,
        help="a baazi still open after this many deals counts as unfinished",
    )
    p.add_argument(
        "--records", metavar="FILE", help="write docs/format.md game records, one a line"
    )
    # One line for a usage error too, like every other arena error (argparse would print the
    # whole usage first); the parser is made by the caller's subparsers, hence setattr.
    setattr(p, "error", _usage_error)  # noqa: B010
    return p


def _usage_error(message: str) -> NoReturn:
    print(f"seep arena: error: {message} (see seep arena --help)", file=sys.stderr)
    sys.exit(2)


def _fail(message: str, status: int = 2) -> int:
    print(f"seep arena: error: {message}", file=sys.stderr)
    return status


def _rules(text: str) -> Any:
    """A preset name, or a JSON object of rule options."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise SeepError(f"--rules: not a JSON object: {exc}") from None
    return text


def run_arena(args: argparse.Namespace) -> int:
    """Run ``seep arena`` with parsed arguments; returns the exit status."""
    if args.round_robin and args.bots:
        return _fail("give two bots or --round-robin BOT..., not both")
    if not args.round_robin and len(args.bots) != 2:
        return _fail(f"a match needs exactly two bots, got {len(args.bots)}")
    if args.records and args.round_robin:
        return _fail("--records is for a match of two bots")
    deals = args.deals
    if deals is None and args.baazis is None:
        deals = DEFAULT_DEALS
    bar = ProgressBar("arena", enabled=False if args.no_progress else None)
    common: dict[str, Any] = {
        "deals": deals,
        "baazis": args.baazis,
        "seed": args.seed,
        "workers": args.workers,
        "backend": args.backend,
        "address": args.address,
        "progress": bar,
        "max_deals": args.max_deals,
        "plugins": args.plugin,
    }
    if args.records:
        try:  # fail now, not after the whole run
            open(args.records, "w", encoding="utf-8").close()
        except OSError as exc:
            return _fail(f"--records: {exc}")
    try:
        rules = _rules(args.rules)
        result: MatchResult | RoundRobinResult
        if args.round_robin:
            result = round_robin(args.round_robin, rules=rules, anchor=args.anchor, **common)
        else:
            result = run_match(
                args.bots[0], args.bots[1], rules=rules, records=bool(args.records), **common
            )
    except RunError as exc:  # a bot's fault or a dead worker, not a bad argument
        bar.close()
        return _fail(str(exc), 1)
    except SeepError as exc:  # ArenaError, InvalidRulesError: bad arguments
        bar.close()
        return _fail(str(exc))
    except KeyboardInterrupt:
        bar.close()
        print("seep arena: interrupted", file=sys.stderr)
        return 130
    bar.close()
    for warning in result.warnings:
        print(f"seep arena: warning: {warning}", file=sys.stderr)
    if args.records and isinstance(result, MatchResult):
        with open(args.records, "w", encoding="utf-8") as f:
            for record in result.records():
                f.write(json.dumps(record, separators=(",", ":")) + "\n")
    timing = not args.no_timing
    if args.json:
        print(json.dumps(result.to_dict(timing=timing)))
    elif isinstance(result, MatchResult):
        print(format_match(result, timing))
    else:
        print(format_round_robin(result, timing))
    return 0


# --- text output ------------------------------------------------------------------------------


def _plural(n: int, one: str, many: str | None = None) -> str:
    """``1 duplicate pair``, ``10 duplicate pairs``; ``many`` where the plural is not ``one``
    with an s at its end (``pairs of baazis``)."""
    return f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"


def _signed(x: float, digits: int = 2) -> str:
    return f"{x:+.{digits}f}"


def _ci(ci: Sequence[float] | None) -> str:
    return f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "[n/a: one pair]"


def _rules_name(d: dict[str, Any]) -> str:
    rules = d["rules"]
    return rules if isinstance(rules, str) else "custom " + json.dumps(rules)


def format_match(result: MatchResult, timing: bool = True) -> str:
    """A readable table of a match."""
    d = result.to_dict(timing=timing)
    a, b = d["bots"]
    deals = d["deals"]
    if d["mode"] == "deals":
        unit = _plural(d["pairs"], "shuffle")
    else:
        unit = _plural(d["pairs"], "pair of baazis", "pairs of baazis")
    lines = [
        f"{a} (A) vs {b} (B): {deals} deals ({unit}, each played with the seats "
        f"swapped), rules {_rules_name(d)}, seed {d['seed']}",
        "",
    ]
    w = max(10, len(a), len(b))

    def two(name: str, xs: Sequence[Any], fmt: str) -> tuple[str, str, str]:
        x, y = (format(v, fmt) if v is not None else "-" for v in xs)
        return name, x, y

    per_deal = [x / deals for x in d["sweeps"]], [x / deals for x in d["sweep_points"]]
    po = d["pair_outcomes"]
    rows = [
        two("mean deal score", d["mean_score"], ".2f"),
        two("sweeps per deal", per_deal[0], ".3f"),
        two("sweep points per deal", per_deal[1], ".2f"),
        two("deals under min score", d["under_min_score"], "d"),
        two("duplicate pairs won", [po["a"], po["b"]], "d"),
    ]
    if timing:
        rows.append(two("ms per move", d["ms_per_move"], ".3f"))
    lines.append(f"  {'':24}{a:>{w}}  {b:>{w}}")
    lines += [f"  {name:24}{x:>{w}}  {y:>{w}}" for name, x, y in rows]
    lines.append("")
    lines.append(
        f"  score difference per deal (A - B): {_signed(d['mean_diff'])}   95% CI "
        f"{_ci(d['ci95'])}   (Student's t interval over {_plural(d['pairs'], 'duplicate pair')}; "
        f"{_plural(d['pair_outcomes']['draw'], 'pair')} drawn)"
    )
    s = d["by_seating"]
    two_seats = result.config.rules.players == 2  # the seats are 0 and 1 (docs/rules.md §12)
    lines.append(
        f"  by seating: A on seat{' 0' if two_seats else 's 0/2'} {_signed(s['a_on_0_2'])}, "
        f"A on seat{' 1' if two_seats else 's 1/3'} {_signed(s['a_on_1_3'])} per deal"
    )
    if "baazis" in d:
        bz = d["baazis"]
        lo, hi = bz["wilson95"]
        lines.append(
            f"  baazis: A {bz['a']}, B {bz['b']}, unfinished {bz['unfinished']} "
            f"({bz['deals_per_baazi']:.1f} deals each); A's win rate {100 * bz['win_rate']:.1f}%"
            f"  95% Wilson [{100 * lo:.1f}%, {100 * hi:.1f}%]"
        )
    if timing:
        lines.append(
            f"  {deals} deals in {d['seconds']:.2f} s: {d['deals_per_s'] or 0:,.1f} deals/s "
            f"({_plural(d['workers'], 'worker')}, {d['backend']})"
        )
    return "\n".join(lines)


def format_round_robin(result: RoundRobinResult, timing: bool = True) -> str:
    """A readable table of a round robin: Elo standings and every pairing."""
    d = result.to_dict(timing=timing)
    first = d["matches"][0]
    if "baazis" in first:
        per = _plural(sum(first["baazis"][k] for k in ("a", "b", "unfinished")), "baazi")
    else:
        per = _plural(first["deals"], "deal")
    lines = [
        f"round robin of {len(d['round_robin'])} bots: {per} per pairing, "
        f"rules {_rules_name(d)}, seed {d['seed']}",
        "",
        f"  Elo ({'anchor ' + result.anchor + ' = 0' if result.anchor else 'mean 1500'})",
    ]
    w = max(len(k) for k in d["elo"])
    for rank, (name, elo) in enumerate(d["elo"].items(), 1):
        extra = ""
        if timing and d["ms_per_move"].get(name) is not None:
            extra = f"   {d['ms_per_move'][name]:.3f} ms/move"
        lines.append(f"  {rank:2}. {name:<{w}}  {elo:7.1f}{extra}")
    names = [" - ".join(m["bots"]) for m in d["matches"]]
    nw = max(len("pairing (A - B)"), *(len(n) for n in names))
    lines += [
        "",
        f"  {'pairing (A - B)':<{nw}}  {'diff/deal':>9}   {'95% CI':<18}  duplicate pairs",
    ]
    for name, m in zip(names, d["matches"], strict=True):
        po = m["pair_outcomes"]
        extra = f"{po['a']}-{po['draw']}-{po['b']} (A won-drawn-B won)"
        if "baazis" in m:
            extra += f", baazis {m['baazis']['a']}-{m['baazis']['b']}"
        lines.append(
            f"  {name:<{nw}}  {_signed(m['mean_diff']):>9}   {_ci(m['ci95']):<18}  {extra}"
        )
    if timing:
        lines += [
            "",
            f"  {d['deals']} deals in {d['seconds']:.2f} s: {d['deals_per_s'] or 0:,.1f} "
            f"deals/s ({_plural(d['workers'], 'worker')}, {d['backend']})",
        ]
    return "\n".join(lines)

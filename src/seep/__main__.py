"""The ``seep`` command (``python -m seep``)."""

from __future__ import annotations

import argparse
import os
import random
import socket
import sys
import time
from pathlib import Path
from typing import Any

from . import COMPILED, __version__
from .engine import Position
from .moves import Move
from .notation import format_house
from .options import PRESETS, Rules
from .session import Session

_SEATS = "NWSE"


def _names(pos: Position) -> str:
    """The seats' names: N W S E, or N and S with two players (docs/rules.md §12)."""
    return _SEATS if pos.rules.players == 4 else "NS"


def _show(pos: Position) -> str:
    from .cards import format_cards

    houses = "  ".join(format_house(v, c, o, _names(pos)) for v, c, _, o in pos.houses())
    return f"floor: {format_cards(pos.loose) or '-'}" + (f"   {houses}" if houses else "")


def demo(seed: int, rules: str, delay: float) -> int:
    """Play one deal with random legal moves, move by move, in the terminal."""
    from .cards import format_cards

    session = Session(start=Position.new_deal(seed, dealer=0, rules=Rules.parse(rules)), deals=1)
    pos = session.position
    rng = random.Random(seed)
    names = _names(pos)
    seats = "N=0 (dealer), W=1, S=2, E=3" if len(names) == 4 else "N=0 (dealer), S=1"
    print(f"Seep demo deal (seed {seed}, rules {rules}); seats {seats}")
    print(f"{names[pos.bidder]} holds {format_cards(pos.hands[pos.bidder])}")
    while not session.deal_over:
        seat, code = session.play(rng.choice(session.position.legal_codes()))
        pos, move = session.position, Move(code)
        label = f"play {pos.plays:2d}" if move.is_play() else "bid    "
        print(f"{label}  {names[seat]}: {move!s:28} {_show(pos)}")
        if delay:
            time.sleep(delay)
    outcome = session.outcome()
    assert outcome is not None
    res = outcome.result
    pts, sw, sc = res["points"], res["sweeps"], res["score"]
    teams = ("NS", "WE") if len(names) == 4 else ("N", "S")
    # The sweeps' entry of a result is points (R38), not a count of sweeps.
    print(f"deal over: {teams[0]} {pts[0]} card points + {sw[0]} for sweeps = {sc[0]};", end=" ")
    print(f"{teams[1]} {pts[1]} card points + {sw[1]} for sweeps = {sc[1]}")
    return 0


def core_banner() -> str:
    """The line ``seep serve`` starts with: which core runs, and a warning on the pure one,
    whose bots search about four times slower within the same time budget (docs/engine.md)."""
    if COMPILED:
        return f"Seep {__version__}: compiled core (mypyc)"
    return (
        f"warning: Seep {__version__}: pure-Python core; the hard and expert bots search "
        "less within their time (`make core` compiles the core)"
    )


def serve_web(
    host: str,
    port: int,
    database_url: str | None,
    bot_delay: float | None,
    instance_id: str | None = None,
    *,
    dev: bool = False,
    behind_proxy: bool = False,
    log_level: str = "warning",
    log_format: str = "text",
) -> int:
    """Run the web app under uvicorn until interrupted. ``behind_proxy``: trust the
    ``X-Forwarded-For`` of loopback peers unless ``SEEP_TRUSTED_PROXIES`` names others."""
    try:
        from .web.app import create_app
    except ImportError as exc:
        print(f"seep serve needs the web extra: pip install 'seep-game[web]' ({exc})")
        return 2
    from contextlib import suppress

    from .web.database import BadDatabase
    from .web.limits import LOOPBACK
    from .web.logformat import log_config
    from .web.server import DrainingServer, HttpLimits, build_config, raise_open_file_limit

    trusted = os.environ.get("SEEP_TRUSTED_PROXIES") or (LOOPBACK if behind_proxy else "")
    try:
        limits = HttpLimits.from_env()
        app = create_app(
            database_url,
            bot_delay=bot_delay,
            dev=dev,
            trusted_proxies=trusted,
            instance_id=instance_id,
        )
    except BadDatabase as exc:  # one plain line, not a traceback: the file is named
        print(f"seep serve: {exc}", file=sys.stderr)
        return 1
    raise_open_file_limit()
    instance = instance_id or f"{socket.gethostname()}:{port}"  # what the log lines name
    print(core_banner(), flush=True)
    print(f"Seep: open http://{host}:{port}/ in a browser (Ctrl-C stops the server)", flush=True)
    # The app's own resolver: its trusted proxies are exempt from the connection cap.
    config = build_config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=log_config(log_format, instance, log_level),
        limits=limits,
        client_of=app.state.client_of,
    )
    server = DrainingServer(config, app.state.manager.drain)
    with suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut the server down already
        server.run()
    return 0 if server.started else 3  # 3: the start failed (uvicorn has said why)


def _add_db_parser(sub: Any) -> None:
    """``seep db`` (:mod:`seep.web.dbcommands`, loaded only when it runs: SQLAlchemy and
    Alembic take a second to import)."""
    db = sub.add_parser("db", help="the web app's database: schema upgrades, backups")
    cmds = db.add_subparsers(dest="db_command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = cmds.add_parser(name, help=help)
        p.add_argument(
            "--database-url",
            default=None,
            help="SQLAlchemy URL (default: $SEEP_DATABASE_URL or sqlite:///data/seep.db)",
        )
        return p

    command("current", "the schema revision the database is at")
    command("history", "every schema revision, oldest first")
    up = command("upgrade", "upgrade the schema to this release's newest revision")
    up.add_argument("--to", default="head", help="a revision to stop at (default: the newest)")
    down = command("downgrade", "downgrade the schema (before running an older release)")
    down.add_argument("to", help="-1 for one revision back, a revision, or 'base'")
    backup = command("backup", "copy the database to FILE while the server runs")
    backup.add_argument("file", type=Path, help="the backup to write (must not exist)")
    restore = command("restore", "replace the database with the backup FILE (server stopped)")
    restore.add_argument("file", type=Path, help="a backup written by `seep db backup`")


def _run_db(args: argparse.Namespace) -> int:
    try:
        from .web.dbcommands import run_db
    except ImportError as exc:
        print(f"seep db needs the web extra: pip install 'seep-game[web]' ({exc})")
        return 2
    return run_db(args)


def _add_admin_parser(sub: Any) -> None:
    """``seep admin``, the operator's moderation commands (:mod:`seep.web.admincommands`,
    loaded only when it runs, like ``seep db``; docs/deploy.md "Moderation")."""
    admin = sub.add_parser("admin", help="moderation: reports, bans, mutes, closing tables")
    cmds = admin.add_subparsers(dest="admin_command", required=True)

    def command(name: str, help: str, action: bool = True) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = cmds.add_parser(name, help=help)
        p.add_argument(
            "--database-url",
            default=None,
            help="SQLAlchemy URL (default: $SEEP_DATABASE_URL or sqlite:///data/seep.db)",
        )
        if action:
            p.add_argument("--by", default=None, help="who acts, for the audit log (your user)")
            p.add_argument("--reason", default="", help="why, for the audit log")
        return p

    reports = command("reports", "players' reports, newest first", action=False)
    reports.add_argument("--open", action="store_true", help="only those not closed")
    reports.add_argument("--limit", type=int, default=50, help="at most this many (50)")
    report = command("report", "close a report")
    report.add_argument("verb", choices=["close"])
    report.add_argument("id", type=int, help="the report's number (#ID in `seep admin reports`)")
    close = command("close-table", "close a live table (its record kept)")
    close.add_argument("code", help="the table's code")
    close.add_argument(
        "--wait", type=float, default=0.0, help="seconds to wait for the server to close it"
    )
    for name, help in (
        ("ban", "ban an address or an account for a time"),
        ("mute", "mute an address's or an account's chat everywhere for a time"),
        ("unban", "lift the ban of an address or an account"),
        ("unmute", "lift the mute of an address or an account"),
    ):
        p = command(name, help)
        p.add_argument("target_kind", choices=["address", "account"])
        p.add_argument("who", help="an IP address or CIDR network; an account's name or #ID")
        if not name.startswith("un"):
            p.add_argument(
                "--for", dest="duration", required=True, help="30m, 12h, 7d, 2w or forever"
            )
    audit = command("audit", "the operators' actions, newest first", action=False)
    audit.add_argument("--limit", type=int, default=50, help="at most this many (50)")


def _run_admin(args: argparse.Namespace) -> int:
    try:
        from .web.admincommands import run_admin
    except ImportError as exc:
        print(f"seep admin needs the web extra: pip install 'seep-game[web]' ({exc})")
        return 2
    return run_admin(args)


def _serve_port(port: int | None) -> int:
    """``seep serve``'s port: ``--port``, else ``$SEEP_PORT`` (a container's setting, which its
    health check reads too), else 8000."""
    if port is not None:
        return port
    raw = os.environ.get("SEEP_PORT", "").strip()
    if not raw:
        return 8000
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise SystemExit(f"SEEP_PORT must be a port number (1-65535), got {raw!r}")
    return int(raw)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``seep`` command."""
    parser = argparse.ArgumentParser(prog="seep", description="Seep, the Indian card game.")
    core = "compiled core (mypyc)" if COMPILED else "pure-Python core"
    parser.add_argument("--version", action="version", version=f"seep {__version__}, {core}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("protocol", help="serve the JSON-lines protocol on stdin/stdout")
    d = sub.add_parser("demo", help="play one deal with random moves in the terminal")
    d.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    d.add_argument("--rules", default="standard", choices=sorted(PRESETS))
    d.add_argument("--delay", type=float, default=0.0, help="seconds between moves")
    w = sub.add_parser("serve", help="serve the web app (needs the 'web' extra)")
    w.add_argument("--host", default="127.0.0.1", help="address to listen on")
    w.add_argument(
        "--port", type=int, default=None, help="port to listen on ($SEEP_PORT, else 8000)"
    )
    w.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL (default: $SEEP_DATABASE_URL or sqlite:///data/seep.db)",
    )
    w.add_argument(
        "--bot-delay", type=float, default=None, help="seconds before each bot move (0.6)"
    )
    w.add_argument("--dev", action="store_true", help="serve /docs and /openapi.json")
    w.add_argument(
        "--behind-proxy",
        action="store_true",
        help="a reverse proxy on this machine forwards the clients: believe X-Forwarded-For "
        "from loopback ($SEEP_TRUSTED_PROXIES names other proxies)",
    )
    w.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="uvicorn's log level (info: every request)",
    )
    w.add_argument(
        "--log-format",
        default=os.environ.get("SEEP_LOG_FORMAT", "text"),
        choices=["text", "json"],
        help="json: one JSON object a line, with the request and table ($SEEP_LOG_FORMAT)",
    )
    w.add_argument(
        "--instance-id",
        default=None,
        help="this server's id among several on one database ($SEEP_INSTANCE_ID; docs/deploy.md)",
    )
    _add_db_parser(sub)
    _add_admin_parser(sub)
    from .arena.cli import add_arena_parser, run_arena  # the arena's options live with it

    add_arena_parser(sub)
    from .arena.dataset import add_dataset_parser, run_dataset  # self-play records to learn from

    add_dataset_parser(sub)
    from .bots.train import add_train_parser, run_train  # numpy is imported only to train

    add_train_parser(sub)
    from .bots.dmc import add_train_agent_parser, run_train_agent  # torch only to train

    add_train_agent_parser(sub)
    from .cli import COMMANDS as CLI_COMMANDS  # play, replay, show (rich is imported lazily)
    from .cli import add_cli_parsers, run_cli

    add_cli_parsers(sub)
    args = parser.parse_args(argv)
    if args.command in CLI_COMMANDS:
        return run_cli(args)
    if args.command == "db":
        return _run_db(args)
    if args.command == "admin":
        return _run_admin(args)
    if args.command == "protocol":
        from .protocol_server import serve

        return serve()
    if args.command == "arena":
        return run_arena(args)
    if args.command == "dataset":
        return run_dataset(args)
    if args.command == "train":
        from .arena import self_play_records  # the arena plays; the bots' module only learns

        return run_train(args, self_play_records)
    if args.command == "train-agent":
        return run_train_agent(args)
    if args.command == "serve":
        return serve_web(
            args.host,
            _serve_port(args.port),
            args.database_url,
            args.bot_delay,
            args.instance_id,
            dev=args.dev,
            behind_proxy=args.behind_proxy,
            log_level=args.log_level,
            log_format=args.log_format,
        )
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    return demo(seed, args.rules, args.delay)


if __name__ == "__main__":
    sys.exit(main())

"""``seep admin``: the operator's moderation commands, on the machine, straight on the database
(``--database-url`` as for ``seep db``; docs/deploy.md "Moderation").

- ``seep admin reports [--open] [--limit N]``: players' reports, newest first, each with the
  reported line's text, the reported player's name, account and address;
- ``seep admin report close ID``: a report dealt with;
- ``seep admin close-table CODE``: a live table closed (its record kept) by the server that
  holds it, within :data:`~seep.web.moderation.REFRESH_SECONDS`; ``--wait`` waits for it;
- ``seep admin ban|mute address|account WHO --for 1h|1d|forever``, ``unban``, ``unmute``;
- ``seep admin audit [--limit N]``: every one of these actions, newest first.

Each action writes its audit row (who: ``--by`` or the operator's OS user) in the same
transaction. Each prints one line per thing and exits 0, or says what is wrong (never a
traceback) and exits 1; a wrong command line exits 2.
"""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from .database import BadDatabase, database_url, shown_url
from .names import skeleton
from .store import Store

__all__ = ["COMMANDS", "parse_address", "parse_duration", "run_admin"]

_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MAX_LIMIT = 1000


class AdminError(Exception):
    """What went wrong, in words an operator acts on."""


def parse_duration(text: str) -> float | None:
    """``30m``, ``12h``, ``7d``, ``2w`` in seconds, or ``None`` for ``forever``; ValueError
    names what is wrong."""
    if text == "forever":
        return None
    found = re.fullmatch(r"([1-9][0-9]{0,5})([mhdw])", text)
    if found is None:
        raise ValueError(f"--for {text!r}: say 30m, 12h, 7d, 2w or forever")
    return int(found[1]) * _UNITS[found[2]]


def parse_address(text: str) -> str:
    """An address to ban or mute: an IP address or a CIDR network, in its network form
    (``203.0.113.7/32``); ValueError names what is wrong."""
    try:
        return str(ipaddress.ip_network(text.strip(), strict=False))
    except ValueError:
        raise ValueError(
            f"{text!r} is not an IP address or network (e.g. 203.0.113.0/24)"
        ) from None


def run_admin(args: argparse.Namespace) -> int:
    """Run the ``seep admin`` command that ``args`` names."""
    url = database_url(args.database_url)
    name = args.admin_command
    try:
        if url.startswith("sqlite:///") and ":memory:" not in url:
            path = Path(url.removeprefix("sqlite:///"))
            if not path.is_file():
                raise AdminError(f"there is no database at {path}")
        store = Store(url, upgrade=False)
        try:
            return int(COMMANDS[name](store, args))
        finally:
            store.close()
    except (AdminError, BadDatabase, ValueError) as exc:
        print(f"seep admin {name}: {exc}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        print(f"seep admin {name}: {shown_url(url)}: {reason}", file=sys.stderr)
        return 1


def _by(args: argparse.Namespace) -> str:
    if args.by:
        return str(args.by)[:64]
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "operator"


def _when(t: float | None) -> str:
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def _limit(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_LIMIT:
        raise AdminError(f"--limit must be from 1 to {MAX_LIMIT}")
    return int(args.limit)


def _reports(store: Store, args: argparse.Namespace) -> int:
    rows = store.reports(args.open, _limit(args))
    if not rows:
        print("no open reports" if args.open else "no reports")
    for r in rows:
        where = f"table {r.code}" if r.code else "profile"
        if r.line is not None:
            where += f" line {r.line}"
        elif r.seat is not None:
            where += f" seat {r.seat}"
        account = f"account #{r.account}" if r.account is not None else "guest"
        state = "open" if r.open else f"closed {_when(r.closed)} by {r.closed_by}"
        reporter = (
            f"account #{r.reporter_account}"
            if r.reporter_account is not None
            else f"address {r.reporter_client}"
        )
        print(f"#{r.id} {_when(r.created)} UTC [{state}] {r.reason}: {where}")
        # json.dumps: a player's text printed as a quoted string, never raw escape sequences.
        print(f"    reported: {json.dumps(r.name)} ({account}, address {r.client or '-'})")
        if r.text is not None:
            print(f"    line: {json.dumps(r.text, ensure_ascii=False)}")
        if r.note:
            print(f"    note: {json.dumps(r.note, ensure_ascii=False)}")
        print(f"    by: {reporter}")
    return 0


def _report(store: Store, args: argparse.Namespace) -> int:
    if not store.close_report(args.id, _by(args), args.reason):
        raise AdminError(f"there is no open report #{args.id}")
    print(f"report #{args.id} closed")
    return 0


def _account(store: Store, who: str) -> tuple[int, str]:
    """An account by its name, or ``#ID``."""
    if who.startswith("#") and who[1:].isdigit():
        row = store.account_by_id(int(who[1:]))
    else:
        row = store.account_named(skeleton(who))
    if row is None:
        raise AdminError(f"there is no account {who!r}")
    return row.id, row.name


def _target(store: Store, args: argparse.Namespace) -> tuple[str, str]:
    """The stored target and how to say it."""
    if args.target_kind == "address":
        net = parse_address(args.who)
        return net, f"address {net}"
    account, name = _account(store, args.who)
    return str(account), f"account {name!r} (#{account})"


def _label(args: argparse.Namespace, target: str, said: str) -> str:
    """The target as the audit log says it: an account by number and name."""
    return said.removeprefix("account ") if args.target_kind == "account" else target


def _sanction(kind: str) -> Any:
    def command(store: Store, args: argparse.Namespace) -> int:
        seconds = parse_duration(args.duration)
        target, said = _target(store, args)
        until = None if seconds is None else time.time() + seconds
        label = _label(args, target, said)
        store.add_sanction(kind, args.target_kind, target, until, args.reason, _by(args), label)
        what = "banned" if kind == "ban" else "muted"
        print(f"{said} {what} {'forever' if until is None else 'until ' + _when(until) + ' UTC'}")
        if kind == "ban" and args.target_kind == "account":
            print("its sessions have ended")
        return 0

    return command


def _lift(kind: str) -> Any:
    def command(store: Store, args: argparse.Namespace) -> int:
        target, said = _target(store, args)
        label = _label(args, target, said)
        n = store.lift_sanction(kind, args.target_kind, target, _by(args), args.reason, label)
        if not n:
            raise AdminError(f"{said} has no {kind} in force")
        print(f"{said}: {kind} lifted")
        return 0

    return command


def _close_table(store: Store, args: argparse.Namespace) -> int:
    code = args.code.upper()
    status = store.table_status(code)
    if status is None:
        raise AdminError(f"there is no table {code}")
    if status not in ("waiting", "playing"):
        raise AdminError(f"table {code} is {status} already (its record is kept)")
    store.add_sanction("close", "table", code, None, args.reason, _by(args))
    if args.wait <= 0:
        print(f"table {code}: asked the server that holds it to close it")
        return 0
    end = time.monotonic() + args.wait
    while time.monotonic() < end:
        if store.table_status(code) == "closed":
            print(f"table {code} closed (its record kept)")
            return 0
        time.sleep(0.2)
    raise AdminError(
        f"table {code} is not closed after {args.wait:g} s: is a server running? "
        "(the request stays: the server that loads it closes it)"
    )


def _audit(store: Store, args: argparse.Namespace) -> int:
    rows = store.audit(_limit(args))
    if not rows:
        print("the audit log is empty")
    for r in rows:
        reason = f" ({json.dumps(r.reason, ensure_ascii=False)})" if r.reason else ""
        print(f"{_when(r.at)} UTC {r.by}: {r.action} {r.target}{reason}")
    return 0


COMMANDS: dict[str, Any] = {
    "reports": _reports,
    "report": _report,
    "close-table": _close_table,
    "ban": _sanction("ban"),
    "unban": _lift("ban"),
    "mute": _sanction("mute"),
    "unmute": _lift("mute"),
    "audit": _audit,
}

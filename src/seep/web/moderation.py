"""Moderation as the servers apply it (docs/deploy.md "Moderation"): the bans and mutes the
operator set with ``seep admin`` (:mod:`seep.web.admincommands`), and players' reports.

The sanctions live in the database, shared by every instance; each instance reads the active
ones in one query every :data:`REFRESH_SECONDS` (a task of the app, in a worker thread), so a
ban or a mute takes effect everywhere within that time and no request or socket message
queries the database for it. The same read brings the operator's requests to close a live
table, which the instance holding it then closes (:meth:`Moderation.closing`).

No web framework and no table here: the routes and the message handlers turn a
:class:`ModerationError` into their own refusals.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .limits import RateLimiter
from .limits.clients import Network
from .messages.bodies import NOTE_LENGTH
from .messages.bodies import REPORT_REASONS as REASONS
from .store import Store

__all__ = [
    "NOTE_LENGTH",
    "REASONS",
    "REFRESH_SECONDS",
    "REPORTS_PER_HOUR",
    "Moderation",
    "ModerationError",
    "Reported",
    "until_words",
]

REFRESH_SECONDS = 5.0  # how stale an instance's copy of the bans and mutes may be
REPORTS_PER_HOUR = 10  # per client address and per account
FOREVER = math.inf


class ModerationError(Exception):
    """A refusal: ``banned`` (403), ``rate_limited`` (429, with ``retry_after`` seconds)."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@lru_cache(maxsize=4096)
def _network(text: str) -> Network | None:
    """A client key (an address, or an IPv6 client's /64) or a banned network, parsed."""
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def until_words(until: float) -> str:
    """When a sanction ends, for a refusal's message."""
    if until == FOREVER:
        return "until it is lifted"
    return "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))


@dataclass
class _Sanctions:
    """One kind's targets in force: accounts and networks, each with its end."""

    accounts: dict[int, float] = field(default_factory=dict)
    networks: list[tuple[Network, float]] = field(default_factory=list)

    def add(self, target_kind: str, target: str, until: float) -> None:
        if target_kind == "account" and target.isdigit():
            self.accounts[int(target)] = max(until, self.accounts.get(int(target), 0.0))
        elif target_kind == "address":
            net = _network(target)
            if net is not None:
                self.networks.append((net, until))

    def of(self, client: str, account: int | None, now: float) -> float | None:
        """When the sanction on ``client`` or ``account`` ends, or None when none is in force
        (each has its own end: the cache holds them until the next read)."""
        ends: list[float] = []
        if account is not None and self.accounts.get(account, 0.0) > now:
            ends.append(self.accounts[account])
        if self.networks:
            mine = _network(client)
            if mine is not None:
                ends.extend(
                    until
                    for net, until in self.networks
                    if until > now and net.version == mine.version and net.overlaps(mine)
                )
        return max(ends) if ends else None


@dataclass(frozen=True)
class Reported:
    """What a report names: the reported player (name, account, address as the server saw
    it) and, for a chat line, its table, number and text."""

    name: str
    account: int | None
    client: str | None
    code: str | None = None
    seat: int | None = None
    line: int | None = None
    text: str | None = None


class Moderation:
    """An instance's copy of the sanctions in force, read from ``store`` by :meth:`refresh`,
    and the players' reports with their limits."""

    def __init__(
        self,
        store: Store | None,
        refresh_seconds: float = REFRESH_SECONDS,
        reports_per_hour: int = REPORTS_PER_HOUR,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.refresh_seconds = refresh_seconds
        self.clock = clock
        self.bans = _Sanctions()
        self.mutes = _Sanctions()
        self.closes: set[str] = set()
        self.reports_by_client = RateLimiter(reports_per_hour, 3600.0)
        self.reports_by_account = RateLimiter(reports_per_hour, 3600.0)

    def refresh(self) -> None:
        """Read the sanctions in force (one query; call it from a worker thread)."""
        if self.store is None:
            return
        bans, mutes, closes = _Sanctions(), _Sanctions(), set()
        for row in self.store.active_sanctions(self.clock()):
            until = FOREVER if row.until is None else float(row.until)
            if row.kind == "ban":
                bans.add(row.target_kind, row.target, until)
            elif row.kind == "mute":
                mutes.add(row.target_kind, row.target, until)
            elif row.kind == "close":
                closes.add(row.target)
        # Replaced whole: the loop's thread reads either the old copy or the new one.
        self.bans, self.mutes, self.closes = bans, mutes, closes

    def check_banned(self, client: str, account: int | None) -> None:
        """Refuse a banned address or account: :class:`ModerationError` ``banned``."""
        until = self.bans.of(client, account, self.clock())
        if until is not None:
            raise ModerationError("banned", f"you are banned from this server {until_words(until)}")

    def muted_until(self, client: str, account: int | None) -> float | None:
        """When the mute of ``client`` or ``account`` ends, or None when neither is muted."""
        return self.mutes.of(client, account, self.clock())

    def closing(self) -> set[str]:
        """The tables the operator asked to close (those this instance holds are closed by
        the app's moderation task, which then marks the request done)."""
        return self.closes

    def report(
        self, client: str, account: int | None, reported: Reported, reason: str, note: str
    ) -> bool:
        """Keep a player's report of ``reported`` (its reason one of :data:`REASONS`, its
        note at most :data:`NOTE_LENGTH` characters: checked by the caller's model). Limited
        per client and per account (:class:`ModerationError` ``rate_limited``); the same
        line or player reported again by the same reporter is kept once and not counted.
        Returns False for such a repeat."""
        if self.store is None:
            raise ModerationError("not_allowed", "reports need the server's database")
        for limiter, key in (
            (self.reports_by_client, client),
            (self.reports_by_account, None if account is None else str(account)),
        ):
            if key is not None and limiter.over(key):
                raise ModerationError(
                    "rate_limited",
                    f"at most {limiter.limit} reports an hour: thank you, try again later",
                    limiter.retry_after(key),
                )
        reporter = f"account {account}" if account is not None else f"address {client}"
        if reported.line is not None:
            # With the line's words: a restarted or moved table numbers its lines from 1 again.
            said = hashlib.sha256(f"{reported.seat}:{reported.text}".encode()).hexdigest()[:16]
            what = f"{reported.code} line {reported.line} {said}"
        elif reported.seat is not None:
            what = f"{reported.code} seat {reported.seat}"
        else:
            what = f"player {reported.account}"
        row: dict[str, Any] = {
            "code": reported.code,
            "line": reported.line,
            "seat": reported.seat,
            "name": reported.name[:24],
            "account": reported.account,
            "client": reported.client,
            "text": reported.text,
            "reason": reason,
            "note": note[:NOTE_LENGTH],
            "reporter_account": account,
            "reporter_client": client[:64],
            "dedupe": f"{reporter}|{what}"[:200],
        }
        if not self.store.add_report(row):
            return False
        self.reports_by_client.add(client)
        if account is not None:
            self.reports_by_account.add(str(account))
        return True

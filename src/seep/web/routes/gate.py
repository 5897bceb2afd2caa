"""What every request passes before a route acts: who its client is, and the per-client
limits on table lookups, new tables and lobby lookups (docs/web.md, "Limits")."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import Scope

from ..accounts import SESSION_COOKIE, Accounts
from ..limits import ClientResolver, LogLimiter, NetworkOpenTables, NetworkRates, RateLimiter
from ..moderation import Moderation
from ..settings import Settings
from ..store import Store
from ..tables import TableError, TableManager

__all__ = ["Gate"]


class Gate:
    """The client key of a request or socket, and the limits the routes share: lookups of
    codes that name no table, tables created and open (per client and per network, and in
    all), lobby lookups. ``log_bad`` and ``log_error`` log a line about a client at most once
    a minute."""

    def __init__(
        self,
        manager: TableManager,
        store: Store,
        settings: Settings,
        client_of: ClientResolver,
        log: logging.Logger,
    ) -> None:
        self.manager = manager
        self.store = store
        self.accounts: Accounts | None = None  # the app sets it (the session cookies' accounts)
        self.moderation: Moderation | None = None  # the app sets it (bans, reports)
        # The app sets it: whether a table is a duplicate event's deal not open yet, of which
        # nothing is shown by code (docs/web.md "Events").
        self.sealed: Callable[[str], bool] | None = None
        # The app sets it: whether a table's record is shown without its seed (a duplicate
        # event's deal while the event runs).
        self.seedless: Callable[[str], bool] | None = None
        self.client_of = client_of
        self.creations = NetworkRates(settings.max_tables_per_minute)  # limits.networks too
        self.misses = RateLimiter(settings.max_unknown_codes_per_minute)
        self.lobby_looks = RateLimiter(settings.max_lobby_per_minute)
        self.profile_looks = RateLimiter(settings.max_profiles_per_minute)
        self.open_cap = settings.max_open_tables
        self.open_tables = NetworkOpenTables(settings.max_open_tables_per_client, self.is_open)
        self.log_bad = LogLimiter(log)
        self.log_error = LogLimiter(
            log, template="internal error for %s: %s%s", level=logging.ERROR
        )

    # --- who the client is ------------------------------------------------------------------

    def client(self, conn: HTTPConnection) -> str:
        """The client key of a request or a socket."""
        peer = conn.client.host if conn.client is not None else None
        return self.client_of(peer, conn.headers.get("x-forwarded-for"))

    def scope_client(self, scope: Scope) -> str:
        """The client key of an ASGI scope (for the middlewares)."""
        peer = scope.get("client")
        return self.client_of(
            peer[0] if peer else None, Headers(scope=scope).get("x-forwarded-for")
        )

    def refused_origin(self, scope: Scope) -> None:
        """Log the Origin check's refusal (once a minute per client)."""
        self.log_bad(self.scope_client(scope), f"bad_origin ({scope['type']})")

    def account(self, conn: HTTPConnection) -> tuple[int, str] | None:
        """The signed-in account of a request (its session cookie): (id, name), or None for
        a guest."""
        if self.accounts is None:
            return None
        found = self.accounts.account_of(conn.cookies.get(SESSION_COOKIE))
        return None if found is None else (found.id, found.name)

    def check_banned(self, key: str, account: int | None = None) -> None:
        """Refuse a banned address or account (:class:`~seep.web.moderation.ModerationError`
        ``banned``, 403): from this instance's copy of the bans, no database query."""
        if self.moderation is not None:
            self.moderation.check_banned(key, account)

    # --- lookups by code --------------------------------------------------------------------

    def lookup(
        self, key: str, code: str, find: Callable[[str], Any], *, sealed_ok: bool = False
    ) -> Any:
        """A lookup by table code, limited per client: codes that name no table count, and
        past the limit every lookup is refused (else the refusals would tell which codes
        exist). A sealed table (:attr:`sealed`) is refused unless the caller checks who asks
        (``sealed_ok``: a seat's socket)."""
        if self.misses.over(key):
            self.manager.metrics.refused("unknown_codes")
            raise TableError(
                "rate_limited",
                f"more than {self.misses.limit} unknown table codes in a minute from your "
                "address: wait a minute",
            )
        if not sealed_ok and self.is_sealed(code):
            raise TableError(
                "not_allowed",
                "this table's deal is shown once every table of its round has finished it",
            )
        try:
            return find(code)
        except TableError as exc:
            if exc.code == "unknown_table":
                self.misses.add(key)
            raise

    def is_sealed(self, code: str) -> bool:
        """Whether table ``code`` shows nothing yet (:attr:`sealed`)."""
        return self.sealed is not None and self.sealed(code[:16])

    def shown_record(self, code: str, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` as table ``code``'s record is shown: without its seed where
        :attr:`seedless` says so."""
        if self.seedless is not None and "seed" in record and self.seedless(code[:16]):
            return {k: v for k, v in record.items() if k != "seed"}
        return record

    def look_at_lobby(self, key: str) -> None:
        """Count a lobby lookup (the list, or quick match); refused over the limit."""
        if self.lobby_looks.over(key):
            self.manager.metrics.refused("lobby")
            raise TableError(
                "rate_limited",
                f"at most {self.lobby_looks.limit} lobby lookups a minute from one address",
            )
        self.lobby_looks.add(key)

    def look_at_players(self, key: str) -> None:
        """Count a profile or leaderboard read (each a few database queries); refused over
        the limit."""
        if self.profile_looks.over(key):
            self.manager.metrics.refused("profiles")
            raise TableError(
                "rate_limited",
                f"at most {self.profile_looks.limit} profile and leaderboard reads a minute "
                "from one address",
            )
        self.profile_looks.add(key)

    # --- new tables -------------------------------------------------------------------------

    def is_open(self, code: str) -> bool:
        """Whether the table ``code`` still counts against its creator's cap."""
        if self.manager.clustered:  # the table may live on another instance: ask the database
            return self.store.running(code)
        table = self.manager.tables.get(code)
        return table is not None and table.status in ("waiting", "playing")

    def open_in_all(self) -> int:
        """The open tables on the server (on every instance)."""
        if self.manager.clustered:
            return self.store.count_running()
        return sum(self.is_open(c) for c in self.manager.tables)

    def may_create(self, key: str) -> None:
        """Refuse a new table (created, opened by quick match, or a rematch) over a limit."""
        busy = self.creations.over(key)
        if busy is not None:
            self.manager.metrics.refused("new_tables")
            where = "one address" if busy[0] == key else f"the network {busy[0]}"
            raise TableError(
                "rate_limited", f"at most {busy[1]} new tables a minute from {where}: wait a minute"
            )
        full = self.open_tables.over(key)
        if full is not None:
            self.manager.metrics.refused("open_tables")
            where = "your address" if full[0] == key else f"your network {full[0]}"
            raise TableError(
                "too_many_tables",
                f"{where} already has {full[1]} open tables (the limit): finish or leave one first",
            )
        if self.open_cap and self.open_in_all() >= self.open_cap:
            self.manager.metrics.refused("open_tables")
            raise TableError(
                "too_many_tables",
                f"the server has {self.open_cap} open tables, its limit: try again later",
            )

    def created(self, key: str, code: str) -> None:
        """``key`` created the table ``code``: it counts against its limits."""
        self.creations.add(key)
        self.open_tables.add(key, code)

    def create(self, key: str, body: Any, account: tuple[int, str] | None = None) -> dict[str, Any]:
        """A new table for ``key`` (and a signed-in creator's ``account``) from a request's
        body, within its limits."""
        self.check_banned(key, None if account is None else account[0])
        self.may_create(key)
        made = self.manager.create(body, key, account)
        self.created(key, made["code"])
        return made

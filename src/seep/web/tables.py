"""Tables: the :class:`TableManager`, which runs every table of the server on one event loop.

The web app's rooms (docs/web.md "Layers"), each calling only the ones below it:

- :mod:`seep.web.table`: a :class:`Table` (seats, tokens, the session it drives; no JSON, no
  asyncio) and :class:`TableError`;
- :mod:`seep.web.wire`: the one writer of what goes on the wire (state, summary, lobby rows),
  which keeps each deal's history serialised;
- :mod:`seep.web.hub`: the connections of every table and the broadcasts to them;
- :mod:`seep.web.driver`: bots, the turn clock, grace periods and timeouts, handed callbacks;
- :mod:`seep.web.thinking`: who thinks for a bot's seat, on the loop or in the bot pool;
- :mod:`seep.web.cluster`: the leases and claims of several instances on one database;
- :mod:`seep.web.keeper`: the tables in memory and the one commit path (check once, store,
  apply, drive, broadcast);
- :mod:`seep.web.game_handlers`, :mod:`seep.web.social_handlers`, :mod:`seep.web.inbox`: the
  socket messages;
- this module: the manager, the face the app calls (create, join, quick match's countdown,
  connect, hello, sweeps and closing), which delegates to them; :mod:`seep.web.lobby` above it
  lists the open tables and finds quick match's.

Every change is persisted through a :class:`~seep.web.store.Store` *before* it is broadcast.
All table changes happen on the loop's thread; a slow bot's thinking runs in a worker process
of a :class:`~seep.web.botpool.BotPool`, which gets only the seat's view as docs/format.md
JSON. :meth:`TableManager.sweep` closes tables nobody comes back to and lets finished ones leave
memory (their records stay in the store).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from . import inbox, owners, presence, records, social_handlers
from .driver import STORE_UNAVAILABLE, log_store_problem
from .hub import RATE_LIMIT, Connection
from .inbox import MAX_MESSAGE_BYTES
from .keeper import CODE_ALPHABET, TableKeeper
from .messages import CreateTable, JoinTable, parse_body
from .store import StoreConflict, StoreUnavailable
from .table import Seat, Table, TableError, checked, hash_token, parse_settings, settings_of
from .thinking import SLOW_BOTS

__all__ = [
    "CODE_ALPHABET",
    "MAX_MESSAGE_BYTES",
    "RATE_LIMIT",
    "Connection",
    "Seat",
    "Table",
    "TableError",
    "TableManager",
    "hash_token",
    "parse_settings",
]


def _who(name: str | None, account: tuple[int, str] | None) -> tuple[str, int | None]:
    """A new seat's name and account: a signed-in player sits under his account's name."""
    if account is not None:
        return account[1], account[0]
    return name or "Player", None


class TableManager(TableKeeper):
    """Every table of the server, their connections, and the timers that move bots.

    ``bot_delay`` is the pause before a bot moves (so players see each move), ``grace_seconds``
    how long a player may be gone before a bot plays for him, ``rate_limit`` how many messages
    a connection may send in a second. ``ready_seconds`` is how long a deal summary waits for
    ``next`` (0: for ever), ``waiting_seconds`` how long a table not started stays open with
    nobody connected, ``abandoned_seconds`` how long a started one stays open with no seated
    player connected. ``bot_pool`` thinks for the slow bots (none: they think in a thread) and
    ``max_slow_tables`` caps one client's open tables of slow bots. ``clock`` gives the time
    (tests may replace it). Call the methods from the event loop's thread.

    When the store has an owner (several instances share the database, docs/deploy.md) the
    manager holds only the tables whose lease it has: :meth:`claim` takes a table's lease and
    loads it from its stored moves, :meth:`heartbeat` renews the leases every third of
    ``lease_seconds``, and a table whose lease is lost or asked for leaves memory, its clients
    told to reconnect.
    """

    # --- lifecycle --------------------------------------------------------------------------

    def load(self) -> int:
        """Reload every unfinished table from the store, replaying its moves; returns how many.

        Players are not connected after a restart: their grace periods start now.
        """
        if self.store is None or self.clustered:
            return 0  # several instances: each table is loaded by the one that claims it
        n = 0
        for row in self.store.load_unfinished():
            if self._restore(row) is not None:
                n += 1
        return n

    def sweep(self) -> int:
        """Close the tables nobody comes back to, and let finished tables nobody watches leave
        memory; returns how many tables left memory. Call it every so often.

        A table not started closes after ``waiting_seconds`` with nobody connected; a started
        one after ``orphan_seconds`` (or ``abandoned_seconds`` if shorter or if
        ``orphan_seconds`` is 0) with no seated player connected (spectators do not keep it
        open). A closed table keeps its finished deals as a record in the store.
        """
        now = self.clock()
        gone = 0
        for table in list(self.tables.values()):
            conns = self.hub.conns.get(table.code)
            if table.status == "finished":
                if not conns:
                    self._forget(table)
                    gone += 1
                continue
            if table.status == "waiting":
                here = bool(conns)
                limit = self.waiting_seconds
            else:
                here = any(s.kind == "human" and s.connections > 0 for s in table.seats)
                limit = self.abandoned_seconds
                if self.orphan_seconds > 0:
                    # One address could otherwise hold the server's open-table cap for a day
                    # with tables it starts and leaves (issue 23).
                    limit = min(limit, self.orphan_seconds)
            if here:
                table.alone_since = None
            elif table.alone_since is None:
                table.alone_since = now
            elif now - table.alone_since >= limit:
                try:
                    self.close(table)
                except StoreUnavailable as exc:
                    # A full disk: the table stays open and is closed at a later sweep; one
                    # line per table now and then, not a traceback every sweep.
                    log_store_problem(table.code, exc)
                    continue
                gone += 1
        return gone

    def close(self, table: Table) -> None:
        """Close a table that will not finish: it keeps its finished deals as a record (the
        moves stay stored), its last state goes to anyone still watching, and it leaves
        memory. Raises :class:`StoreUnavailable`, the table unchanged, when the database
        refuses the write."""
        record = None
        if table.session is not None:
            with contextlib.suppress(TableError):
                record = table.record()
        status = table.status
        table.status = "closed"
        table.version += 1
        if self.store is not None:
            try:
                # A rated match nobody came back to counts as lost for all who left it.
                self.store.close_table(table, record, table.rated_match(record, closing=True))
            except StoreUnavailable:
                table.status, table.version = status, table.version - 1  # nothing happened
                raise
        self.hub.broadcast(table)
        self._forget(table)

    def drain(self) -> None:
        """The server is stopping (SIGTERM, Ctrl-C): it is no longer ready, so the proxy sends
        nothing new here (docs/deploy.md "Rolling restarts")."""
        self.draining = True

    def not_ready(self) -> str | None:
        """What keeps this instance from serving, besides its database (:meth:`Store.problem`
        says that): stopping, or leases not renewed in time (its tables may be another's)."""
        if self.draining:
            return "the server is stopping"
        if self.clustered and self.leases is not None and not self.leases.alive(self.lease_seconds):
            return "the table leases were not renewed in time"
        return None

    def shutdown(self) -> None:
        """Write the moves handed to the writer, and cancel every timer (the tables themselves
        are all in the store)."""
        if self.moves is not None:
            self.moves.close()
        self.driver.shutdown()
        self.hub.shutdown()
        if self.pusher is not None:
            self.pusher.close()

    async def claim(self, code: str) -> None:
        """Make sure this instance holds the running table ``code`` before a request for it:
        take its lease (waiting, up to a lease and a half, for another holder to hand it over
        or to expire) and load it by replaying its stored moves. Unknown and finished tables
        are left to the request. Raises :class:`TableError` ``unavailable`` when the table
        stays held elsewhere."""
        code = code.upper()
        if not self.clustered or code in self.tables:
            return
        if not (code.isascii() and code.isalnum() and len(code) <= 8):
            return  # no such table: the request says so
        assert self.leases is not None
        await self.leases.claim(code, self.lease_seconds)

    async def heartbeat(self) -> None:
        """Renew this instance's leases forever (a task of the app): every third of
        ``lease_seconds``. Tables whose lease was lost, or that another instance asked for
        (the proxy sends their traffic there now), leave memory."""
        assert self.leases is not None and self.clustered
        await self.leases.heartbeat(lambda: self.lease_seconds)

    def create(
        self, body: Any, client: str = "", account: tuple[int, str] | None = None
    ) -> dict[str, Any]:
        """Create a table with its creator as host in seat 0 (``POST /api/tables``); ``client``
        is the creator's address, for the limits per client; ``account`` (id, name) a
        signed-in creator's, whose name his seat takes."""
        if self.draining:  # a request that came in as the server began to stop
            raise TableError("unavailable", "this server is restarting: try again")
        req = checked(lambda d: parse_body(CreateTable, d), body)
        settings = settings_of(req)
        if settings["rated"] and self.store is None:
            raise TableError("not_allowed", "rated play needs the server's database")
        self._check_slow_tables(client, settings)
        if settings["public"]:
            self._check_public_tables(client)
        # The shuffles follow from a server secret that no client sees before the match is
        # over (Table.record): knowing it would show every hidden card.
        table = Table(self._new_code(), settings, secrets.randbits(62))
        table.client = client
        table.alone_since = self.clock()
        name, mine = _who(req.name, account)
        seat, token = table.join(name, 0, mine)
        table.seats[seat].joined = self.clock()
        self.show_rating(table)
        self._store_new(table)
        if not self.clustered:
            # Several instances: the one the proxy sends the table's traffic to claims it.
            self.tables[table.code] = table
            self._host_left[table.code] = self.clock()  # until his page connects
        return {"code": table.code, "url": f"/t/{table.code}", "seat": seat, "token": token}

    def open_seated(
        self,
        settings: Mapping[str, Any],
        seed: int,
        seats: Mapping[int, tuple[str, int | None]],
        token: Callable[[str, int], str],
        client: str,
        code: str | None = None,
    ) -> Table:
        """Open and start at once a table whose players the server seats (an event's round,
        docs/web.md "Events"): ``seats`` maps a seat to (name, account), the other seats get
        bots; ``token(code, seat)`` is the seat's token (the event derives it, so its player
        may ask for it again); ``code`` the table's code when the caller chose it
        (:meth:`new_code`; :class:`TableError` ``not_allowed`` when it is taken). Players not
        connected start their grace period at once, as at any start; their accounts are pushed
        the start where they allowed it."""
        if code is not None and (code in self.tables or self._taken(code)):
            raise TableError("not_allowed", f"table code {code} is taken")
        table = Table(code or self._new_code(), settings, seed)
        table.client = client
        table.alone_since = self.clock()
        table.host = min(seats)
        for i, (name, account) in seats.items():
            table.seats[i] = Seat(name=name, kind="human", account=account)
        self.show_rating(table)
        if code is None:
            self._store_new(table)  # its code may change here (another instance took it)
        elif self.store is not None:
            self.store.create_table(table)  # StoreConflict: another took the code meanwhile
        for i in seats:
            table.seats[i].token_hash = hash_token(token(table.code, i))
        self.tables[table.code] = table
        self._begin(table, table.host)  # stores the seats with their tokens' hashes
        return table

    def new_code(self) -> str:
        """A code no table has now, for a table the caller opens later (:meth:`open_seated`)."""
        return self._new_code()

    def _taken(self, code: str) -> bool:
        return self.store is not None and self.store.exists(code)

    def _check_public_tables(self, client: str) -> None:
        """One client may keep only ``max_public_waiting`` public tables waiting for players:
        the lobby lists the newest first, and a few addresses must not fill it (0: no limit)."""
        if self.max_public_waiting <= 0:
            return
        mine = sum(
            1
            for t in self.tables.values()
            if t.client == client and t.status == "waiting" and t.settings.get("public")
        )
        if mine >= self.max_public_waiting:
            self.metrics.refused("open_tables")
            raise TableError(
                "too_many_tables",
                f"at most {self.max_public_waiting} public tables waiting for players per "
                "address: start one, or wait for players at one you have",
            )

    def _check_slow_tables(self, client: str, settings: Mapping[str, Any]) -> None:
        """One client may keep only ``max_slow_tables`` open tables of slow (search) bots: their
        thinking is the server's dearest resource (0: no limit)."""
        if settings["bots"] not in SLOW_BOTS or self.max_slow_tables <= 0:
            return
        mine = sum(
            1
            for t in self.tables.values()
            if t.client == client and t.settings["bots"] in SLOW_BOTS and t.status != "finished"
        )
        if mine >= self.max_slow_tables:
            self.metrics.refused("open_tables")
            raise TableError(
                "too_many_tables",
                f"at most {self.max_slow_tables} open tables with hard or expert bots per client:"
                " finish one, or choose easy or medium bots",
            )

    def count_down(self, code: str, seconds: float | None = None) -> None:
        """Quick match opened table ``code`` (held here): in ``seconds`` (the player's chosen
        wait; by default :attr:`quick_seconds`) its empty seats get bots of its level and it
        starts, or sooner once every seat is taken. The deadline is in the table's public
        state (``starts_at``) for every page to count down."""
        table = self.tables.get(code)
        if table is None or table.status != "waiting":
            return  # several instances: the table is held where its traffic goes
        wait = self.quick_seconds if seconds is None else seconds
        table.starts_at = self.clock() + wait
        self.driver.count_down(code, wait)
        self._changed(table, game=False)

    def _wait_at_most(self, table: Table, seconds: float) -> None:
        """A player who joins a counting-down table gets bots after at most the wait he
        chose: the deadline comes forward to it, never goes back."""
        if table.starts_at is None:
            return
        now = self.clock()
        if now + seconds < table.starts_at:
            table.starts_at = now + seconds
            self.driver.count_down(table.code, seconds)

    def join(
        self,
        code: str,
        body: Any,
        account: tuple[int, str] | None = None,
        wait: float | None = None,
    ) -> dict[str, Any]:
        """Take a seat (``POST /api/tables/{code}/join``); ``account`` (id, name) a signed-in
        player's, whose name his seat takes; ``wait`` (rated quick match) the longest he will
        wait before bots fill the empty seats."""
        table = self.get(code)
        req = checked(lambda d: parse_body(JoinTable, d), body)
        if req.token is not None:
            # One browser, one seat a table: a join with the token it holds here (a second
            # click, a second tab) answers the seat it holds.
            held = table.seat_of_token(req.token)
            if held is not None:
                return {"seat": held, "token": req.token}
        name, mine = _who(req.name, account)
        seat, token = table.join(name, req.seat, mine)
        table.seats[seat].joined = self.clock()
        if mine is not None:
            self.show_rating(table)
        if self.store is not None:
            self.store.save_table(table)
        if wait is not None:
            self._wait_at_most(table, wait)
        if table.starts_at is not None and not table.free_seats():
            self._begin(table, table.host)  # quick match: a full table need not wait
        else:
            self._changed(table, game=False)
        return {"seat": seat, "token": token}

    def link_seats(self, held: list[tuple[str, str]], account: int) -> int:
        """A guest who signs up or in keeps the seats his browser holds (:mod:`.owners`)."""
        return owners.link_seats(
            self.tables, self.store, held, account, lambda t: self._changed(t, game=False)
        )

    def forget_account(self, account: int) -> None:
        """A deleted account's seats at the live tables become "a former player"."""
        owners.forget_account(self.tables, account, lambda t: self._changed(t, game=False))

    def replay(self, code: str) -> dict[str, Any]:
        """Every position of the record's deals, replayed by the engine, for the replay page:
        ``{"steps": [{"deal", "index", "move", "position", "result"}]}``."""
        return records.replay(self.record(code))

    def summary(self, code: str) -> dict[str, Any]:
        """The public summary of a table, live or finished and stored."""
        return records.summary(self.tables, self.store, code)

    def record(self, code: str) -> dict[str, Any]:
        """The docs/format.md game record of a table, live or finished and stored."""
        return records.record(self.tables, self.store, code)

    # --- connections ------------------------------------------------------------------------

    def connect(self, code: str, client: str = "") -> Connection:
        """A new connection to a table (:func:`seep.web.presence.connect`)."""
        return presence.connect(self, code, client)

    def hello(self, conn: Connection, token: str) -> None:
        """The ``hello`` handshake (:func:`seep.web.presence.hello`)."""
        presence.hello(self, conn, token)

    def disconnect(self, conn: Connection) -> None:
        """A connection has gone (:func:`seep.web.presence.disconnect`)."""
        presence.disconnect(self, conn)

    def _start_rematch(self, table: Table) -> None:
        social_handlers.start_rematch(self, table)

    async def handle(self, conn: Connection, text: str | bytes) -> None:
        """One message from a client: errors go back to that client only."""
        try:
            await inbox.receive(self, conn, text, self.hello)
        except inbox.OverBudget as exc:
            self.metrics.refused("messages")
            inbox.over_budget(self, conn, exc.message)
        except TableError as exc:
            if exc.code == "rate_limited":  # chat lines, name changes, transfer codes
                self.metrics.refused("chat")
            conn.error(exc.code, exc.message, exc.reason)
            if exc.code in inbox.BAD_INPUT and self.log_bad_input is not None:
                self.log_bad_input(conn.client or "a socket", f"{exc.code} (socket message)")
        except StoreConflict as exc:
            self.drop(conn.code, str(exc))
        except StoreUnavailable as exc:
            # Nothing of the change was stored or made: the player may send it again.
            log_store_problem(conn.code, exc)
            conn.error("store_unavailable", STORE_UNAVAILABLE)
        except Exception as exc:  # a bug: logged, and the client and the table go on
            logging.getLogger("seep.web").exception("table %s: %s", conn.code, exc)
            conn.error("internal_error", "the server could not handle that message (logged)")

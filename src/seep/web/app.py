"""The FastAPI app: HTTP routes, the WebSocket endpoint and the page's static files.

The routes and messages are docs/web.md's. Every error is JSON
``{"error": {"code": ..., "message": ...}}`` (HTTP) or an ``error`` message (WebSocket) for
the client that caused it; no traceback ever reaches a client.

:func:`create_app` reads as the app's table of contents: the settings
(:mod:`~seep.web.settings`), the store and the tables, the limits every route shares
(:mod:`~seep.web.routes.gate`), the lifespan (:mod:`~seep.web.lifespan`), the middlewares
(:mod:`~seep.web.middleware`), the error handlers and the routes (:mod:`seep.web.routes`).
"""

from __future__ import annotations

import logging

from fastapi import FastAPI

from .accounts import Accounts
from .database import database_url as database_url_of
from .events import Events
from .lifespan import lifespan
from .limits import ClientResolver, MessageBudget, SocketCounts, quiet_invalid_utf8
from .metrics import TABLE_STATUSES, Metrics
from .middleware import (
    CSP,
    SECURITY_HEADERS,
    ClaimTables,
    InternalErrors,
    OriginCheck,
    RequestContext,
    SecurityHeaders,
    origin_allowed,
)
from .moderation import Moderation
from .passkeys import Passkeys
from .profiles import Profiles
from .push import PushSettings, VapidKeys
from .pusher import Pusher, Sender
from .routes import accounts as account_routes
from .routes import events as event_routes
from .routes import lobby, offline, operations, pages, passkeys, players, reports, table, websocket
from .routes import metrics as metrics_routes
from .routes import push as push_routes
from .routes.errors import add_error_handlers
from .routes.gate import Gate
from .routes.pages import STATIC
from .settings import Settings, read_settings
from .store import Store
from .tables import TableManager

__all__ = ["CSP", "SECURITY_HEADERS", "STATIC", "create_app", "origin_allowed"]

log = logging.getLogger("seep.web")


def _limit_sockets(manager: TableManager, settings: Settings) -> None:
    """Each client's sockets and message budget (docs/web.md, Limits): one budget per address,
    however many sockets it opens."""
    manager.sockets = SocketCounts(
        settings.max_sockets_per_client, settings.max_sockets_per_client_table
    )
    manager.spectators_per_client = settings.max_spectators_per_client_table
    manager.budget = MessageBudget(settings.message_budget)
    manager.max_connections = settings.max_table_connections or 1_000_000


def _watch(metrics: Metrics, manager: TableManager, store: Store) -> None:
    """What the metrics read at scrape time (docs/deploy.md "Metrics"), and the store's
    writes timed."""

    def tables() -> dict[str, int]:
        counts = dict.fromkeys(TABLE_STATUSES, 0)
        for t in manager.tables.values():
            if t.status in counts:
                counts[t.status] += 1
        return counts

    def pool() -> tuple[int, int]:
        bots = manager.bot_pool
        return (0, 0) if bots is None else (bots.moves, bots.fallbacks)

    metrics.watch(
        tables=tables,
        connections=lambda: sum(len(c) for c in manager.hub.conns.values()),
        pool=pool,
        totals=store.totals,
    )
    store.timed = metrics.stored


def create_app(
    database_url: str | None = None,
    *,
    bot_delay: float | None = None,
    grace_seconds: float | None = None,
    dev: bool = False,
    trusted_proxies: str | None = None,
    max_tables_per_minute: int | None = None,
    max_open_tables: int | None = None,
    max_open_tables_per_client: int | None = None,
    max_unknown_codes_per_minute: int | None = None,
    instance_id: str | None = None,
    lease_seconds: float | None = None,
    upgrade_schema: bool | None = None,
) -> FastAPI:
    """The web app. ``database_url`` defaults to ``SEEP_DATABASE_URL`` or ./data/seep.db;
    ``bot_delay`` (``SEEP_BOT_DELAY``, 0.6 s) is the pause before each bot move and
    ``grace_seconds`` (``SEEP_GRACE_SECONDS``, 30 s) how long a player may be gone before a
    bot plays for him. Unfinished tables are reloaded when the app starts. The other settings
    (docs/web.md) come from the environment.

    ``dev`` serves /docs and /openapi.json. The limits per client (docs/web.md "Limits"; 0: no
    limit) default to their ``SEEP_*`` environment settings: ``max_tables_per_minute`` (10),
    ``max_open_tables`` (2,000 in all), ``max_open_tables_per_client`` (20),
    ``max_unknown_codes_per_minute`` (30). ``trusted_proxies`` (``SEEP_TRUSTED_PROXIES``,
    default none) are the addresses whose ``X-Forwarded-For`` names the client.

    ``instance_id`` (``SEEP_INSTANCE_ID``) makes this server one of several on one database
    (docs/deploy.md): it then holds a table only under a lease of ``lease_seconds``
    (``SEEP_LEASE_SECONDS``, 10 s), loads tables when their requests come, and no table at
    start.

    ``upgrade_schema``: bring the database's schema up to date at start. By default the
    embedded SQLite database is upgraded and any other is only checked: a PostgreSQL database
    shared by several instances is upgraded once, by ``seep db upgrade``, before they start
    (docs/deploy.md "Upgrading"), and one whose schema is behind is refused."""
    settings = read_settings(
        dev=dev,
        bot_delay=bot_delay,
        grace_seconds=grace_seconds,
        trusted_proxies=trusted_proxies,
        max_tables_per_minute=max_tables_per_minute,
        max_open_tables=max_open_tables,
        max_open_tables_per_client=max_open_tables_per_client,
        max_unknown_codes_per_minute=max_unknown_codes_per_minute,
        instance_id=instance_id,
        lease_seconds=lease_seconds,
    )
    client_of = ClientResolver(settings.trusted_proxies)
    quiet_invalid_utf8()

    # The tables and their store.
    url = database_url_of(database_url)
    if upgrade_schema is None:
        upgrade_schema = url.startswith("sqlite")
    store = Store(url, owner=settings.instance_id, upgrade=upgrade_schema)
    manager = TableManager(
        store, **settings.table_options(), bot_pool=settings.bot_pool(), metrics=Metrics()
    )
    _limit_sockets(manager, settings)
    _watch(manager.metrics, manager, store)

    # The limits every route shares; rematches count against the same ones as new tables.
    gate = Gate(manager, store, settings, client_of, log)
    manager.log_bad_input = gate.log_bad
    manager.may_create = gate.may_create
    manager.created = gate.created
    accounts = Accounts(
        store,
        logins_per_minute=settings.max_logins_per_minute,
        login_window=settings.login_window,
        signups_per_hour=settings.max_signups_per_hour,
    )
    accounts.refused = manager.metrics.refused
    gate.accounts = accounts
    # The operator's bans and mutes, read every few seconds by the lifespan (docs/deploy.md
    # "Moderation"), and the players' reports.
    moderation = Moderation(
        store, settings.moderation_seconds, reports_per_hour=settings.max_reports_per_hour
    )
    gate.moderation = moderation
    manager.moderation = moderation

    # Events (docs/web.md "Events"): their runner opens rounds on the instance that holds its
    # lease (any, alone on its database).
    events = Events(manager, store)
    manager.observers.append(lambda t: events.table_changed(t.code, t.status))
    manager.observers.append(events.forfeits)  # an event without bots: a forfeit ends a table
    if manager.clustered:  # a table taken over from another instance: is it one without bots?
        manager.no_bots_of = store.without_bots
    gate.sealed = events.sealed  # a duplicate deal shows nothing until the field finished it
    gate.seedless = events.seedless
    runners = [events.run]  # with several instances only the runner's lease holder acts

    app = FastAPI(
        title="Seep",
        lifespan=lifespan(manager, store, settings, moderation, runners),
        docs_url="/docs" if dev else None,
        redoc_url=None,
        openapi_url="/openapi.json" if dev else None,
    )
    app.state.manager = manager
    app.state.store = store
    app.state.client_of = client_of
    app.state.metrics = manager.metrics

    # Middlewares, innermost first (each one added wraps those before it).
    app.add_middleware(SecurityHeaders, dev=dev)
    app.add_middleware(ClaimTables, manager=manager)
    app.add_middleware(OriginCheck, allowed=settings.allowed_origins, refused=gate.refused_origin)
    # Sees what every other layer let through (its 500 bypasses SecurityHeaders).
    app.add_middleware(InternalErrors, client=gate.scope_client, log_error=gate.log_error)
    # Outermost: every log line written while a request is served names it.
    app.add_middleware(RequestContext)
    add_error_handlers(app, gate)

    # Routes, by what they serve; lobby before table keeps the OpenAPI's order of paths.
    app.include_router(pages.router())
    app.include_router(offline.router())  # the offline table's files (Pyodide, our bundle)
    app.include_router(operations.router(store, manager))
    access = metrics_routes.MetricsAccess(
        client_of, settings.metrics_networks, settings.metrics_token
    )
    app.include_router(metrics_routes.router(gate, manager.metrics, access))
    app.mount("/static", pages.static_files(), name="static")
    app.include_router(lobby.router(gate))
    app.include_router(table.router(gate))
    app.include_router(websocket.router(gate))
    app.include_router(account_routes.router(gate, accounts))
    keys = Passkeys(accounts, options_per_minute=settings.max_logins_per_minute)
    app.include_router(passkeys.router(gate, accounts, keys))
    app.include_router(players.router(gate, Profiles(store)))
    app.include_router(reports.router(gate, moderation))
    app.include_router(event_routes.router(gate, events))
    app.state.events = events
    _push(app, gate, manager, store)
    return app


def _push(app: FastAPI, gate: Gate, manager: TableManager, store: Store) -> None:
    """Web Push (docs/web.md "Notifications"): the VAPID key pair made at first start and
    kept in the database, the routes, and the notifications of away players."""
    settings = PushSettings.from_env()
    if not settings.enabled:
        return
    keys = VapidKeys.of(store)
    manager.pusher = Pusher(Sender(store, keys, settings), settings, manager.hub)
    app.state.pusher = manager.pusher
    app.include_router(push_routes.router(gate, keys, settings))

"""Every setting of the web app, read from the environment in one place (docs/web.md,
"Settings" and "Limits"). No web framework here.

:func:`read_settings` reads the app's ``SEEP_*`` variables once, when the app is built; a bad
value is a ``SystemExit`` with a plain sentence naming the variable, so ``seep serve`` stops
before it serves anything. :class:`HttpLimits` holds the HTTP layer's own limits (those of
``seep serve``'s uvicorn protocol, :mod:`seep.web.server`). The database's URL is the store's
(``SEEP_DATABASE_URL``, :mod:`seep.web.store`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .botpool import BotPool, default_workers
from .limits.clients import Network, parse_networks

__all__ = ["HttpLimits", "Settings", "env_float", "env_int", "read_settings"]


def env_float(name: str, default: float, environ: Mapping[str, str] = os.environ) -> float:
    """The number of seconds (or other float) in ``name``, ``default`` when it is unset."""
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a number of seconds, got {raw!r}") from None


def env_int(name: str, default: int, environ: Mapping[str, str] = os.environ) -> int:
    """The whole number (0: no limit) in ``name``, ``default`` when it is unset or blank."""
    raw = environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise SystemExit(f"{name} must be a whole number (0: no limit), got {raw!r}")
    return value


def _metrics_token(environ: Mapping[str, str]) -> str | None:
    """``SEEP_METRICS_TOKEN``, checked: a header's worth of visible characters, long enough
    not to be guessed (its value is never printed)."""
    raw = environ.get("SEEP_METRICS_TOKEN", "")
    if not raw:
        return None
    if not re.fullmatch(r"[\x21-\x7e]{16,256}", raw):
        raise SystemExit(
            "SEEP_METRICS_TOKEN must be 16 to 256 visible ASCII characters, no spaces "
            "(e.g. the output of: openssl rand -hex 32)"
        )
    return raw


def _instance_id(value: str | None, environ: Mapping[str, str]) -> str | None:
    """This instance's id (``SEEP_INSTANCE_ID``), checked: several instances share a database
    only with one each."""
    value = value if value is not None else environ.get("SEEP_INSTANCE_ID") or None
    if value is not None and not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", value):
        raise SystemExit(f"an instance id is 1-64 letters, digits or ._:- (got {value!r})")
    return value


@dataclass(frozen=True)
class Settings:
    """The web app's settings (docs/web.md, "Settings" and "Limits"); in the limits, 0 is no
    limit."""

    dev: bool
    """Serve /docs and /openapi.json."""

    # Who a client is, and which pages may act on this server.
    trusted_proxies: tuple[Network, ...]
    allowed_origins: frozenset[str]

    # Who may read /metrics besides loopback (docs/deploy.md "Metrics"); the token is a
    # secret: never in a repr, so never in a log line.
    metrics_networks: tuple[Network, ...]
    metrics_token: str | None = field(repr=False)

    # Several instances on one database (docs/deploy.md).
    instance_id: str | None
    lease_seconds: float

    # Per-client limits on HTTP requests.
    max_tables_per_minute: int
    max_open_tables: int
    max_open_tables_per_client: int
    max_unknown_codes_per_minute: int
    max_lobby_per_minute: int
    max_profiles_per_minute: int
    max_logins_per_minute: int
    login_window: float  # seconds those tries are counted over
    max_signups_per_hour: int
    max_reports_per_hour: int

    # Moderation (docs/deploy.md): how often each instance reads the bans and mutes.
    moderation_seconds: float

    # Per-client limits on sockets and their messages.
    max_sockets_per_client: int
    max_sockets_per_client_table: int
    max_spectators_per_client_table: int
    message_budget: float
    max_table_connections: int

    # The tables' lifecycle and bots.
    bot_delay: float
    grace_seconds: float
    forfeit_seconds: float
    ready_seconds: float
    waiting_seconds: float
    abandoned_seconds: float
    orphan_seconds: float
    quick_seconds: float
    match_gap: float
    match_widen: float
    max_slow_tables: int
    max_public_waiting: int
    bot_workers: int
    bot_seconds: float

    # SQLite's checkpoints.
    checkpoint_seconds: float

    def table_options(self) -> dict[str, Any]:
        """The :class:`~seep.web.tables.TableManager`'s keyword arguments, but its bot pool."""
        return {
            "ready_seconds": self.ready_seconds,
            "waiting_seconds": self.waiting_seconds,
            "abandoned_seconds": self.abandoned_seconds,
            "max_slow_tables": self.max_slow_tables,
            "quick_seconds": self.quick_seconds,
            "match_gap": self.match_gap,
            "match_widen": self.match_widen,
            "orphan_seconds": self.orphan_seconds,
            "max_public_waiting": self.max_public_waiting,
            "bot_delay": self.bot_delay,
            "grace_seconds": self.grace_seconds,
            "forfeit_seconds": self.forfeit_seconds,
            "lease_seconds": self.lease_seconds,
        }

    def bot_pool(self) -> BotPool:
        """The pool where hard and expert bots think (``SEEP_BOT_WORKERS``,
        ``SEEP_BOT_SECONDS``); SystemExit for a bad value."""
        try:
            return BotPool(self.bot_workers, self.bot_seconds)
        except ValueError as exc:
            raise SystemExit(f"SEEP_BOT_WORKERS or SEEP_BOT_SECONDS: {exc}") from None


def read_settings(
    *,
    dev: bool = False,
    bot_delay: float | None = None,
    grace_seconds: float | None = None,
    trusted_proxies: str | None = None,
    max_tables_per_minute: int | None = None,
    max_open_tables: int | None = None,
    max_open_tables_per_client: int | None = None,
    max_unknown_codes_per_minute: int | None = None,
    instance_id: str | None = None,
    lease_seconds: float | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Settings:
    """The settings: each argument given (``create_app``'s), else its ``SEEP_*`` variable, else
    its default; SystemExit with a plain sentence for a bad value."""

    def number(value: float | None, name: str, default: float) -> float:
        return value if value is not None else env_float(name, default, environ)

    def whole(value: int | None, name: str, default: int) -> int:
        return value if value is not None else env_int(name, default, environ)

    if trusted_proxies is None:
        trusted_proxies = environ.get("SEEP_TRUSTED_PROXIES", "")
    try:
        proxies = parse_networks(trusted_proxies)
    except ValueError as exc:
        raise SystemExit(f"SEEP_TRUSTED_PROXIES: {exc}") from None
    try:
        metrics_networks = parse_networks(environ.get("SEEP_METRICS_NETWORKS", ""))
    except ValueError as exc:
        raise SystemExit(f"SEEP_METRICS_NETWORKS: {exc}") from None
    settings = Settings(
        dev=dev,
        trusted_proxies=proxies,
        metrics_networks=metrics_networks,
        metrics_token=_metrics_token(environ),
        allowed_origins=frozenset(
            o.strip().lower().rstrip("/")
            for o in environ.get("SEEP_ALLOWED_ORIGINS", "").replace(",", " ").split()
        ),
        instance_id=_instance_id(instance_id, environ),
        lease_seconds=number(lease_seconds, "SEEP_LEASE_SECONDS", 10.0),
        max_tables_per_minute=whole(max_tables_per_minute, "SEEP_MAX_TABLES_PER_MINUTE", 10),
        max_open_tables=whole(max_open_tables, "SEEP_MAX_OPEN_TABLES", 2000),
        max_open_tables_per_client=whole(
            max_open_tables_per_client, "SEEP_MAX_OPEN_TABLES_PER_CLIENT", 20
        ),
        max_unknown_codes_per_minute=whole(
            max_unknown_codes_per_minute, "SEEP_MAX_UNKNOWN_CODES_PER_MINUTE", 30
        ),
        max_lobby_per_minute=whole(None, "SEEP_MAX_LOBBY_PER_MINUTE", 60),
        max_profiles_per_minute=whole(None, "SEEP_MAX_PROFILES_PER_MINUTE", 60),
        max_logins_per_minute=whole(None, "SEEP_MAX_LOGINS_PER_MINUTE", 10),
        login_window=number(None, "SEEP_LOGIN_WINDOW_SECONDS", 60.0),
        max_signups_per_hour=whole(None, "SEEP_MAX_SIGNUPS_PER_HOUR", 5),
        max_reports_per_hour=whole(None, "SEEP_MAX_REPORTS_PER_HOUR", 10),
        moderation_seconds=number(None, "SEEP_MODERATION_SECONDS", 5.0),
        max_sockets_per_client=whole(None, "SEEP_MAX_SOCKETS_PER_CLIENT", 40),
        max_sockets_per_client_table=whole(None, "SEEP_MAX_SOCKETS_PER_CLIENT_TABLE", 8),
        max_spectators_per_client_table=whole(None, "SEEP_MAX_SPECTATORS_PER_CLIENT_TABLE", 6),
        message_budget=number(None, "SEEP_MESSAGE_BUDGET", 40.0),
        max_table_connections=whole(None, "SEEP_MAX_TABLE_CONNECTIONS", 200),
        bot_delay=number(bot_delay, "SEEP_BOT_DELAY", 0.6),
        grace_seconds=number(grace_seconds, "SEEP_GRACE_SECONDS", 30.0),
        forfeit_seconds=number(None, "SEEP_FORFEIT_SECONDS", 120.0),
        ready_seconds=number(None, "SEEP_READY_SECONDS", 60.0),
        waiting_seconds=number(None, "SEEP_WAITING_TABLE_MINUTES", 30.0) * 60.0,
        abandoned_seconds=number(None, "SEEP_ABANDONED_HOURS", 24.0) * 3600.0,
        orphan_seconds=number(None, "SEEP_ORPHAN_MINUTES", 10.0) * 60.0,
        quick_seconds=number(None, "SEEP_QUICK_SECONDS", 20.0),
        match_gap=number(None, "SEEP_MATCH_GAP", 200.0),
        match_widen=number(None, "SEEP_MATCH_WIDEN", 10.0),
        max_slow_tables=whole(None, "SEEP_MAX_EXPERT_TABLES", 4),
        max_public_waiting=whole(None, "SEEP_MAX_PUBLIC_TABLES_PER_CLIENT", 3),
        bot_workers=whole(None, "SEEP_BOT_WORKERS", default_workers()),
        bot_seconds=number(None, "SEEP_BOT_SECONDS", 3.0),
        checkpoint_seconds=number(None, "SEEP_CHECKPOINT_SECONDS", 2.0),
    )
    if settings.waiting_seconds <= 0 or settings.abandoned_seconds <= 0:
        raise SystemExit("SEEP_WAITING_TABLE_MINUTES and SEEP_ABANDONED_HOURS must be positive")
    return settings


def _env_number(name: str, default: float, *, whole: bool = False, least: float = 0) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        value = least - 1
    if value < least:
        kind = "a whole number" if whole else "a number"
        raise SystemExit(f"{name} must be {kind} of at least {least:g}, got {raw!r}")
    return value


@dataclass(frozen=True)
class HttpLimits:
    """The HTTP layer's limits (docs/web.md, "Settings"); 0 turns a limit off."""

    request_timeout: float = 10.0
    max_header_bytes: int = 16 * 1024
    max_connections_per_client: int = 100

    @classmethod
    def from_env(cls) -> HttpLimits:
        """The limits from ``SEEP_REQUEST_TIMEOUT``, ``SEEP_MAX_HEADER_BYTES`` and
        ``SEEP_MAX_CONNECTIONS_PER_CLIENT``; SystemExit with a plain sentence for a bad one."""
        return cls(
            request_timeout=_env_number("SEEP_REQUEST_TIMEOUT", cls.request_timeout),
            # Below 1 KiB a browser's own request head (cookies aside) no longer fits.
            max_header_bytes=int(
                _env_number("SEEP_MAX_HEADER_BYTES", cls.max_header_bytes, whole=True, least=1024)
            ),
            max_connections_per_client=int(
                _env_number(
                    "SEEP_MAX_CONNECTIONS_PER_CLIENT", cls.max_connections_per_client, whole=True
                )
            ),
        )

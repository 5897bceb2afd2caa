"""The web app: server-authoritative tables played in the browser (docs/web.md).

:mod:`seep.web.tables` holds the tables (seats, tokens, bots, clocks, undo) and knows no web
framework; :mod:`seep.web.store` persists them with SQLAlchemy; :mod:`seep.web.app` is the
FastAPI app (``create_app``). Everything here needs the ``web`` extra
(``pip install 'seep-game[web]'``); the core ``seep`` package never imports it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(database_url: str | None = None, **options: Any) -> object:
    """Build the FastAPI app (see :func:`seep.web.app.create_app`)."""
    from .app import create_app as _create_app

    return _create_app(database_url, **options)

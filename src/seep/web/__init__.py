"""The web app: server-authoritative tables played in the browser (docs/web.md).

:mod:`seep.web.tables` runs the tables (its ``TableManager`` delegates to the rooms below it:
:mod:`~seep.web.table` a table's seats, tokens and session; :mod:`~seep.web.wire` what goes on
the wire; :mod:`~seep.web.hub` the connections and broadcasts; :mod:`~seep.web.driver` bots and
clocks; :mod:`~seep.web.cluster` leases; :mod:`~seep.web.keeper` the one commit path; the
socket messages' handlers) and knows no web framework; :mod:`seep.web.store` persists them with
SQLAlchemy; :mod:`seep.web.app` is the FastAPI app (``create_app``); docs/web.md "Layers".
Everything here needs the ``web`` extra (``pip install 'seep-game[web]'``); the core ``seep``
package never imports it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(database_url: str | None = None, **options: Any) -> object:
    """Build the FastAPI app (see :func:`seep.web.app.create_app`)."""
    from .app import create_app as _create_app

    return _create_app(database_url, **options)

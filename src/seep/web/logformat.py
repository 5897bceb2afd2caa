"""The server's log lines (docs/deploy.md "Logs"): plain text by default, or with ``seep serve
--log-format json`` one JSON object a line, for a log collector:

``{"time": "2026-12-04T20:31:07.118Z", "level": "info", "logger": "uvicorn.access",
"instance": "s1", "request": "r-5f0c1a9e27d4", "table": "K7QX2P", "event": "request",
"method": "GET", "path": "/api/tables/K7QX2P", "status": 200, "client": "203.0.113.9",
"message": "GET /api/tables/K7QX2P 200"}``

``request`` names the HTTP request (``r-...``) or the WebSocket connection (``c-...``) the line
was written in, ``table`` the table its path names. Both come from context variables that
:class:`~seep.web.middleware.RequestContext` sets for each request and connection. A request
line has its path without the query string, and its client's address. Nothing a secret
travels in is logged: no header, no body, no socket message (a seat token, a session cookie,
a password, a chat line) is ever in a log line (tests/web/test_web_logs.py reads the whole
log after a match).
"""

from __future__ import annotations

import json
import logging
import time
from contextvars import ContextVar
from typing import Any

__all__ = ["FORMATS", "REQUEST", "TABLE", "JsonLines", "log_config"]

FORMATS = ("text", "json")

#: The request (``r-…``) or connection (``c-…``) a line is written in.
REQUEST: ContextVar[str | None] = ContextVar("seep_request", default=None)
#: The table that request's path names.
TABLE: ContextVar[str | None] = ContextVar("seep_table", default=None)


class JsonLines(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ms), ``level``, ``logger``, ``instance``,
    ``request`` and ``table`` where there are, ``message``; uvicorn's request lines also as
    fields (``event`` "request", ``method``, ``path``, ``status``, ``client``)."""

    def __init__(self, instance: str) -> None:
        super().__init__()
        self.instance = instance

    def format(self, record: logging.LogRecord) -> str:
        when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        out: dict[str, Any] = {
            "time": f"{when}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "instance": self.instance,
        }
        request, table = REQUEST.get(), TABLE.get()
        if request is not None:
            out["request"] = request
        if table is not None:
            out["table"] = table
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            client, method, path, _version, status = args
            path = str(path).split("?", 1)[0]  # a query string is the client's to fill
            out.update(event="request", method=method, path=path, status=status, client=client)
            out["message"] = f"{method} {path} {status}"
        else:
            out["message"] = record.getMessage()
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def log_config(log_format: str, instance: str, level: str = "warning") -> dict[str, Any] | None:
    """The ``logging.config.dictConfig`` settings for ``seep serve``'s loggers (uvicorn's and
    the app's, at ``level``), or ``None`` for uvicorn's own text format."""
    if log_format == "text":
        return None
    if log_format != "json":
        raise ValueError(f"the log format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLines, "instance": instance}},
        "handlers": {"json": handler},
        "loggers": {
            name: {"handlers": ["json"], "level": level.upper(), "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "seep")
        },
    }

"""``python -m seep protocol``: the protocol over JSON lines on stdin/stdout.

One request object per line, one response line each, in order::

    {"id": 1, "cmd": "legal", "position": {...}}
    {"id": 1, "result": [...]}
    {"id": 2, "cmd": "apply", "position": {...}, "move": {"action": "throw", "card": "KH"}}
    {"id": 2, "error": {"code": "illegal_move", "message": "illegal move 'KH': ..."}}

Commands: ``new_deal`` (``seed``, optional ``dealer``, ``rules``), ``legal`` (``position``,
optional ``limit``, default 10,000, and ``card``, e.g. ``"KH"``: only that card's moves),
``apply`` (``position``, ``move``), ``score`` (``position``), ``next_deal`` (``position``,
``seed``), ``view`` (``position``, ``seat``: that seat's docs/format.md view) and ``bot`` (``bot``:
a bot name or difficulty, ``view``, ``seed``; answers ``{"move": M, "reason": "..."}``).
Error codes: ``bad_json``, ``bad_request``, ``unknown_command``, ``invalid_position``,
``malformed_move``, ``illegal_move``, ``unknown_bot``, ``too_large``, ``too_many_moves``,
``internal_error``. ``too_many_moves`` answers a ``legal`` list longer than its ``limit``
without listing it; the error carries ``total``, ``limit`` and ``counts`` (the number of legal
moves of each card of the hand), so the client asks again card by card::

    {"id": 3, "error": {"code": "too_many_moves", "message": "...", "total": 1663906,
     "limit": 10000, "counts": {"8S": 1, "9H": 43008, ...}}}
The process never dies on input; it ends at the end of stdin.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

from . import protocol
from .errors import (
    BadRequestError,
    IllegalMoveError,
    InvalidPositionError,
    InvalidRulesError,
    MalformedMoveError,
    NotationError,
    SeepError,
    TooManyMovesError,
)

__all__ = ["COMMANDS", "handle_line", "handle_request", "serve"]

MAX_LINE = 1 << 20  # 1 MiB: a position is about 1 KiB

# Command name -> (function, required fields, optional fields).
COMMANDS: dict[str, tuple[Callable[..., Any], tuple[str, ...], tuple[str, ...]]] = {
    "new_deal": (protocol.new_deal, ("seed",), ("dealer", "rules")),
    "legal": (protocol.legal, ("position",), ("limit", "card")),
    "apply": (protocol.apply, ("position", "move"), ()),
    "score": (protocol.score, ("position",), ()),
    "next_deal": (protocol.next_deal, ("position", "seed"), ()),
    "view": (protocol.view, ("position", "seat"), ()),
    "bot": (lambda **kw: ask_bot(**kw), ("bot", "view", "seed"), ()),
}


def ask_bot(bot: Any, view: Any, seed: Any) -> dict[str, Any]:
    """A bot's move for a docs/format.md view (the ``bot`` command). Bots are an optional layer
    above the core, so they are imported only here."""
    import random

    from .bots import make_bot
    from .view import View

    if not isinstance(bot, str):
        raise BadRequestError(f"'bot' must be a bot name, got {bot!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise BadRequestError(f"'seed' must be an integer, got {seed!r}")
    v = View.from_dict(view)
    if not v.is_my_turn():
        raise IllegalMoveError(
            f"it is not seat {v.seat}'s turn (seat {v.to_move} is to move): no move to choose"
        )
    decision = make_bot(bot).choose(v, random.Random(seed))
    return {"move": decision.move.to_dict(), "reason": decision.reason}


def _error(req_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": req_id, "error": {"code": code, "message": message}}


def handle_request(request: Any) -> dict[str, Any]:
    """Answer one decoded request object."""
    if not isinstance(request, dict):
        return _error(None, "bad_request", "a request must be a JSON object")
    req_id = request.get("id")
    cmd = request.get("cmd")
    if cmd is None:
        return _error(req_id, "bad_request", "the request has no 'cmd'")
    if cmd not in COMMANDS:
        return _error(
            req_id,
            "unknown_command",
            f"unknown command {cmd!r} (known: {', '.join(COMMANDS)})",
        )
    func, required, optional = COMMANDS[cmd]
    missing = [f for f in required if f not in request]
    if missing:
        return _error(req_id, "bad_request", f"{cmd} needs the field(s) {', '.join(missing)}")
    extra = [k for k in request if k not in (*required, *optional, "id", "cmd")]
    if extra:
        return _error(req_id, "bad_request", f"{cmd} has no field(s) {', '.join(extra)}")
    kwargs = {k: request[k] for k in (*required, *optional) if k in request}
    try:
        return {"id": req_id, "result": func(**kwargs)}
    except BadRequestError as exc:
        return _error(req_id, "bad_request", str(exc))
    except TooManyMovesError as exc:
        answer = _error(req_id, "too_many_moves", str(exc))
        answer["error"].update(total=exc.total, limit=exc.limit, counts=exc.counts)
        return answer
    except MalformedMoveError as exc:
        return _error(req_id, "malformed_move", str(exc))
    except IllegalMoveError as exc:
        return _error(req_id, "illegal_move", str(exc))
    except (InvalidPositionError, InvalidRulesError, NotationError) as exc:
        return _error(req_id, "invalid_position", str(exc))
    except SeepError as exc:
        from .bots.base import UnknownBotError

        if isinstance(exc, UnknownBotError):
            return _error(req_id, "unknown_bot", str(exc))
        return _error(req_id, "bad_request", str(exc))
    except Exception as exc:  # the process must survive anything a client sends
        return _error(req_id, "internal_error", f"{type(exc).__name__}: {exc}")


def handle_line(line: str) -> dict[str, Any]:
    """Answer one request line."""
    if len(line) > MAX_LINE:
        return _error(None, "too_large", f"a request line may hold at most {MAX_LINE} bytes")
    try:
        request = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        return _error(None, "bad_json", f"the line is not valid JSON: {exc}")
    return handle_request(request)


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Serve requests until the end of ``stdin``; returns the exit status (0)."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    while True:
        line = inp.readline(MAX_LINE + 1)
        if not line:
            return 0
        if len(line) > MAX_LINE and not line.endswith("\n"):
            # Skip the rest of an oversized line so the next request starts cleanly.
            while True:
                more = inp.readline(MAX_LINE)
                if not more or more.endswith("\n"):
                    break
        if not line.strip():
            continue
        response = handle_line(line)
        out.write(json.dumps(response, separators=(",", ":")) + "\n")
        out.flush()

"""Log lines about a client at most once a minute, and the filters on uvicorn's own lines that
a client could otherwise multiply."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

__all__ = ["DropLines", "LogLimiter", "QuietInvalidUtf8", "quiet_invalid_utf8"]


class LogLimiter:
    """Log a warning about a client at most once per ``every`` seconds; the lines held back
    are counted in the next one. Only what the server says is logged, never what the client
    sent (it may hold a seat token).

    ``template`` words the line (the client, what happened, the count held back); an internal
    error passes its exception as ``exc_info``, and only the lines logged carry its traceback.
    """

    def __init__(
        self,
        logger: logging.Logger,
        every: float = 60.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
        template: str = "bad input from %s: %s%s",
        level: int = logging.WARNING,
    ) -> None:
        self.logger = logger
        self.every = every
        self.clock = clock
        self.max_keys = max_keys
        self.template = template
        self.level = level
        self._seen: dict[str, tuple[float, int]] = {}

    def __call__(self, key: str, what: str, exc_info: BaseException | None = None) -> None:
        """``key`` did something worth a line: log ``what`` unless logged lately."""
        now = self.clock()
        last = self._seen.get(key)
        if last is not None and now - last[0] < self.every:
            self._seen[key] = (last[0], last[1] + 1)
            return
        held = last[1] if last is not None else 0
        if len(self._seen) >= self.max_keys:
            for k in [k for k, (t, _) in self._seen.items() if now - t >= self.every]:
                del self._seen[k]
            while len(self._seen) >= self.max_keys:
                del self._seen[next(iter(self._seen))]
        self._seen[key] = (now, 0)
        more = f" ({held} more since the last line)" if held else ""
        self.logger.log(self.level, self.template, key, what, more, exc_info=exc_info)


class DropLines(logging.Filter):
    """Drops the records whose message is one of ``messages``: uvicorn's lines that the
    server logs itself, limited per client (uvicorn would log one per request)."""

    def __init__(self, messages: Iterable[str]) -> None:
        super().__init__()
        self.messages = frozenset(messages)

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a message to drop."""
        return record.msg not in self.messages


class QuietInvalidUtf8(logging.Filter):
    """uvicorn logs a traceback for every WebSocket text frame that is not UTF-8 (it closes the
    socket with 1007, rightly): this filter keeps one plain line a minute instead (uvicorn
    does not say which client sent it)."""

    MESSAGE = "Invalid UTF-8 sequence received from client."

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self._last: float | None = None
        self._held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        """Let every other record through; this one without traceback, once a minute."""
        if record.msg != self.MESSAGE:
            return True
        now = self.clock()
        if self._last is not None and now - self._last < self.every:
            self._held += 1
            return False
        more = f" ({self._held} more since the last line)" if self._held else ""
        self._last, self._held = now, 0
        record.msg = "bad input from a socket: a text frame that is not UTF-8 (closed, 1007)%s"
        record.args = (more,)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
        return True


def quiet_invalid_utf8(logger: logging.Logger | None = None) -> None:
    """Install :class:`QuietInvalidUtf8` on uvicorn's error logger (once)."""
    logger = logger or logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietInvalidUtf8) for f in logger.filters):
        logger.addFilter(QuietInvalidUtf8())

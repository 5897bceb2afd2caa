"""A progress bar on stderr for long arena runs.

Plain text redrawn with ``\\r`` when stderr is a terminal, or `rich`'s bar when that package
happens to be installed (it is optional: nothing in :mod:`seep` requires it). When stderr is
not a terminal (a pipe, a log file, CI) nothing is drawn, so ``--json`` output and logs stay
clean.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """A :data:`~seep.arena.runner.ProgressCallback` that draws ``pairs done / total``.

    Call it as ``bar(done, total, deals)``; :meth:`close` ends the line. ``enabled=None``
    draws only when ``stream`` is a terminal; ``use_rich=None`` uses rich when importable.
    """

    def __init__(
        self,
        label: str = "arena",
        stream: TextIO | None = None,
        enabled: bool | None = None,
        use_rich: bool | None = None,
        width: int = 30,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _isatty(self.stream) if enabled is None else enabled
        self.label = label
        self.width = width
        self.start = time.perf_counter()
        self._last = 0.0
        self._drawn = False
        self._rich: Any = None
        self._task: Any = None
        if self.enabled and use_rich is not False:
            self._rich = _make_rich(self.stream)  # None when rich is missing: plain text

    def __call__(self, done: int, total: int, deals: int) -> None:
        if not self.enabled:
            return
        if self._rich is not None:
            if self._task is None:
                self._rich.start()
                self._task = self._rich.add_task(self.label, total=total, deals=deals)
            self._rich.update(self._task, completed=done, deals=deals)
            return
        now = time.perf_counter()
        # Redrawing costs little, but ten times a second is all a reader can follow.
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        elapsed = now - self.start
        frac = done / total if total else 1.0
        filled = int(self.width * frac)
        bar = "#" * filled + "-" * (self.width - filled)
        rate = deals / elapsed if elapsed > 0 else 0.0
        eta = (elapsed / done) * (total - done) if done else 0.0
        line = (
            f"\r{self.label} [{bar}] {done}/{total} pairs  {deals} deals  "
            f"{rate:,.0f} deals/s  eta {_clock(eta)} "
        )
        self.stream.write(line)
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Finish the bar (a newline after the plain one, so output starts on a fresh line)."""
        if self._rich is not None and self._task is not None:
            self._rich.stop()
        elif self._drawn:
            self.stream.write("\n")
            self.stream.flush()
        self._drawn = False


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


def _make_rich(stream: TextIO) -> Any:
    """A rich ``Progress`` writing to ``stream``, or ``None`` when rich is not installed."""
    try:
        from rich.console import Console  # type: ignore[import-not-found,unused-ignore]
        from rich.progress import (  # type: ignore[import-not-found,unused-ignore]
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
    except ImportError:
        return None
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("pairs  {task.fields[deals]} deals"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(file=stream),
        transient=False,
    )

"""The open tables each client (and each wider network of it) created, to cap them."""

from __future__ import annotations

from collections.abc import Callable

from .clients import NETWORK_FACTORS, networks

__all__ = ["NetworkOpenTables", "OpenTables"]


class OpenTables:
    """The open tables each client created, to cap them; ``is_open(code)`` says whether a
    table still counts (a finished or closed one no longer does)."""

    def __init__(self, is_open: Callable[[str], bool]) -> None:
        self.is_open = is_open
        self._codes: dict[str, set[str]] = {}

    def count(self, key: str) -> int:
        """How many of ``key``'s tables are still open."""
        codes = self._codes.get(key)
        if codes is None:
            return 0
        codes.intersection_update([c for c in codes if self.is_open(c)])
        if not codes:
            del self._codes[key]
            return 0
        return len(codes)

    def add(self, key: str, code: str) -> None:
        """``key`` created the table ``code``."""
        self._codes.setdefault(key, set()).add(code)


class NetworkOpenTables:
    """Open tables per client key and per wider network (:func:`networks`): at most ``limit``
    per client, twice that per /56, four times per /48 (``limit`` 0: no limit). ``is_open``
    says whether a table still counts."""

    def __init__(self, limit: int, is_open: Callable[[str], bool]) -> None:
        self.limit = limit
        self._tables = OpenTables(is_open)

    def count(self, key: str) -> int:
        """How many of ``key``'s own tables are open."""
        return self._tables.count(key)

    def over(self, key: str) -> tuple[str, int] | None:
        """The network that holds its cap of open tables, with that cap; or None."""
        if self.limit <= 0:
            return None
        for net, factor in zip(networks(key), NETWORK_FACTORS, strict=False):
            cap = self.limit * factor
            if self._tables.count(net) >= cap:
                return net, cap
        return None

    def add(self, key: str, code: str) -> None:
        """``key`` created (or rematched into) the table ``code``."""
        for net in networks(key):
            self._tables.add(net, code)

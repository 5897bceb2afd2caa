"""Kept only for ``src/seep/web/tables.py``, which still imports :func:`replay_record` from here
(issue 24): the game loop is :class:`seep.session.Session`, which writes and reads
docs/format.md game records, and :func:`seep.session.replay_record` checks one move by move.
This module goes once that import names :mod:`seep.session`.
"""

from __future__ import annotations

from .session import replay_record

__all__ = ["replay_record"]

"""Which core runs: ``make pytest-pure`` runs the core tests with ``SEEP_PURE=1`` on a copy of
the sources without the compiled modules, and this guard makes sure it really is pure."""

from __future__ import annotations

import os

import seep


def test_the_pure_run_is_pure_python() -> None:
    if os.environ.get("SEEP_PURE"):
        assert seep.COMPILED is False
        assert seep.Position.__module__ == "seep.engine"
    assert isinstance(seep.COMPILED, bool)

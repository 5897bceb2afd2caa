"""The build: the pure-Python package, with the core compiled by mypyc where it can be.

Everything else is in pyproject.toml. The core modules listed in ``COMPILED_MODULES`` are
compiled to C extensions with mypyc (it ships with mypy) when the package is built on a
machine with a C compiler. ``SEEP_PURE=1``, or a build that fails (no compiler, no mypy),
gives the pure-Python package: the same source, the same behaviour (``seep.COMPILED`` and
``seep --version`` tell which one runs). ``make test`` compiles in place
(``python setup.py build_ext --inplace``) and tests both.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The hot path of the core. seep.moves stays pure: Move is an int subclass (mypyc cannot
# compile one), kept off the hot path (the engine works on plain int codes). seep.options
# stays pure too: a compiled dataclass checks its field types before __post_init__ can name
# the bad option, and Rules is built once per game.
COMPILED_MODULES = (
    "errors",
    "cards",
    "codes",
    "floor",
    "scoring",
    "baazi",
    "verify",
    "engine",
    "counting",
    # Above the core, compiled for the same reason: the search's playouts are its hot path.
    "view",
    "bots/ismcts",
    # The research environments' hot path (numpy-free): the sub-decision builder and the
    # observations and random bots of every step.
    "integrations/actions",
    "integrations/hotpath",
    # The search's other hot modules: the leaf evaluation, the weighted deals, the endgame
    # solver (each called thousands of times a move).
    "bots/valuenet",
    "bots/inference",
    "bots/endgame",
    # The heuristic's scoring: the search's shortlist, and the model of the other seats'
    # choices that the choices' weights (bots/likelihood) score each particle with.
    "bots/tactics",
    "bots/heuristic",
    "bots/likelihood",
    # The frozen search (expert@1, hard@1): the arena's yardstick, compiled as it was when it
    # was today's search (the same moves, tests/test_frozen_bots.py).
    "bots/ismcts_v1",
    # OpenSpiel's python_seep state: what a rollout asks on every action.
    "integrations/spielcore",
)


class TolerantBuildExt(build_ext):
    """build_ext that falls back to the pure-Python package when compiling fails: all or
    nothing, since the compiled modules share one library (a module compiled without it
    could not be imported)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, a C error: pure Python still works
            build_py = self.get_finalized_command("build_py")
            for ext in self.extensions:
                package = ext.name.rpartition(".")[0]
                name = os.path.basename(self.get_ext_filename(ext.name))
                inplace = os.path.join(build_py.get_package_dir(package), name)
                for path in (self.get_ext_fullpath(ext.name), inplace):
                    if os.path.exists(path):
                        os.remove(path)
            print(f"seep: compiling the core failed ({exc}); pure Python", file=sys.stderr)


def _ext_modules() -> list[Any]:
    if os.environ.get("SEEP_PURE"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("seep: mypy (mypyc) is not installed; pure Python", file=sys.stderr)
        return []
    try:
        return list(
            mypycify(
                [f"src/seep/{name}.py" for name in COMPILED_MODULES],
                opt_level="3",
                group_name="seep.core",
            )
        )
    except Exception as exc:  # a type error mypyc finds: build pure
        print(f"seep: mypyc failed ({exc}); pure Python", file=sys.stderr)
        return []


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": TolerantBuildExt})

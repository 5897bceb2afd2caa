"""pytest under src: the doctests of the core modules that run compiled are collected from the
pure-Python copy instead (``make pytest-pure``): a compiled module is not a file pytest can
import by its path."""

import seep

_COMPILED_MODULES = (
    "errors",
    "cards",
    "codes",
    "floor",
    "scoring",
    "baazi",
    "verify",
    "engine",
    "counting",
    "view",
    "bots/ismcts",
)  # fmt: skip  (setup.py's COMPILED_MODULES)

collect_ignore = [f"seep/{name}.py" for name in _COMPILED_MODULES] if seep.COMPILED else []

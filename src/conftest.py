"""pytest under src: the doctests of the core modules that run compiled are collected from the
pure-Python copy instead (``make pytest-pure``): a compiled module is not a file pytest can
import by its path. Which modules those are follows from the build's output (an extension
module beside its source), so the list lives in setup.py alone."""

from pathlib import Path

_HERE = Path(__file__).parent

collect_ignore = sorted(
    str(so.with_name(so.name.split(".", 1)[0] + ".py").relative_to(_HERE))
    for so in (_HERE / "seep").rglob("*.so")
)
# Alembic's environment runs the migrations when it is imported, so only Alembic imports it.
collect_ignore.append("seep/web/migrations/env.py")

"""The module graph of ``seep``: no import cycle, and a core of the standard library only.

Every ``import`` statement of every module counts, function-level ones included; only the
imports under ``if TYPE_CHECKING:`` do not, since they never run (the checker module names the
``Position`` type that way).
"""

from __future__ import annotations

import ast
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "seep"

#: The core (HELPERS.md "Layers one way"): standard library only, and nothing above it.
CORE = {
    "seep",
    "seep.baazi",
    "seep.cards",
    "seep.codes",
    "seep.counting",
    "seep.engine",
    "seep.errors",
    "seep.floor",
    "seep.format",
    "seep.match",
    "seep.mover",
    "seep.moves",
    "seep.notation",
    "seep.options",
    "seep.protocol",
    "seep.scoring",
    "seep.svg",
    "seep.verify",
    "seep.view",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, name: str) -> set[str]:
    """Every module ``name`` imports (absolute names), at any depth of the code."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[: -(node.level - 1)]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            # ``from . import x`` / ``from .bots import greedy``: x may be a module itself; the
            # package counts only when a name is taken from it.
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                out.add(sub if _exists(sub) else mod)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _exists(name: str) -> bool:
    if not name.startswith("seep"):
        return False
    rel = Path(*name.split("."))
    return (SRC / rel).with_suffix(".py").exists() or (SRC / rel / "__init__.py").exists()


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        graph[name] = {m for m in _imports(path, name) if m == "seep" or m.startswith("seep.")}
    return graph


def _parent_packages(name: str) -> set[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_cycle() -> None:
    graph = _graph()
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")
    assert set(graph) <= set(order)


def test_core_imports_only_the_standard_library_and_the_core() -> None:
    stdlib = set(sys.stdlib_module_names)
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        if name not in CORE:
            continue
        for mod in _imports(path, name):
            top = mod.split(".")[0]
            if top == "seep":
                assert mod in CORE | _parent_packages(mod) or mod in CORE, (
                    f"{name} imports {mod}, which is not part of the core"
                )
            else:
                assert top in stdlib or top == "__future__", (
                    f"{name} imports {mod}, which is not in the standard library"
                )


def test_graph_sees_function_level_imports() -> None:
    """The parser finds an import inside a function (a regression guard for the walk)."""
    graph = _graph()
    assert {"seep.bots.greedy", "seep.bots.ismcts"} <= graph["seep.bots.registry"]


def test_protocol_server_imports_no_bot_until_asked() -> None:
    """The bot layer is optional above the core: serving the protocol loads it only for the
    ``bot`` command."""
    import subprocess

    script = (
        "import sys, seep.protocol_server as s\n"
        "assert not [m for m in sys.modules if m.startswith('seep.bots')], sys.modules\n"
        "s.handle_request({'id': 1, 'cmd': 'new_deal', 'seed': 1})\n"
        "assert not [m for m in sys.modules if m.startswith('seep.bots')]\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr

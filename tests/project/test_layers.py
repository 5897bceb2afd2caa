"""The module graph of ``seep``: no import cycle, a core of the standard library only, and the
web package's layers one way (:data:`WEB_LAYERS`).

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

SRC = Path(__file__).resolve().parents[2] / "src"
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
    "seep.mover",
    "seep.moves",
    "seep.notation",
    "seep.options",
    "seep.protocol",
    "seep.scoring",
    "seep.session",
    "seep.svg",
    "seep.verify",
    "seep.view",
}

#: The web package's order (docs/web.md "Layers"), lowest first. A module imports modules of its
#: own layer and of the layers below, never one above (two of one layer may import each other
#: one way: test_no_import_cycle). An entry names a module and, when it is a package, every
#: module in it. Every module of ``seep.web`` is in exactly one layer: a new module fails
#: test_every_web_module_has_a_layer until it is given its place here.
WEB_LAYERS: list[tuple[str, frozenset[str]]] = [
    # What the tables and the app are made of: no table, no web framework.
    (
        "parts",
        frozenset(
            {
                "seep.web.botpool",
                "seep.web.limits",
                "seep.web.logformat",
                "seep.web.matchmaking",
                "seep.web.messages",
                "seep.web.metrics",
                "seep.web.names",
                "seep.web.offline_assets",
                "seep.web.pwa",
                "seep.web.ratings",
                "seep.web.review",
                "seep.web.settings",
                "seep.web.social",
                # Events' pure decisions: Swiss, arena, duplicate (no table, no store).
                "seep.web.tournament",
            }
        ),
    ),
    # Persistence: the store and its schema's revisions, the moves' writer thread; it does not
    # know the tables.
    (
        "store",
        frozenset(
            {
                "seep.web.database",
                "seep.web.group_commit",
                "seep.web.migrations",
                "seep.web.schema",
                "seep.web.store",
                "seep.web.store_accounts",
                "seep.web.store_event_rounds",
                "seep.web.store_events",
                "seep.web.store_leases",
                "seep.web.store_moderation",
                "seep.web.store_passkeys",
                "seep.web.store_push",
                "seep.web.store_ratings",
                "seep.web.store_reads",
            }
        ),
    ),
    # The operator's commands on the store (``seep db``).
    ("store commands", frozenset({"seep.web.admincommands", "seep.web.dbcommands"})),
    # The tables and what drives them, no web framework, lowest first: what goes on the wire,
    # one table, the connections, the services a table is driven by, the keeper of the tables
    # (the one commit path), the message handlers, the socket's way in, the manager's face.
    # Accounts over the store: names, passwords, passkeys, sessions, the limits on guessing;
    # players' profiles and the leaderboards.
    # Moderation's bans and mutes, read from the store every few seconds.
    (
        "accounts",
        frozenset(
            {"seep.web.accounts", "seep.web.moderation", "seep.web.passkeys", "seep.web.profiles"}
        ),
    ),
    ("wire", frozenset({"seep.web.statetext", "seep.web.wire"})),
    # A table's game (standard library only: the browser's offline host shares it) under the
    # server's table.
    ("table", frozenset({"seep.web.game", "seep.web.table"})),
    # The offline table's host, run under Pyodide in the browser's worker: the game and the wire.
    ("offline", frozenset({"seep.web.offline"})),
    ("hub", frozenset({"seep.web.hub"})),
    (
        "drive",
        frozenset(
            {
                "seep.web.cluster",
                "seep.web.driver",
                "seep.web.practice",
                "seep.web.push",
                "seep.web.pusher",
                "seep.web.records",
                "seep.web.shown_ratings",
                "seep.web.tablecodes",
                "seep.web.thinking",
            }
        ),
    ),
    ("keeper", frozenset({"seep.web.keeper"})),
    ("handlers", frozenset({"seep.web.game_handlers", "seep.web.social_handlers"})),
    ("inbox", frozenset({"seep.web.inbox", "seep.web.presence"})),
    (
        "tables",
        frozenset({"seep.web.owners", "seep.web.strength", "seep.web.tables"}),
    ),
    # The lobby's list and quick match, over the manager's tables.
    ("lobby", frozenset({"seep.web.lobby"})),
    # Events' runner: their rounds' tables opened through the manager, their results read.
    (
        "events",
        frozenset(
            {
                "seep.web.events",
                "seep.web.events_arena",
                "seep.web.events_page",
                "seep.web.events_runner",
            }
        ),
    ),
    # The app's plumbing under its routes: ASGI middlewares, the lifespan.
    ("asgi", frozenset({"seep.web.lifespan", "seep.web.middleware"})),
    ("routes", frozenset({"seep.web.routes"})),
    ("app", frozenset({"seep.web.app"})),
    # Serving it: uvicorn's protocol, and the package's own create_app.
    ("serving", frozenset({"seep.web", "seep.web.server"})),
]
#: The layers that import no web framework (through "tables": they run without one).
FRAMEWORK_FREE = (
    "parts",
    "store",
    "store commands",
    "wire",
    "table",
    "offline",
    "hub",
    "drive",
    "keeper",
    "handlers",
    "inbox",
    "tables",
    "lobby",
    "events",
)
WEB_FRAMEWORKS = frozenset({"fastapi", "starlette", "uvicorn", "h11", "websockets"})


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


def _web_layer(name: str) -> int | None:
    """The index in :data:`WEB_LAYERS` of the layer ``name`` is in (the longest entry that
    covers it), or None. ``seep.web`` covers only itself, not the package's modules."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(WEB_LAYERS):
        for entry in entries:
            covers = name == entry or (entry != "seep.web" and name.startswith(entry + "."))
            if covers and (best is None or len(entry) > best[1]):
                best = (index, len(entry))
    return best[0] if best is not None else None


def _web_modules(graph: dict[str, set[str]]) -> list[str]:
    return sorted(m for m in graph if m == "seep.web" or m.startswith("seep.web."))


def test_every_web_module_has_a_layer() -> None:
    graph = _graph()
    for name in _web_modules(graph):
        assert _web_layer(name) is not None, (
            f"{name} has no layer: add it to WEB_LAYERS in tests/test_layers.py (a module "
            "carved from tables.py goes in the 'tables' group)"
        )
    modules = set(graph)
    for layer, entries in WEB_LAYERS:
        for entry in entries:
            assert any(m == entry or m.startswith(entry + ".") for m in modules), (
                f"WEB_LAYERS' {layer!r} names {entry}, which is no module"
            )


def test_web_imports_go_down_the_layers() -> None:
    graph = _graph()
    for name in _web_modules(graph):
        mine = _web_layer(name)
        assert mine is not None
        for mod in sorted(graph[name]):
            theirs = _web_layer(mod)
            if theirs is None or mod in _parent_packages(name):
                continue  # the core, the bots: below the whole web package
            assert theirs <= mine, (
                f"{name} (layer {WEB_LAYERS[mine][0]!r}) imports {mod} (layer "
                f"{WEB_LAYERS[theirs][0]!r}, above it)"
            )


def test_tables_and_their_parts_import_no_web_framework() -> None:
    free = {i for i, (layer, _) in enumerate(WEB_LAYERS) if layer in FRAMEWORK_FREE}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        if _web_layer(name) not in free:
            continue
        for mod in _imports(path, name):
            assert mod.split(".")[0] not in WEB_FRAMEWORKS, (
                f"{name} imports {mod}: the {WEB_LAYERS[_web_layer(name) or 0][0]!r} layer "
                "runs without a web framework"
            )


def test_web_graph_sees_imports_in_subpackages() -> None:
    """A regression guard for the walk: ``from ..x import`` two packages down, and a route
    importing its sibling."""
    graph = _graph()
    assert "seep.web.limits" in graph["seep.web.routes.gate"]
    assert "seep.web.routes.gate" in graph["seep.web.routes.lobby"]


#: Issue 24: "no file in src/seep/web/ over about 400 lines". A module past this does more than
#: one job and is split by job (the keeper's thinking went to ``thinking``, the lobby to
#: ``lobby``, the push rules from the pusher...).
WEB_MODULE_LINES = 450
#: Declarations, not code: the database's tables in one SQLAlchemy metadata, read as one.
LONG_ON_PURPOSE = {"seep.web.schema"}


def test_no_web_module_is_over_about_400_lines() -> None:
    over = {}
    for path in sorted((PACKAGE / "web").rglob("*.py")):
        if "versions" in path.parts or _module_name(path) in LONG_ON_PURPOSE:
            continue  # the schema's revisions are a history, each short
        lines = len(path.read_text().splitlines())
        if lines > WEB_MODULE_LINES:
            over[_module_name(path)] = lines
    assert not over, f"split these by job (at most {WEB_MODULE_LINES} lines): {over}"

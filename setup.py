"""The build: the pure-Python package, with the core compiled by mypyc where it can be.

Everything else is in pyproject.toml. The core modules listed in ``COMPILED_MODULES`` are
compiled to C extensions with mypyc (it ships with mypy) when the package is built on a
machine with a C compiler. ``SEEP_PURE=1``, or a build that fails (no compiler, no mypy),
gives the pure-Python package: the same source, the same behaviour (``seep.COMPILED`` and
``seep --version`` tell which one runs). ``make test`` compiles in place
(``python setup.py build_ext --inplace``) and tests both.
"""

from __future__ import annotations

import ast
import os
import re
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
    "mover",
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
    # The easy bot: the web server makes its moves on the event loop, three of a table's four
    # seats (bench/server.py: a sixth of the server's CPU a move when interpreted).
    "bots/greedy",
    # The frozen search (expert@1, hard@1): the arena's yardstick, compiled as it was when it
    # was today's search (the same moves, tests/bots/test_frozen_bots.py).
    "arena/ismcts_v1",
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


# --- docstrings for the compiled core -----------------------------------------------------
# mypyc gives a compiled function its text signature (for inspect.signature) but not its
# docstring, a compiled class no docstring, a property or module none either: help() and
# inspect.getdoc show nothing on the compiled core. The docstrings are put into the C that
# mypyc writes, before it is compiled, where CPython reads a builtin's: the PyMethodDef and
# PyGetSetDef docs, the type's tp_doc and the module's m_doc. Nothing runs differently (the
# same C functions; a longer string beside each).

# A C string literal as mypyc writes one (no quote inside but escaped).
_C_STR = r'(?:NULL|"(?:[^"\\]|\\.)*")'
_METHOD_DEF = re.compile(
    r'(\{"[^"]+",\s*\(PyCFunction\)CPyPy_(\w+),\s*[^,{}]+?,\s*PyDoc_STR\()(' + _C_STR + r")\)"
)
_TYPE_DEF = re.compile(
    r"(static PyTypeObject CPyType_(\w+)_template_ = \{(?:(?!\};).)*?\.tp_doc = PyDoc_STR\()("
    + _C_STR
    + r")\)",
    re.S,
)
_GETSET_DEF = re.compile(
    r'(\{"[^"]+",\s*\(getter\)(\w+)_get_(\w+),\s*(?:\(setter\)\w+|NULL),\s*)NULL'
)
_MODULE_DEF = re.compile(
    r'(static struct PyModuleDef \w+module = \{\s*PyModuleDef_HEAD_INIT,\s*"([\w.]+)",\s*)NULL'
)


def _c_string(text: str) -> str:
    """A C string literal of ``text`` (UTF-8), with octal escapes: unlike hex escapes they
    never run on into the next character."""
    out = []
    for byte in text.encode("utf-8"):
        if byte == 10:
            out.append("\\n")
        elif 32 <= byte < 127 and chr(byte) not in '"\\?':
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _c_text(literal: str) -> str:
    """The text of a C string literal as mypyc writes them (ASCII with backslash escapes)."""
    if literal == "NULL":
        return ""
    return literal[1:-1].encode("ascii").decode("unicode_escape")


class _Docs:
    """The docstrings of the compiled modules' sources, keyed as mypyc names their C
    functions and types (the module's short prefix, then the qualified name, dots as ___)."""

    def __init__(self, modules: dict[str, str]) -> None:
        from mypyc.namegen import exported_name, make_module_translation_map

        prefixes = make_module_translation_map(list(modules))
        self.by_cname: dict[str, str] = {}
        self.by_module: dict[str, str] = {}
        self.properties: dict[tuple[str, str], str] = {}
        self.has_init: set[str] = set()
        for module, path in modules.items():
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            self.by_module[module] = ast.get_docstring(tree) or ""
            prefix = prefixes[module]
            for node in tree.body:
                if isinstance(node, ast.FunctionDef):
                    self._add(exported_name(prefix + node.name), node)
                elif isinstance(node, ast.ClassDef):
                    cls = exported_name(prefix + node.name)
                    self._add(cls, node)
                    for item in node.body:
                        if not isinstance(item, ast.FunctionDef):
                            continue
                        names = {getattr(d, "id", "") for d in item.decorator_list}
                        doc = ast.get_docstring(item)
                        if "property" in names:
                            if doc:
                                self.properties[cls, item.name] = doc
                            continue
                        if item.name == "__init__":
                            self.has_init.add(cls)
                        self._add(exported_name(prefix + node.name + "." + item.name), item)

    def _add(self, cname: str, node: ast.FunctionDef | ast.ClassDef) -> None:
        doc = ast.get_docstring(node)
        if doc:
            self.by_cname[cname] = doc

    def _with_signature(self, literal: str, doc: str, keep_signature: bool = True) -> str:
        # CPython reads "name(signature)\n--\n\n" at the start of a builtin's doc as its
        # __text_signature__ and the rest as its __doc__.
        head = _c_text(literal) if keep_signature else ""
        return _c_string(head + doc)

    def patch(self, c_source: str) -> str:
        def method(m: re.Match[str]) -> str:
            doc = self.by_cname.get(m.group(2))
            if not doc:
                return m.group(0)
            return f"{m.group(1)}{self._with_signature(m.group(3), doc)})"

        def type_doc(m: re.Match[str]) -> str:
            cname = m.group(2)
            doc = self.by_cname.get(cname)
            if not doc:
                return m.group(0)
            # Without an __init__ of its own mypyc signs a class "Name()", which is wrong for
            # an exception or a dataclass: leave inspect to find the inherited __init__.
            keep = cname in self.has_init
            return f"{m.group(1)}{self._with_signature(m.group(3), doc, keep)})"

        def getset(m: re.Match[str]) -> str:
            doc = self.properties.get((m.group(2), m.group(3)))
            return m.group(1) + _c_string(doc) if doc else m.group(0)

        def module(m: re.Match[str]) -> str:
            doc = self.by_module.get(m.group(2))
            return m.group(1) + _c_string(doc) if doc else m.group(0)

        c_source = _METHOD_DEF.sub(method, c_source)
        c_source = _TYPE_DEF.sub(type_doc, c_source)
        c_source = _GETSET_DEF.sub(getset, c_source)
        return _MODULE_DEF.sub(module, c_source)


def _embed_docstrings(extensions: list[Any]) -> None:
    """Put the sources' docstrings into the C of ``extensions`` (see _Docs), in place."""
    modules = {"seep." + name.replace("/", "."): f"src/seep/{name}.py" for name in COMPILED_MODULES}
    docs = _Docs(modules)
    for ext in extensions:
        for path in ext.sources:
            if not path.endswith(".c"):
                continue
            with open(path, encoding="utf-8") as f:
                source = f.read()
            patched = docs.patch(source)
            if patched != source:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(patched)


# The setup commands that compile; the others (egg_info, dist_info, sdist: what a build
# frontend runs to ask for requirements and metadata) need no extension, and mypyc's type check
# and C generation take minutes, so they are left out there.
_BUILDING = {"build", "build_ext", "bdist", "bdist_wheel", "install", "develop", "editable_wheel"}


def _ext_modules() -> list[Any]:
    if os.environ.get("SEEP_PURE"):
        return []
    if not _BUILDING & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("seep: mypy (mypyc) is not installed; pure Python", file=sys.stderr)
        return []
    try:
        extensions = list(
            mypycify(
                [f"src/seep/{name}.py" for name in COMPILED_MODULES],
                opt_level="3",
                group_name="seep.core",
            )
        )
    except Exception as exc:  # a type error mypyc finds: build pure
        print(f"seep: mypyc failed ({exc}); pure Python", file=sys.stderr)
        return []
    try:
        _embed_docstrings(extensions)
    except Exception as exc:  # another mypyc's C: compiled all the same, without docstrings
        print(f"seep: the compiled core's docstrings were left out ({exc})", file=sys.stderr)
    return extensions


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": TolerantBuildExt})

"""Sphinx configuration of the documentation site (``make docs``: the Markdown pages of docs/
through myst-parser, the API reference from the docstrings by autodoc, the furo theme)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.transforms import Transform
from pygments.lexers import JsonLexer
from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[1]
# The package documented is the checkout's (compiled in place or not): src first on the path.
sys.path.insert(0, str(ROOT / "src"))

import seep  # noqa: E402

project = "seep"
author = "The seep developers"
copyright = "2026, The seep developers"
release = seep.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# The Markdown pages link each other by file and heading ("format.md#move") as a forge shows
# them: myst gives every heading down to level 6 the same anchor the forge does.
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence", "deflist"]

# The integrations need their optional libraries (OpenSpiel, PettingZoo, Gymnasium, numpy):
# those missing from the building environment are mocked, so the site builds without them.
_OPTIONAL = ["pyspiel", "open_spiel", "gymnasium", "pettingzoo", "numpy", "ray", "rich"]
autodoc_mock_imports = [m for m in _OPTIONAL if importlib.util.find_spec(m) is None]
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_class_signature = "separated"

html_theme = "furo"
html_title = f"seep {release}"
html_static_path: list[str] = []


# --- anchors written as HTML -------------------------------------------------------------
# docs/rules.md and docs/format.md mark their rules with HTML anchors (<a id="r44"></a>), which
# a forge shows as link targets and myst passes through as raw HTML. They become targets here,
# so that links to them ("rules.md#r44", "#s1") resolve and the site keeps the same anchors.
_ANCHOR = re.compile(r'<a id="([^"]+)">(</a>)?')


class HtmlAnchors(Transform):
    """Turn raw ``<a id="X"></a>`` (one raw node, or myst's two: the tag and ``</a>``) into
    explicit targets named ``X``."""

    default_priority = 200

    def apply(self, **kwargs: Any) -> None:
        # An anchor that repeats its heading's own slug is the heading's anchor already.
        headings = {slug for s in self.document.findall(nodes.section) for slug in s["ids"]}
        for raw in list(self.document.findall(nodes.raw)):
            if raw.get("format") != "html" or raw.parent is None:
                continue
            found = _ANCHOR.fullmatch(raw.astext().strip())
            if found is None:
                continue
            anchor = found.group(1)
            target = nodes.target("", "", ids=[anchor], names=[anchor])
            if anchor not in headings:
                self.document.note_explicit_target(target, target)
            if found.group(2) is None:
                after = raw.next_node(descend=False, siblings=True)
                if isinstance(after, nodes.raw) and after.astext().strip() == "</a>":
                    after.parent.remove(after)
            if anchor in headings:
                raw.parent.remove(raw)
            else:
                raw.replace_self(target)


def setup(app: Sphinx) -> dict[str, Any]:
    """The site's own transform (above)."""
    app.add_transform(HtmlAnchors)
    # docs/format.md's JSON-lines examples: one JSON value a line.
    app.add_lexer("jsonl", JsonLexer)
    return {"parallel_read_safe": True}

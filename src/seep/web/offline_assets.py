"""What the offline table needs from the server, once: Pyodide's runtime files and the zip of our
own Python that runs in the browser's worker (docs/web.md "Offline play").

Pyodide comes from its npm package at the version the Makefile pins (``make pyodide`` copies its
runtime files to ``seep/web/pyodide/``, ignored by git); :func:`pyodide_version` says which one is
here (``None``: none, and the offline table says so). The bundle (:func:`bundle`) is the core, the
bots and the web modules the offline host imports (:data:`BUNDLE_WEB`, all standard library
only), zipped from the installed package with fixed timestamps, so that its name
(:attr:`Bundle.url`, its digest in it) changes exactly when its contents do.

:func:`offline_assets` lists the URLs a service worker precaches for the offline table
(the app shell's files come from the static folder: seep.web.pwa's list adds these).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType

__all__ = [
    "BUNDLE_WEB",
    "PYODIDE_DIR",
    "PYODIDE_FILES",
    "Bundle",
    "bundle",
    "offered_difficulties",
    "offline_assets",
    "pyodide_version",
    "shell_assets",
]

PACKAGE = Path(__file__).resolve().parent.parent  # the installed ``seep`` package
STATIC = Path(__file__).resolve().parent / "static"
PYODIDE_DIR = Path(__file__).resolve().parent / "pyodide"
# What loadPyodide fetches from its indexURL when no package is loaded (no micropip: a package
# would come from a CDN); package.json only tells the server the version.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
#: The web modules the offline host imports (standard library and the core only).
BUNDLE_WEB = ("__init__.py", "game.py", "wire.py", "social.py", "offline.py")
# Training needs numpy or PyTorch; no bot imports these.
_BUNDLE_SKIP = {"bots/train.py", "bots/dmc.py"}
_EPOCH = (2000, 1, 1, 0, 0, 0)
#: The bots' time per move in the worker, as bench/offline.py measured it in chromium (it
#: writes this file): a difficulty is offered offline when its slowest move took under
#: :data:`ANSWER_MS`.
BOT_TIMES = Path(__file__).resolve().parent / "offline-bots.json"
ANSWER_MS = 1000.0
_SAFE = ("easy", "medium")  # offered when nothing was measured: the bots that search nothing


def pyodide_version(folder: Path = PYODIDE_DIR) -> str | None:
    """The version of the Pyodide runtime in ``folder``, or ``None`` when its files are not all
    there (run ``make pyodide``)."""
    try:
        meta = json.loads((folder / "package.json").read_text())
    except (OSError, ValueError):
        return None
    if not all((folder / name).is_file() for name in PYODIDE_FILES):
        return None
    version = meta.get("version") if isinstance(meta, dict) else None
    return version if isinstance(version, str) and version.replace(".", "").isalnum() else None


@dataclass(frozen=True)
class Bundle:
    """The zip of our sources for the worker, and its name with its digest."""

    data: bytes
    digest: str

    @property
    def url(self) -> str:
        """Where the server serves it (cached for ever: a new content is a new name)."""
        return f"/offline/seep-{self.digest}.zip"


def _sources(package: Path) -> list[tuple[str, Path]]:
    files: list[tuple[str, Path]] = [(f"seep/{p.name}", p) for p in package.glob("*.py")]
    for p in sorted((package / "bots").rglob("*")):
        rel = p.relative_to(package).as_posix()
        if p.is_file() and rel not in _BUNDLE_SKIP and p.suffix in (".py", ".json"):
            files.append((f"seep/{rel}", p))
    files += [(f"seep/web/{name}", package / "web" / name) for name in BUNDLE_WEB]
    return sorted(files)


@functools.cache
def bundle(package: Path = PACKAGE) -> Bundle:
    """The zip of the modules the offline host runs (made once per process)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, path in _sources(package):
            info = zipfile.ZipInfo(name, _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, path.read_bytes())
    data = out.getvalue()
    return Bundle(data, hashlib.sha256(data).hexdigest()[:16])


def offline_assets(version: str | EllipsisType | None = ...) -> list[str]:
    """The URLs the offline table fetches beyond the app shell: the page, Pyodide's files, our
    bundle and the worker's scripts (a service worker precaches them). ``version``: Pyodide's
    (``None``: not installed); by default the one :func:`pyodide_version` finds."""
    version = pyodide_version() if isinstance(version, EllipsisType) else version
    urls = [
        "/offline",
        "/static/js/offline.js",
        "/offline/worker.js",
        "/static/js/offline-store.js",
        bundle().url,
    ]
    if version is not None:
        urls += [f"/pyodide/{version}/{name}" for name in PYODIDE_FILES]
    return urls


def shell_assets(static: Path = STATIC) -> list[str]:
    """The page's own files (``/static/...``: its scripts, styles and images) and the favicon:
    what the offline page loads before its worker starts."""
    urls = [
        "/static/" + p.relative_to(static).as_posix()
        for p in sorted(static.rglob("*"))
        if p.is_file() and p.suffix in (".js", ".css", ".svg", ".html", ".png", ".webmanifest")
    ]
    return ["/favicon.ico", *urls]


def offered_difficulties(path: Path = BOT_TIMES) -> list[str]:
    """The difficulties the offline lobby offers: those whose slowest move in the worker took
    under a second when bench/offline.py measured them (:data:`BOT_TIMES`)."""
    try:
        bots = json.loads(path.read_text())["bots"]
        offered = [name for name, t in bots.items() if float(t["max_ms"]) < ANSWER_MS]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return list(_SAFE)
    order = ("easy", "medium", "hard", "expert")
    return [name for name in order if name in offered] or list(_SAFE)

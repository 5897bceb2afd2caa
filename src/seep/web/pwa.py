"""The installable app (docs/web.md "Installable app"): the web app manifest, the app shell
the service worker precaches, and the worker script ``/sw.js`` with its version.

The shell is every file of the static folder (less its two pages, which are served at ``/``
and ``/how-to-play``), the pages, the manifest and the favicon, plus :data:`EXTRA_PRECACHE`:
URLs other modules add (the offline table's Pyodide files and Python bundle). The version is a
hash of the contents of the shell's files, of :data:`EXTRA_VERSION_FILES` and of the file
named by ``SEEP_SHELL_VERSION_FILE`` if set, so any change of an asset makes a new worker,
which browsers install beside the old one (the page lets it in at the end of a deal:
static/js/pwa.js). No web framework here: the routes are in :mod:`seep.web.routes.pages`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "APP_PAGES",
    "BACKGROUND_COLOUR",
    "EXTRA_IMMUTABLE",
    "EXTRA_PRECACHE",
    "EXTRA_VERSION_FILES",
    "ICONS",
    "MANIFEST_MEDIA_TYPE",
    "NEVER_CACHED",
    "SHELL_PAGES",
    "STATIC",
    "THEME_COLOUR",
    "VERSION_FILE_VARIABLE",
    "Shell",
    "manifest",
    "precache_urls",
    "shell_version",
    "worker_script",
]

STATIC = Path(__file__).parent / "static"
_WORKER = Path(__file__).parent / "pwa_worker.js"

#: URLs the worker precaches besides the static folder's files: a module that serves more of
#: the app shell (the offline table: ``/pyodide/...``, the Python bundle) appends them at import
#: or when the app is built, before the first ``/sw.js`` is served.
EXTRA_PRECACHE: list[str] = []
#: URLs of :data:`EXTRA_PRECACHE` whose bytes never change (a version or a digest is in the
#: name): a new version's worker takes them from the old version's cache instead of the network.
EXTRA_IMMUTABLE: list[str] = []
#: Files whose contents the version covers besides the static folder's (those behind
#: :data:`EXTRA_PRECACHE`), so a change of them makes a new worker too.
EXTRA_VERSION_FILES: list[Path] = []
#: A file whose contents join the version: an operator changes it to make every browser take
#: a new worker without a release; the browser test changes it mid-game.
VERSION_FILE_VARIABLE = "SEEP_SHELL_VERSION_FILE"

#: The pages of the shell: every other page route (``/t/...``, ``/replay/...``, ``/u/...``,
#: ``/leaderboard``, ``/events/...``) is the same index.html, served from the cache of ``/``
#: when offline.
SHELL_PAGES = ("/", "/how-to-play")
_ROOT_FILES = ("/manifest.webmanifest", "/favicon.ico")
#: The single page app's routes (regular expressions of a path, JavaScript syntax): offline, a
#: page at any of them is the cached ``/`` (index.html). A module adding a page route of the
#: single page app (the offline table) appends its own.
APP_PAGES: list[str] = [
    r"^/$",
    r"^/t/[^/]+/?$",
    r"^/replay/[^/]+/?$",
    r"^/u/[^/]+/?$",
    r"^/leaderboard/?$",
    r"^/events/[^/]+/?$",
]
#: What the worker never answers from a cache: the server's live answers.
NEVER_CACHED = ("/api/", "/ws/", "/metrics", "/readyz", "/healthz", "/sw.js")
# Served at their own routes (SHELL_PAGES), not under /static.
_PAGE_FILES = frozenset({"index.html", "how-to-play.html"})

#: seep.css's ``--felt-dark`` (the page's background behind the felt) and ``--felt``.
THEME_COLOUR = "#124a2f"
BACKGROUND_COLOUR = "#124a2f"
MANIFEST_MEDIA_TYPE = "application/manifest+json"

#: The manifest's icons (written by tools/icons.py): (path under static, pixels or 0 for
#: a vector, purpose).
ICONS: tuple[tuple[str, int, str], ...] = (
    ("icons/icon-192.png", 192, "any"),
    ("icons/icon-512.png", 512, "any"),
    ("icons/icon-maskable-512.png", 512, "maskable"),
    ("icons/icon.svg", 0, "any"),
)


def _shell_files(static: Path) -> list[Path]:
    if not static.is_dir():
        return []
    return sorted(
        p
        for p in static.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(static).parts)
    )


def precache_urls(static: Path = STATIC, extra: Iterable[str] | None = None) -> list[str]:
    """The URLs the worker fetches when it installs: the shell's pages, the manifest, the
    favicon, every file of ``static`` under ``/static/`` and ``extra`` (by default
    :data:`EXTRA_PRECACHE`), each once, in that order."""
    urls = [*SHELL_PAGES, *_ROOT_FILES]
    urls += [
        "/static/" + p.relative_to(static).as_posix()
        for p in _shell_files(static)
        if p.relative_to(static).as_posix() not in _PAGE_FILES
    ]
    urls += EXTRA_PRECACHE if extra is None else extra
    return list(dict.fromkeys(urls))


def _version_files(static: Path, extra_files: Iterable[Path]) -> list[Path]:
    files = [*_shell_files(static), *extra_files]
    named = os.environ.get(VERSION_FILE_VARIABLE)
    if named:
        files.append(Path(named))
    return files


def _stamp(files: Sequence[Path]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for f in files:
        try:
            st = f.stat()
            out.append((str(f), st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((str(f), -1, -1))
    return tuple(out)


def shell_version(
    static: Path = STATIC,
    urls: Sequence[str] | None = None,
    extra_files: Iterable[Path] | None = None,
) -> str:
    """The shell's version: 16 hex digits of a SHA-256 of the URLs to precache, of
    :data:`APP_PAGES` and of the contents of the static files, ``extra_files`` (by default
    :data:`EXTRA_VERSION_FILES`) and the ``SEEP_SHELL_VERSION_FILE`` file; a missing file
    counts as empty."""
    urls = precache_urls(static) if urls is None else urls
    files = _version_files(static, EXTRA_VERSION_FILES if extra_files is None else extra_files)
    h = hashlib.sha256()
    h.update("\n".join([*urls, "", *APP_PAGES]).encode())
    for f in files:
        h.update(b"\0" + str(f.name).encode() + b"\0")
        with contextlib.suppress(OSError):
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def worker_script(urls: Sequence[str], version: str) -> str:
    """``/sw.js``: the push handlers' script imported, the version and the URLs to precache,
    then the worker's code (pwa_worker.js)."""
    head = (
        "// Seep's service worker, written by the server (seep.web.pwa): see docs/web.md.\n"
        'importScripts("/static/js/sw-push.js");\n'
        f"const VERSION = {json.dumps(version)};\n"
        f"const SHELL = {json.dumps(list(urls), indent=0)};\n"
        f"const NEVER_CACHED = {json.dumps(list(NEVER_CACHED))};\n"
        f"const APP_PAGES = {json.dumps(APP_PAGES)}.map((p) => new RegExp(p));\n"
        f"const IMMUTABLE = {json.dumps(EXTRA_IMMUTABLE)};\n"
    )
    return head + _WORKER.read_text(encoding="utf-8")


@dataclass
class _Built:
    stamp: tuple[tuple[str, int, int], ...]
    extra: tuple[str, ...]
    script: str
    version: str


class Shell:
    """The worker script of the app shell in ``static``, written again only when a file's
    modification time or size, :data:`EXTRA_PRECACHE` or :data:`APP_PAGES` changed (a look at
    the files' stat per request: a browser asks for ``/sw.js`` at each page load)."""

    def __init__(self, static: Path = STATIC) -> None:
        self.static = static
        self._built: _Built | None = None
        self._lock = threading.Lock()

    def _current(self) -> _Built:
        files = _version_files(self.static, EXTRA_VERSION_FILES)
        stamp = _stamp(files)
        extra = (*EXTRA_PRECACHE, "\0", *APP_PAGES, "\0", *EXTRA_IMMUTABLE)
        with self._lock:
            built = self._built
            if built is None or built.stamp != stamp or built.extra != extra:
                urls = precache_urls(self.static)
                version = shell_version(self.static, urls)
                built = _Built(stamp, extra, worker_script(urls, version), version)
                self._built = built
            return built

    def script(self) -> str:
        """The text of ``/sw.js`` now."""
        return self._current().script

    def version(self) -> str:
        """The shell's version now."""
        return self._current().version


def manifest() -> dict[str, Any]:
    """The web app manifest (``/manifest.webmanifest``): what an installed Seep is called, where
    it starts, its colours and its icons."""
    icons: list[dict[str, str]] = []
    for path, size, purpose in ICONS:
        icon = {
            "src": "/static/" + path,
            "sizes": f"{size}x{size}" if size else "any",
            "type": "image/png" if path.endswith(".png") else "image/svg+xml",
        }
        icon["purpose"] = purpose
        icons.append(icon)
    return {
        "id": "/",
        "name": "Seep",
        "short_name": "Seep",
        "description": (
            "Play Seep, the Indian card game of houses and sweeps, against bots or with friends."
        ),
        "lang": "en",
        "dir": "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "categories": ["games"],
        "icons": icons,
    }

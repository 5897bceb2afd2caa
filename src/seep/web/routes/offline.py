"""The offline table's files (docs/web.md "Offline play"): its page, its worker, the list of
what it needs, our Python as a zip, and Pyodide's runtime under ``/pyodide/``. The app's
service worker (:mod:`seep.web.pwa`) precaches them all, so the offline table opens, and
reloads, with no network.

Everything here is a static file: the same bytes for every client, no state, no database. The
versioned names (Pyodide's version, the bundle's digest) are cached for a year; the names that
stay (the page, the worker, the list) are revalidated at each load.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import pwa
from ..offline_assets import (
    PYODIDE_DIR,
    PYODIDE_FILES,
    bundle,
    offered_difficulties,
    offline_assets,
    pyodide_version,
)
from .pages import STATIC, page

__all__ = ["router"]

FOREVER = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_MEDIA = {
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".json": "application/json",
}


def router() -> APIRouter:
    """``/offline``, ``/offline/worker.js``, ``/offline/assets.json``,
    ``/offline/seep-{digest}.zip`` and ``/pyodide/{version}/{name}``; none is in the OpenAPI.
    The offline table joins the app's shell (:func:`join_the_shell`)."""
    routes = APIRouter(include_in_schema=False)
    version = pyodide_version()
    # Read once: the files do not change while the server runs.
    needed = offline_assets(version)
    listed = {
        "pyodide": None if version is None else f"/pyodide/{version}/",
        "bundle": bundle().url,
        "assets": needed,
        "difficulties": offered_difficulties(),
    }
    join_the_shell(needed, immutable=[u for u in needed if _forever(u)])

    @routes.api_route("/offline", methods=["GET", "HEAD"])
    async def offline_page() -> Response:
        return page("index.html")

    @routes.get("/offline/worker.js")
    async def worker() -> Response:
        # A dedicated worker fetches Pyodide and the bundle itself: it is a client of its own
        # URL, which the app's service worker (scope /) controls, so offline it finds them.
        return FileResponse(
            STATIC / "js" / "offline-worker.js",
            media_type="text/javascript",
            headers={"Cache-Control": REVALIDATE},
        )

    @routes.get("/offline/assets.json")
    async def assets() -> JSONResponse:
        return JSONResponse(listed, headers={"Cache-Control": REVALIDATE})

    @routes.get("/offline/seep-{digest}.zip")
    async def sources(digest: str) -> Response:
        made = bundle()
        if digest != made.digest:
            raise StarletteHTTPException(404)
        return Response(made.data, media_type="application/zip", headers={"Cache-Control": FOREVER})

    @routes.get("/pyodide/{wanted}/{name}")
    async def pyodide(wanted: str, name: str) -> Response:
        # Only the runtime's files, by name: nothing else of the folder is reachable.
        if version is None or wanted != version or name not in PYODIDE_FILES:
            raise StarletteHTTPException(404)
        media = _MEDIA[name[name.rindex(".") :]]
        return FileResponse(
            PYODIDE_DIR / name, media_type=media, headers={"Cache-Control": FOREVER}
        )

    return routes


def _forever(url: str) -> bool:
    """A URL whose bytes never change (Pyodide's version or the bundle's digest is in it)."""
    return url.startswith("/pyodide/") or url.startswith("/offline/seep-")


def join_the_shell(assets: list[str], *, immutable: list[str]) -> None:
    """Put the offline table in the installable app's shell (:mod:`seep.web.pwa`): its page
    is a page of the single page app (offline, the cached ``/``), and its files, the list
    (``/offline/assets.json``) among them, are precached; those in ``immutable`` are taken
    from the previous version's cache when a new version installs, not fetched again (14 MB
    of Pyodide a release would be a phone's data for nothing). Once per process: building
    the app again adds nothing twice."""
    for url in [*assets, "/offline/assets.json"]:
        if url not in pwa.EXTRA_PRECACHE:
            pwa.EXTRA_PRECACHE.append(url)
    for url in immutable:
        if url not in pwa.EXTRA_IMMUTABLE:
            pwa.EXTRA_IMMUTABLE.append(url)
    if OFFLINE_PAGE not in pwa.APP_PAGES:
        pwa.APP_PAGES.append(OFFLINE_PAGE)


#: The offline table's page route, as :data:`seep.web.pwa.APP_PAGES` writes them.
OFFLINE_PAGE = r"^/offline/?$"

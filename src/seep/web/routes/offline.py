"""The offline table's files (docs/web.md "Offline play"): its page, its service worker, the
list of what it caches, our Python as a zip, and Pyodide's runtime under ``/pyodide/``.

Everything here is a static file: the same bytes for every client, no state, no database. The
versioned names (Pyodide's version, the bundle's digest) are cached for a year; the names that
stay (the page, the service worker, the list) are revalidated at each load.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..offline_assets import (
    PYODIDE_DIR,
    PYODIDE_FILES,
    bundle,
    offered_difficulties,
    offline_assets,
    pyodide_version,
    shell_assets,
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
    """``/offline``, ``/offline/sw.js``, ``/offline/worker.js``, ``/offline/assets.json``,
    ``/offline/seep-{digest}.zip`` and ``/pyodide/{version}/{name}``; none is in the OpenAPI."""
    routes = APIRouter(include_in_schema=False)
    version = pyodide_version()
    # Read once: the files do not change while the server runs.
    listed = {
        "pyodide": None if version is None else f"/pyodide/{version}/",
        "bundle": bundle().url,
        "assets": offline_assets(version),
        "shell": shell_assets(),
        "difficulties": offered_difficulties(),
    }

    @routes.api_route("/offline", methods=["GET", "HEAD"])
    async def offline_page() -> Response:
        return page("index.html")

    @routes.get("/offline/sw.js")
    async def service_worker() -> Response:
        # Its scope is the offline page alone (the app's own service worker, if any, has /).
        return FileResponse(
            STATIC / "js" / "offline-sw.js",
            media_type="text/javascript",
            headers={"Service-Worker-Allowed": "/offline", "Cache-Control": REVALIDATE},
        )

    @routes.get("/offline/worker.js")
    async def worker() -> Response:
        # Under the service worker's scope: a dedicated worker is a client of its own URL, and
        # only a controlled one finds Pyodide and the bundle in the cache when offline.
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

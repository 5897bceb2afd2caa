"""The page: the single page app's routes, the how-to-play page, the favicon, the installable
app's manifest and service worker (docs/web.md "Installable app") and the static files
(docs/web.md, "HTTP")."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from .. import pwa

__all__ = ["STATIC", "page", "router", "static_files"]

STATIC = Path(__file__).parent.parent / "static"

_FALLBACK_PAGE = """<!doctype html><meta charset="utf-8"><title>Seep</title>
<p>The Seep server is running, but its page (seep/web/static/index.html) is missing.</p>"""


def page(name: str) -> Response:
    """The static page ``name`` (the single page app's index.html when it is missing)."""
    path = STATIC / name
    if not path.is_file():
        path = STATIC / "index.html"
    if not path.is_file():
        return HTMLResponse(_FALLBACK_PAGE)
    return FileResponse(path, media_type="text/html")


def router() -> APIRouter:
    """``/``, ``/t/{code}``, ``/replay/{code}``, ``/u/{name}``, ``/leaderboard``,
    ``/events/{id}`` (the single page app), ``/how-to-play``, ``/favicon.ico``,
    ``/manifest.webmanifest`` and the service worker ``/sw.js``; HEAD answers as GET does,
    for health checks. None is in the OpenAPI."""
    pages = APIRouter(include_in_schema=False)

    @pages.api_route("/", methods=["GET", "HEAD"])
    async def lobby() -> Response:
        return page("index.html")

    @pages.api_route("/t/{code}", methods=["GET", "HEAD"])
    async def table_page(code: str) -> Response:
        return page("index.html")

    @pages.api_route("/replay/{code}", methods=["GET", "HEAD"])
    async def replay_page(code: str) -> Response:
        return page("index.html")

    @pages.api_route("/u/{name}", methods=["GET", "HEAD"])
    async def profile_page(name: str) -> Response:
        return page("index.html")

    @pages.api_route("/leaderboard", methods=["GET", "HEAD"])
    async def leaderboard_page() -> Response:
        return page("index.html")

    @pages.api_route("/events/{event}", methods=["GET", "HEAD"])
    async def event_page(event: str) -> Response:
        return page("index.html")

    @pages.api_route("/favicon.ico", methods=["GET", "HEAD"])
    async def favicon() -> Response:
        # An SVG under the name browsers ask for: every page links it (index, how to play).
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @pages.api_route("/how-to-play", methods=["GET", "HEAD"])
    async def how_to_play() -> Response:
        return page("how-to-play.html")

    @pages.api_route("/manifest.webmanifest", methods=["GET", "HEAD"])
    async def manifest() -> Response:
        return JSONResponse(pwa.manifest(), media_type=pwa.MANIFEST_MEDIA_TYPE)

    shell = pwa.Shell(STATIC)

    @pages.api_route("/sw.js", methods=["GET", "HEAD"])
    async def service_worker() -> Response:
        # At the root, so its scope is the whole site. no-cache: the browser asks each time
        # whether the version changed.
        return Response(
            shell.script(),
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache"},
        )

    return pages


def static_files() -> StaticFiles:
    """The page's files under ``/static`` (an app mounts them: a router cannot)."""
    return StaticFiles(directory=STATIC, check_dir=False)

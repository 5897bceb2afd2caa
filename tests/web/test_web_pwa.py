"""The installable app on the server's side (issue 27 item 1): the manifest, its icons, the
service worker ``/sw.js`` and the version that changes with any asset of the shell, their
media types and the CSP (seep.web.pwa, seep.web.routes.pages; docs/web.md "Installable app").
The browser's side is tests/web/browser/test_web_browser_pwa.py."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import struct
import zlib
from pathlib import Path
from types import ModuleType

import pytest

from seep.web import pwa
from seep.web.app import CSP
from seepkit.web import web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]


def _icons_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("icons", ROOT / "tools" / "icons.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _png(data: bytes) -> tuple[int, int, int, int, bytes]:
    """(width, height, bit depth, colour type, the decompressed IDAT) of a PNG file."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert data[12:16] == b"IHDR"
    idat, at = b"", 8
    while at < len(data):
        (n,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            idat += data[at + 8 : at + 8 + n]
        at += 12 + n
    return width, height, depth, colour, zlib.decompress(idat)


def _version(script: str) -> str:
    m = re.search(r'const VERSION = "([0-9a-f]{16})";', script)
    assert m, script[:300]
    return m.group(1)


def test_the_manifest_says_what_an_installed_seep_is(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        r = client.get("/manifest.webmanifest")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/manifest+json")
        m = r.json()
        assert client.head("/manifest.webmanifest").status_code == 200
        page = client.get("/").text
        icons = {i["src"]: i for i in m["icons"]}
        for src, icon in icons.items():
            got = client.get(src)
            assert got.status_code == 200, src
            assert got.headers["content-type"].startswith(icon["type"]), src
            if icon["type"] == "image/png":
                w, h, depth, colour, _ = _png(got.content)
                assert icon["sizes"] == f"{w}x{h}", src  # the size it claims is its size
                assert (depth, colour) == (8, 6)  # RGBA
            else:
                assert icon["sizes"] == "any" and got.text.startswith("<svg")
        apple = client.get("/static/icons/apple-touch-icon.png")
        assert _png(apple.content)[:2] == (180, 180)
    assert m["name"] == "Seep" and m["short_name"] == "Seep" and m["description"]
    assert (m["start_url"], m["scope"], m["display"], m["lang"]) == ("/", "/", "standalone", "en")
    sizes = {(i["sizes"], i["purpose"]) for i in m["icons"]}
    assert {
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
        ("any", "any"),
    } <= sizes
    # The colours are the page's own.
    css = (pwa.STATIC / "seep.css").read_text()
    assert f"--felt-dark: {m['theme_color']};" in css
    assert f"--felt-dark: {m['background_color']};" in css
    # The page links the manifest, its colour and Apple's icon.
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert f'<meta name="theme-color" content="{m["theme_color"]}">' in page
    assert '<link rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png">' in page


def test_the_icons_are_what_tools_icons_py_draws() -> None:
    icons = _icons_script()
    for name in icons.PNGS:
        data = (pwa.STATIC / "icons" / name).read_bytes()
        size = icons.PNGS[name][0]
        assert _png(data) == (size, size, 8, 6, icons.pixels(name)), name
    assert (pwa.STATIC / "icons" / "icon.svg").read_text() == icons.svg()
    # The maskable icon fills its square: no transparent pixel (the system cuts its shape).
    raw = icons.pixels("icon-maskable-512.png")
    alphas = {
        raw[1 + row * (1 + 512 * 4) + 4 * col + 3]
        for row in range(0, 512, 51)
        for col in range(512)
    }
    assert alphas == {255}


def test_the_worker_is_served_at_the_root_with_the_shell(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        r = client.get("/sw.js")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/javascript")
        assert r.headers["cache-control"] == "no-cache"
        assert r.headers["content-security-policy"] == CSP
        script = r.text
        shell = re.search(r"const SHELL = (\[.*?\]);", script, re.S)
        assert shell
        urls = json.loads(shell.group(1))
        for url in urls:  # every URL of the shell answers: the install cannot fail on one
            assert client.get(url).status_code == 200, url
        assert client.head("/sw.js").status_code == 200
    assert script.startswith("// Seep's service worker")
    assert 'importScripts("/static/js/sw-push.js");' in script
    assert _version(script) == pwa.shell_version()
    assert urls == pwa.precache_urls()
    assert {"/", "/how-to-play", "/manifest.webmanifest", "/favicon.ico"} <= set(urls)
    assert {"/static/seep.css", "/static/js/app.js", "/static/js/pwa.js"} <= set(urls)
    assert "/static/icons/icon-512.png" in urls
    assert "/static/index.html" not in urls  # served as "/"
    assert not [u for u in urls if u.startswith(("/api/", "/ws/", "/metrics", "/readyz"))]
    for never in ("/api/", "/ws/", "/metrics", "/readyz"):
        assert never in script  # NEVER_CACHED, which the fetch handler leaves to the network
    # A new worker waits for the page's word: no skipWaiting on install.
    install = script.split('addEventListener("install"', 1)[1].split("});", 1)[0]
    assert "skipWaiting" not in install
    assert "clients.claim" in script


def test_the_version_changes_with_any_asset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    static = tmp_path / "static"
    shutil.copytree(pwa.STATIC, static)
    shell = pwa.Shell(static)
    first = shell.version()
    assert shell.version() == first and _version(shell.script()) == first
    # A changed file (same size, so its mtime or contents tell).
    css = static / "seep.css"
    text = css.read_text()
    css.write_text(text.replace("#1d6b45", "#1d6b46", 1))
    second = shell.version()
    assert second != first
    # A new file joins the shell and the version.
    (static / "js" / "extra.js").write_text("// more\n")
    third = shell.version()
    assert third != second and "/static/js/extra.js" in shell.script()
    # What another module registers (the offline table's files).
    bundle = tmp_path / "bundle.zip"
    bundle.write_bytes(b"1")
    monkeypatch.setattr(pwa, "EXTRA_PRECACHE", ["/pyodide/pyodide.js"])
    monkeypatch.setattr(pwa, "EXTRA_VERSION_FILES", [bundle])
    fourth = shell.version()
    assert fourth != third and '"/pyodide/pyodide.js"' in shell.script()
    bundle.write_bytes(b"22")
    assert shell.version() != fourth
    # The operator's (and the browser test's) release file.
    release = tmp_path / "release"
    release.write_text("a")
    monkeypatch.setenv(pwa.VERSION_FILE_VARIABLE, str(release))
    fifth = shell.version()
    release.write_text("bb")
    assert shell.version() != fifth
    # A page route of the single page app another module adds (offline: its cached "/").
    sixth = shell.version()
    monkeypatch.setattr(pwa, "APP_PAGES", [*pwa.APP_PAGES, r"^/offline/?$"])
    assert shell.version() != sixth and '"^/offline/?$"' in shell.script()
    # Nothing changed: the same version, and the same script.
    assert shell.script() == shell.script()


def test_the_csp_lets_the_manifest_and_the_worker_in_and_nothing_else() -> None:
    assert "manifest-src 'self'" in CSP and "worker-src 'self'" in CSP
    assert "'unsafe-inline'" not in CSP and "'unsafe-eval'" not in CSP


def test_the_page_registers_the_worker() -> None:
    """app.js starts pwa.js, which registers /sw.js at the root (the browser test drives it)."""
    js = (pwa.STATIC / "js" / "pwa.js").read_text()
    assert 'register("/sw.js", { scope: "/"' in js
    app = (pwa.STATIC / "js" / "app.js").read_text()
    assert 'import { initPwa } from "./pwa.js";' in app and "initPwa();" in app

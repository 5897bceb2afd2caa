"""The browser tests' fixtures: a real server, Debian's chromium, a page on that server.

seepkit.browser drives the page; importing it skips a test module where chromium or
Playwright is missing, so the fixtures import it only when a test asks for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server: uvicorn in a subprocess, a fresh SQLite file, bots with a tiny delay."""
    from seepkit.browser import app_server

    with app_server(tmp_path_factory.mktemp("web")) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from seepkit.browser import CHROMIUM, CHROMIUM_ARGS, sync_api

    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    from seepkit.browser import TIMEOUT, watch_csp

    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(TIMEOUT)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    watch_csp(pg, errors)
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

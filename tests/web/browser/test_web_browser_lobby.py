"""The lobby's words in Debian's chromium (issue 22): the match length says "1 deal", "3 deals",
"1 baazi" as the player types, never "deal(s)", in English and in Hindi."""

from __future__ import annotations

from typing import Any

import pytest

# The whole module is skipped where chromium or Playwright is missing, as its neighbours are.
pytest.importorskip("seepkit.browser")

pytestmark = pytest.mark.browser


def unit(pg: Any) -> str:
    return str(pg.locator("#count-unit").inner_text()).strip()


def test_the_match_length_counts_in_words(server: str, page: Any) -> None:
    page.goto(server + "/")
    assert unit(page) == "deal"
    page.fill("#create-count", "3")
    assert unit(page) == "deals"
    page.check("input[name=length][value=baazis]")
    assert unit(page) == "baazis"
    page.fill("#create-count", "1")
    assert unit(page) == "baazi"
    assert "(s)" not in page.locator("body").inner_text()


def test_the_match_length_in_hindi(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
    page.reload()
    text = page.locator("body").inner_text()
    assert unit(page) == "बाँट" and "(s)" not in text


def test_practice_says_it_is_private(server: str, page: Any) -> None:
    page.goto(server + "/")
    public = page.locator("#create-public")
    public.check()
    page.check("#create-practice")
    assert public.is_disabled() and not public.is_checked()
    assert page.locator("#public-note").is_visible()
    page.uncheck("#create-practice")
    assert public.is_enabled() and not page.locator("#public-note").is_visible()


def test_the_open_tables_follow_the_server(server: str, page: Any) -> None:
    page.clock.install()
    page.goto(server + "/")
    page.wait_for_selector("#lobby-list li")
    looks: list[str] = []
    page.on("request", lambda r: looks.append(r.url) if r.url.endswith("/api/lobby") else None)
    page.clock.run_for(31_000)
    page.wait_for_timeout(300)
    assert len(looks) >= 2, looks


def test_the_footer_names_the_version(server: str, page: Any) -> None:
    """The lobby's footer shows seep.__version__ (from GET /api/lobby), in both languages."""
    import seep

    page.goto(server + "/")
    footer = page.locator("#site-footer")
    footer.wait_for(state="visible")
    assert footer.inner_text().strip() == f"Seep version {seep.__version__}"
    page.evaluate("() => localStorage.setItem('seep:lang', 'hi')")
    page.reload()
    footer.wait_for(state="visible")
    assert footer.inner_text().strip() == f"सीप संस्करण {seep.__version__}"

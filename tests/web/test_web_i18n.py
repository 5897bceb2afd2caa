"""The Hindi page is whole: every string the pages mark for translation has a Hindi entry.

The English text is the dictionary key (``data-i18n`` with no value takes the element's
markup, ``data-i18n="key"`` names its key, ``t("...")`` in the scripts), so a string added
in English and forgotten in ``i18n-hi.js`` / ``i18n-hi-howto.js`` would show in English on
the Hindi page. Server messages and the coach's reasons are English by design and are not
marked.
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "seep" / "web" / "static"
_ENTRY = re.compile(r'^\s*"((?:[^"\\]|\\.)*)":', re.M)


def _hindi_keys() -> set[str]:
    keys: set[str] = set()
    for name in ("i18n-hi.js", "i18n-hi-howto.js"):
        keys |= {k.replace('\\"', '"') for k in _ENTRY.findall((STATIC / "js" / name).read_text())}
    return keys


def _marked_in_html(text: str) -> list[str]:
    wanted = re.findall(r'data-i18n="([^"]+)"', text)
    # data-i18n with no value: the key is the element's inner markup, trimmed.
    for m in re.finditer(r"<(\w+)\b[^>]*\sdata-i18n(?=[\s>])[^>]*>(.*?)</\1>", text, re.S):
        inner = m.group(2).strip()
        if inner:
            wanted.append(inner)
    return wanted


def test_every_marked_string_of_the_pages_has_hindi() -> None:
    hindi = _hindi_keys()
    missing = [
        (page.name, key)
        for page in sorted(STATIC.glob("*.html"))
        for key in _marked_in_html(page.read_text())
        if key not in hindi
    ]
    assert not missing, f"no Hindi for: {missing}"


def test_every_string_the_scripts_translate_has_hindi() -> None:
    hindi = _hindi_keys()
    missing = sorted(
        {
            (script.name, m.group(1))
            for script in STATIC.glob("js/*.js")
            if not script.name.startswith("i18n")
            for m in re.finditer(r'\bt(?:Text)?\("((?:[^"\\]|\\.)*)"', script.read_text())
            if m.group(1) not in hindi
        }
    )
    assert not missing, f"no Hindi for: {missing}"

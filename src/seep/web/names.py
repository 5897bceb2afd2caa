"""Players' names as the other players read them (docs/web.md "Names").

A name is shown to strangers, so it must read as what it is: a name that looks empty (Hangul
fillers, a blank Braille cell, format characters), one that passes for the server's own words
("Bot S", "You", or a look-alike spelt with Cyrillic letters or digits) or one that spills over
its neighbours (a tower of combining marks) is refused with a one-line reason. The cleaning
squeezes spaces and never cuts a character sequence: an emoji joined by U+200D (a family, a
profession) stays whole.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_STACKED_MARKS", "check_name", "skeleton"]

MAX_STACKED_MARKS = 2  # combining marks on one letter: Devanagari and Vietnamese need two

ZWJ = "\u200d"
# Letters and symbols that draw nothing (their Unicode category says "letter", so a test of
# category alone lets them through): Hangul fillers, the blank Braille cell, Mongolian vowel
# separator, the Khmer inherent vowels and the Ogham space.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5\u1680")
_VARIATION = re.compile(r"[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_SKIN_TONE = range(0x1F3FB, 0x1F400)
# Control, format, surrogate, private-use and line/paragraph separators. Unassigned code points
# (Cn) pass: an emoji newer than this Python's Unicode tables is one.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})

# What the server and the page call seats and players: a player may not pass for them.
_RESERVED = re.compile(r"bot( ?[a-z0-9]{1,2})?|bots|you|server|admin|moderator")

# Letters of other scripts (and digits) that look like Latin ones, folded for the reserved-word
# test only (Unicode's confusables, the part that matters for the reserved words above).
_LOOK_ALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "с": "c", "е": "e", "ё": "e", "һ": "h", "і": "i", "ј": "j",
        "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "ѕ": "s", "т": "t", "у": "y",
        "х": "x", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y",
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w",
        "0": "o", "1": "l", "3": "e", "5": "s", "8": "b", "$": "s", "@": "a", "|": "l",
    }
)  # fmt: skip


def skeleton(name: str) -> str:
    """``name`` as it looks: compatibility forms folded (fullwidth letters), case and marks
    dropped, look-alike letters and digits read as the Latin letter they imitate."""
    folded = unicodedata.normalize("NFKD", name).casefold()
    bare = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(bare.translate(_LOOK_ALIKES).split())


def _pictographic(ch: str) -> bool:
    cp = ord(ch)
    return unicodedata.category(ch) == "So" or 0x1F000 <= cp <= 0x1FAFF or cp in _SKIN_TONE


def _joins_emoji(text: str, i: int) -> bool:
    """The ZWJ at ``text[i]`` sits between two emoji (a variation selector or skin tone may
    follow the first)."""
    before = i - 1
    while before >= 0 and (_VARIATION.match(text[before]) or ord(text[before]) in _SKIN_TONE):
        before -= 1
    after = text[i + 1] if i + 1 < len(text) else ""
    return before >= 0 and _pictographic(text[before]) and bool(after) and _pictographic(after)


def _problem(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed').lower()}"


def check_name(value: str) -> str:
    """``value`` cleaned (NFC, spaces squeezed), or :class:`ValueError` naming the problem:
    an invisible, control or format character (U+200D only inside an emoji sequence), more than
    :data:`MAX_STACKED_MARKS` combining marks on one letter, or a reserved word or its
    look-alike. The result may be empty (no name)."""
    text = " ".join(unicodedata.normalize("NFC", value).split())
    stacked = 0
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch in _INVISIBLE:
            raise ValueError(f"a name may not contain invisible characters ({_problem(ch)})")
        if ch == ZWJ:
            if not _joins_emoji(text, i):
                raise ValueError("a name may use U+200D zero width joiner only inside an emoji")
        elif category in _REFUSED_CATEGORIES:
            raise ValueError(
                f"a name may not contain control or format characters ({_problem(ch)})"
            )
        if category in ("Mn", "Me") and not _VARIATION.match(ch):
            stacked += 1
            if stacked > MAX_STACKED_MARKS:
                raise ValueError(
                    f"a name may put at most {MAX_STACKED_MARKS} combining marks on one letter"
                )
        else:
            stacked = 0
    if text and _RESERVED.fullmatch(skeleton(text)):
        raise ValueError(f"the name {text!r} is kept for the server's own words: choose another")
    return text

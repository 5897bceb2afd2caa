"""The name rules (issue 23 item 8): invisible, control and format characters, reserved words
and their look-alikes and towers of combining marks are refused with a reason; emoji joined
by U+200D stay whole; ordinary names of every script pass. Through the API too."""

from __future__ import annotations

from pathlib import Path

import pytest

from seep.web.names import check_name, skeleton
from seepkit.web import web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl
COOK = "\U0001f469\U0001f3fd\u200d\U0001f373"  # woman, medium skin tone, ZWJ, cooking


@pytest.mark.parametrize(
    "name",
    ["Asha", "Bhagyalakshmi", "अनन्या", "Nguyễn Thị", "José", "Björk", "李娜", "Ravi 2", "Bob",
     "Robot", "Botany", "Yousuf", "<a href=//x.co>WIN</a>", f"Asha {FAMILY}", COOK],
)  # fmt: skip
def test_ordinary_names_pass_whole(name: str) -> None:
    assert check_name(name) == name


def test_spaces_are_squeezed_and_the_form_is_nfc() -> None:
    assert check_name("  Asha \t  Rao ") == "Asha Rao"
    assert check_name("Jose\u0301") == "José"  # combining acute composed: one character


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u3164", "invisible"),
        ("\u3164\u3164Asha", "invisible"),
        ("\u2800", "invisible"),
        ("Asha\u115f", "invisible"),
        ("\uffa0", "invisible"),
        ("As\u200bha", "format"),  # zero width space
        ("\u202eahsA", "format"),  # right-to-left override
        ("Asha\u2066", "format"),
        ("Asha\u0007", "control"),
        ("As\u200dha", "joiner"),  # a ZWJ outside an emoji
    ],
)
def test_invisible_names_are_refused(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_name(name)


@pytest.mark.parametrize(
    "name",
    ["Bot", "bot", "Bot S", "Bot N", "BotS", "Bot 3", "You", "you", "Server", "Admin",
     "B0t", "Вот", "ВОТ S", "Ｂｏｔ", "Bоt", "ⓑot", "Yоu", "Bòt"],
)  # fmt: skip
def test_reserved_words_and_look_alikes_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="kept for the server"):
        check_name(name)


def test_the_skeleton_reads_look_alikes_as_latin() -> None:
    assert skeleton("Вот") == skeleton("B0T") == skeleton("ｂｏｔ") == "bot"


def test_stacked_combining_marks_are_refused() -> None:
    assert check_name("q\u0301\u0308") == "q\u0301\u0308"  # two marks: as Vietnamese needs
    with pytest.raises(ValueError, match="at most 2 combining marks"):
        check_name("q" + "\u0301\u0308\u0303")
    with pytest.raises(ValueError, match="combining marks"):
        check_name("Z" + "\u0336" * 23)


def test_the_api_refuses_with_the_reason(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _manager, _checker):
        for name, why in (("\u3164", "invisible"), ("Bot S", "kept for the server"),
                          ("Z" + "\u0336" * 23, "combining marks")):  # fmt: skip
            r = client.post("/api/tables", json={"name": name})
            assert r.status_code == 400, r.text
            assert r.json()["error"]["code"] == "bad_request"
            assert why in r.json()["error"]["message"] and "Traceback" not in r.text
        made = client.post("/api/tables", json={"name": f"Asha {FAMILY}"})
        assert made.status_code == 201, made.text
        table = client.get(f"/api/tables/{made.json()['code']}").json()
        assert table["seats"][0]["name"] == f"Asha {FAMILY}"  # the family whole, ZWJs kept
        joined = client.post(
            f"/api/tables/{made.json()['code']}/join", json={"name": "\u2800\u2800"}
        )
        assert joined.status_code == 400 and "invisible" in joined.text

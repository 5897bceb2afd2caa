"""``seep.svg``: the table drawn as SVG (issue 22, item 8), as python-chess's ``chess.svg`` does.

Every drawing is well-formed XML; a view's drawing holds no card the seat has not seen;
``_repr_svg_`` gives notebooks the same picture; docs/images/position.svg is what
examples/svg_position.py draws today.
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from seep import svg
from seep.cards import CARD_NAMES, card_list
from seep.moves import Move, parse_move
from seep.view import View
from seepkit.play import played

ROOT = Path(__file__).resolve().parents[2]
NS = "{http://www.w3.org/2000/svg}"
CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def cards_drawn(root: ET.Element) -> list[str]:
    return [g.attrib["data-card"] for g in root.iter(f"{NS}g") if "data-card" in g.attrib]


def test_a_position_is_valid_svg_with_every_card_in_its_place() -> None:
    pos = played(5, 10)
    root = ET.fromstring(svg.position(pos))
    assert root.tag == f"{NS}svg"
    drawn = cards_drawn(root)
    expected = [c for h in pos.hands for c in card_list(h)] + card_list(pos.loose)
    for _, cards, _, _ in pos.houses():
        expected += card_list(cards)
    assert sorted(drawn) == sorted(expected)  # each card once, face up
    texts = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    for word in ("North (N)", "West (W)", "South (S)", "East (E)", "dealer", "to move"):
        assert word in texts
    assert "House 12 · S, E · cemented" in texts
    assert "NS: 0 points · 0 cards · 0 sweeps" in texts
    houses = [g for g in root.iter(f"{NS}g") if g.attrib.get("class") == "house"]
    assert [h.attrib["data-value"] for h in houses] == ["10", "12"]


@pytest.mark.parametrize("rules", ["standard", "two_player", "family"])
def test_every_stage_of_a_deal_draws(rules: str) -> None:
    for seed in range(6):
        for plays in (0, 1, 12, 30, 48):
            pos = played(seed, plays, rules)
            moves = pos.legal_codes()
            for seat in range(pos.rules.players):
                ET.fromstring(svg.position(pos, seat, move=moves[0] if moves else None))
                ET.fromstring(svg.view(View.from_position(pos, seat), four_colour=True))


@pytest.mark.parametrize("players", [4, 2])
def test_a_view_draws_no_hidden_card(players: int) -> None:
    rules = "standard" if players == 4 else "two_player"
    for seed in range(10):
        for plays in (0, 1, 9, 25, 44):
            pos = played(seed, plays, rules)
            for seat in range(players):
                v = View.from_position(pos, seat)
                text = svg.view(v)
                seen = {CARD_NAMES[c] for c in range(52) if not v.unseen() >> c & 1}
                # No hidden card anywhere in the document: not drawn, not named in a text.
                assert set(CARD.findall(text)) <= seen, (seed, plays, seat)
                root = ET.fromstring(text)
                backs = sum(1 for r in root.iter(f"{NS}rect") if r.attrib.get("class") == "back")
                hidden = sum(size for s, size in enumerate(v.hand_sizes) if s != seat)
                assert backs == hidden + v.facedown + min(3, v.stock_size)


def test_a_move_is_outlined_and_named() -> None:
    pos = played(5, 10)
    move = parse_move("5H x 5D")
    assert pos.is_legal(move)
    root = ET.fromstring(svg.position(pos, move="5H x 5D"))
    marked = [
        g.attrib["data-card"]
        for g in root.iter(f"{NS}g")
        if "data-card" in g.attrib and g[0].attrib.get("stroke") == svg.HIGHLIGHT
    ]
    assert sorted(marked) == ["5D", "5H"]
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "move: 5H x 5D" in texts
    # A move given as a code, a Move or a docs/format.md dict draws the same.
    same = svg.position(pos, move=int(move))
    assert same == svg.position(pos, move=Move(move)) == svg.position(pos, move=move.to_dict())
    # A house the move takes is outlined too.
    house_move = next(
        m for m in pos.legal_moves() if m.action in ("capture", "cement") and (m.houses or m.value)
    )
    house_svg = ET.fromstring(svg.position(pos, move=house_move))
    frames = [
        g[0]
        for g in house_svg.iter(f"{NS}g")
        if g.attrib.get("class") == "house" and g[0].attrib.get("stroke") == svg.HIGHLIGHT
    ]
    assert frames


def test_size_and_colours() -> None:
    pos = played(5, 10)
    root = ET.fromstring(svg.position(pos, size=480))
    assert root.attrib["width"] == "480" and root.attrib["viewBox"] == "0 0 960 660"
    two = svg.position(pos)
    four = svg.position(pos, four_colour=True)
    assert svg.FOUR_COLOURS["D"] not in two and svg.FOUR_COLOURS["D"] in four
    assert svg.FOUR_COLOURS["C"] in four


def test_the_seat_at_the_bottom() -> None:
    pos = played(5, 10)
    with pytest.raises(ValueError, match=r"a seat is 0\.\.3"):
        svg.position(pos, seat=4)

    def label_y(doc: str, name: str) -> float:
        root = ET.fromstring(doc)
        return next(
            float(t.attrib["y"]) for t in root.iter(f"{NS}text") if (t.text or "").startswith(name)
        )

    default = svg.position(pos)
    assert label_y(default, "South") > label_y(default, "North")  # South at the bottom
    flipped = svg.position(pos, seat=0)
    assert label_y(flipped, "North") > label_y(flipped, "South")


def test_notebooks_get_the_picture() -> None:
    pos = played(5, 10)
    assert pos._repr_svg_() == svg.position(pos)
    v = View.from_position(pos, 1)
    assert v._repr_svg_() == svg.view(v)


def test_the_docs_picture_is_todays_drawing() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "svg_position.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert proc.stdout == (ROOT / "docs" / "images" / "position.svg").read_text(encoding="utf-8")
    ET.fromstring(proc.stdout)
    bad = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "svg_position.py"), "x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "usage" in bad.stderr and "Traceback" not in bad.stderr

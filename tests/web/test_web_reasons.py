"""The server sends the rules checker's refusals as data (rule, template, args: docs/web.md
"Reasons"), so the page words them in its own language; the page's table of templates
(static/js/reasons.js) is the checker's own (seep/verify.py) and each has its Hindi."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from seep.web.messages import ErrorMessage, State
from seep.web.tables import TableError
from seepkit.tables import bidder_table

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "src" / "seep" / "web" / "static" / "js"
_STRING = r'"((?:[^"\\]|\\.)*)"'


def test_dead_cards_carry_rule_template_and_args() -> None:
    table, bid = bidder_table()
    state = table.state(0)
    State.model_validate(state)
    reasons = state["dead_reasons"]
    assert reasons and set(reasons) <= set(state["dead"])
    for card, reason in reasons.items():
        assert set(reason) == {"rule", "template", "args"}
        # The English text is the template filled with the args, and the rule cited.
        assert (
            state["dead"][card]
            == f"{reason['template'].format(**reason['args'])} ({reason['rule']})"
        )
    r16 = [r for r in reasons.values() if r["rule"] == "R16"]
    assert r16 and all(r["args"] == {"bid": bid} for r in r16)
    for seat in (1, 2, 3, None):
        assert table.state(seat)["dead_reasons"] == {}


def test_an_illegal_move_is_refused_with_its_rule() -> None:
    table, bid = bidder_table()
    state = table.state(0)
    card = next(c for c, r in state["dead_reasons"].items() if r["rule"] == "R16")
    with pytest.raises(TableError) as caught:
        table.check_move(0, {"action": "throw", "card": card}, state["version"])
    err = caught.value
    assert err.code == "illegal_move" and err.reason is not None
    assert err.reason["rule"] == "R16" and err.reason["args"] == {"bid": bid}
    ErrorMessage.model_validate(
        {"type": "error", "code": err.code, "message": err.message, **err.reason}
    )


def test_the_socket_error_carries_the_rule(tmp_path: Path) -> None:
    from seepkit.web import Player, my_turn, web_client

    with web_client(tmp_path) as (client, _, checker):
        made = client.post("/api/tables", json={"name": "Asha", "bots": "easy"}).json()
        me = Player(client, checker, made["code"], made["token"])
        me.recv()
        me.send({"type": "start"})
        # A throw the legal list does not have, in the play phase: a card that can capture
        # (R22), one of another value than the bid on play 1 (R16) ...
        while True:
            msg = me.recv()
            assert not _deal_end(msg), "seat 0 never had a card it may not throw"
            if my_turn(msg):
                hand = msg["view"]["hands"][0]
                throws = [{"action": "throw", "card": c} for c in hand]
                refused = [m for m in throws if m not in msg["legal"]]
                if msg["view"]["phase"] == "play" and refused:
                    break
                me.send({"type": "move", "move": msg["legal"][0], "version": msg["version"]})
        me.send({"type": "move", "move": refused[0], "version": msg["version"]})
        err = me.error()
        assert err["code"] == "illegal_move" and err["rule"].startswith(("R", "A"))
        assert f"{err['template'].format(**err['args'])} ({err['rule']})" in err["message"]
        reason = msg["dead_reasons"].get(refused[0]["card"])
        if reason is not None:  # a dead card: the same refusal as the state's
            assert (err["rule"], err["args"]) == (reason["rule"], reason["args"])
        me.send({"type": "move", "move": {"action": "fly"}, "version": msg["version"]})
        assert "rule" not in me.error()  # no rule refused a malformed move
        me.close()


def _deal_end(m: dict[str, Any]) -> bool:
    return m.get("type") == "state" and m.get("summary") is not None


def _checker_templates() -> list[tuple[str | None, str]]:
    """(rule, template) of every Refusal in seep/verify.py (rule None: a variable, the card
    play's own rule)."""
    out = []
    for node in ast.walk(ast.parse((ROOT / "src" / "seep" / "verify.py").read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal":
            rule, template = node.args[0], node.args[1]
            if not isinstance(template, ast.Constant):
                continue  # a refusal rebuilt from its parts (unpickling), not a new sentence
            assert isinstance(template.value, str)
            out.append((rule.value if isinstance(rule, ast.Constant) else None, template.value))
    return out


def _page_table() -> dict[str, set[str]]:
    text = (JS / "reasons.js").read_text()
    shared = set(re.findall(_STRING, re.search(r"PLAY_FIELDS = \[(.*?)\];", text, re.S).group(1)))  # type: ignore[union-attr]
    body = re.search(r"export const REASONS = \{(.*?)\n\};", text, re.S).group(1)  # type: ignore[union-attr]
    table: dict[str, set[str]] = {}
    for m in re.finditer(r'^  "?([A-Z][\w()]*)"?: \[(.*?)\],?$', body, re.S | re.M):
        entries = set(re.findall(_STRING, m.group(2)))
        table[m.group(1)] = entries | (shared if "...PLAY_FIELDS" in m.group(2) else set())
    return table


def _hindi() -> dict[str, str]:
    text = (JS / "i18n-hi.js").read_text()
    return {
        k.replace('\\"', '"'): v
        for k, v in re.findall(rf"^\s*{_STRING}: {_STRING},?\s*$", text, re.M)
    }


def test_the_pages_templates_are_the_checkers() -> None:
    table = _page_table()
    wordable = [(r, t) for r, t in _checker_templates() if not re.search(r"\{\w+:", t)]
    for rule, template in wordable:
        if rule is None:
            assert any(template in ts for ts in table.values()), template
        else:
            assert template in table.get(rule, set()), (rule, template)
    every = {t for _, t in _checker_templates()}
    for rule, templates in table.items():
        assert templates <= every, (rule, templates - every)


def test_every_template_and_error_has_hindi_with_the_same_places() -> None:
    hindi = _hindi()
    text = (JS / "reasons.js").read_text()
    errors = re.search(r"export const ERRORS = \{(.*?)\n\};", text, re.S).group(1)  # type: ignore[union-attr]
    wanted = {t for ts in _page_table().values() for t in ts}
    wanted |= set(re.findall(rf":\s*{_STRING}", errors))
    wanted |= {"build", "cement", "break", "capture", "throw", "The server refused that ({code})."}
    for en in sorted(wanted):
        assert en in hindi, f"no Hindi for {en!r}"
        places = set(re.findall(r"\{(\w+)\}", en))
        assert set(re.findall(r"\{(\w+)\}", hindi[en])) == places, en

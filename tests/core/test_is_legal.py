"""The checker (``seep.verify.check``, behind ``Position.is_legal``) agrees with ``legal_codes``.

``apply`` and ``play`` rely on the checker so that a huge floor, which can have astronomically
many legal moves, never makes a single check slow; these tests hold the two exactly equal, and
hold every refusal to a specific rule (no generic "not a legal move").
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seep.codes import BID, BREAK, BUILD, CAPTURE, CEMENT, REDEAL, THROW, make_code
from seep.engine import Position
from seep.errors import IllegalMoveError
from seep.options import Rules
from seep.verify import check, verify_move

RULE_SETS = [
    {},
    {"capture_rule": "any"},
    {"absorb_loose_groups": "mandatory"},
    {"absorb_loose_groups": "never", "allow_pair_build": True},
    {"house_in_sums": True, "throw_rule": "always"},
    {"throw_rule": "no_other_move", "partner_cement_free": False, "max_houses": 2},
    {"add_retention": "team", "deal_before_bid": True},
    {"add_retention": "team", "partner_cement_free": False, "throw_rule": "no_other_move"},
    {"players": 2},
    {"players": 2, "second_deal": False, "deal_before_bid": True, "add_retention": "team"},
]

# A rule number of docs/rules.md: R1-R47 (with R21's letters and R21f's (a)/(b)) or A1-A27.
SPECIFIC_RULE = re.compile(
    r"^(R([1-9]|[1-3][0-9]|4[0-7])|R21[a-h](\([ab]\))?|A([1-9]|1[0-9]|2[0-7]))$"
)


def positions(rules: dict[str, object], count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        parsed = Rules.parse(rules)
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(parsed.players), parsed)
        while not pos.is_over():
            if rng.random() < 0.3:
                out.append(pos.copy())
            pos.push(rng.choice(pos.legal_codes()))
    return out[:count]


def submasks(mask: int) -> list[int]:
    subs = [0]
    while mask:
        low = mask & -mask
        mask ^= low
        subs += [s | low for s in subs]
    return subs


def candidate_codes(pos: Position) -> list[int]:
    """Every well-formed code a client could send here: all actions, cards in hand, values,
    houses and every subset of the loose cards (small floors only)."""
    codes = [make_code(BID, value=v) for v in range(16)] + [make_code(REDEAL)]
    seat = pos.to_move
    if seat is None:
        return codes
    loose_subs = submasks(pos.loose)
    house_vals = [v for v in range(9, 14) if pos.hpresent >> v & 1]
    house_subs = submasks(sum(1 << (v - 9) for v in house_vals))
    for card in range(52):
        if not pos.hands[seat] >> card & 1:
            codes.append(make_code(THROW, card))
            continue
        v = (card >> 2) + 1
        codes.append(make_code(THROW, card))
        for s in loose_subs:
            codes += [make_code(CAPTURE, card, value=v, loose=s, houses=h) for h in house_subs]
            for V in range(9, 14):
                codes.append(make_code(BUILD, card, value=V, loose=s))
                codes.append(make_code(CEMENT, card, value=V, loose=s))
                codes += [make_code(BREAK, card, value=V, house=H, loose=s) for H in house_vals]
    return codes


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_every_candidate_code_agrees(rules: dict[str, object]) -> None:
    checked = 0
    for pos in positions(rules, 600, seed=11):
        if not 2 <= pos.loose.bit_count() <= 6:
            continue
        legal = set(pos.legal_codes())
        for code in candidate_codes(pos):
            refusal = check(pos, code)
            assert (refusal is None) == (code in legal), (pos.to_dict(), code, refusal)
            assert refusal is None or SPECIFIC_RULE.match(refusal.rule), refusal
        checked += 1
        if checked == 40:
            break
    assert checked >= 20


@pytest.mark.parametrize("rules", RULE_SETS, ids=str)
def test_legal_codes_and_mutations_agree(rules: dict[str, object]) -> None:
    """On larger floors: every legal code passes; random field mutations pass exactly when
    the mutated code is itself in the legal list."""
    rng = random.Random(5)
    for pos in positions(rules, 300, seed=12):
        legal = pos.legal_codes()
        legal_set = set(legal)
        for code in legal:
            assert pos.is_legal(code), (pos.to_dict(), code)
        for code in rng.sample(legal, min(len(legal), 6)):
            for _ in range(6):
                kind = rng.randrange(5)
                if kind == 0:
                    m = code ^ (1 << rng.randrange(52))  # a loose card more or less
                elif kind == 1:
                    m = code ^ (1 << (52 + rng.randrange(5)))  # a house more or less
                elif kind == 2:
                    m = code ^ (1 << (66 + rng.randrange(4)))  # another value
                elif kind == 3:
                    m = code ^ (1 << (63 + rng.randrange(3)))  # another action
                else:
                    m = code ^ (1 << (57 + rng.randrange(6)))  # another card
                refusal = check(pos, m)
                assert (refusal is None) == (m in legal_set), (pos.to_dict(), m, refusal)
                assert refusal is None or SPECIFIC_RULE.match(refusal.rule), refusal


def test_huge_floor_apply_is_fast() -> None:
    """51 loose cards (reachable with throw_rule "always"): one apply must not enumerate."""
    script = (
        "from seep import protocol\n"
        "from seep.cards import CARD_NAMES\n"
        "pos = {'rules': {'throw_rule': 'always'}, 'dealer': 1, 'phase': 'play', 'bid': 13,\n"
        "       'plays': 47, 'to_move': 1, 'hands': [[], ['KC'], [], []], 'stock': [],\n"
        "       'loose': [c for c in CARD_NAMES if c != 'KC'], 'houses': [],\n"
        "       'captured': [[], []], 'sweeps': [0, 0], 'last_capture': None}\n"
        "after = protocol.apply(pos, {'action': 'throw', 'card': 'KC'})\n"
        "assert after['phase'] == 'over' and after['captured'] == [[], []], after\n"
        "cap = {'action': 'capture', 'card': 'KC', 'loose': ['KS'], 'houses': []}\n"
        "try:\n"
        "    protocol.apply(pos, cap)\n"
        "except ValueError as e:\n"
        "    assert 'maximal' in str(e), e\n"
        "else:\n"
        "    raise AssertionError('a non-maximal capture was accepted')\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env={"PYTHONPATH": src},
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert proc.returncode == 0, proc.stderr


def test_every_refusal_names_its_rule() -> None:
    """Random codes of every kind in random positions under every option set: the checker's
    verdict is membership in ``legal_codes``; a refusal names one specific rule, its sentence
    carries it, and ``verify_move`` raises exactly on refusals with that sentence."""
    rng = random.Random(21)
    seen: set[str] = set()
    for rules in RULE_SETS:
        for pos in positions(rules, 60, seed=rng.randrange(1 << 30)):
            legal = set(pos.legal_codes())
            seat = pos.to_move
            assert seat is not None
            hand = [c for c in range(52) if pos.hands[seat] >> c & 1]
            for _ in range(40):
                action = rng.randrange(8)
                card = rng.choice(hand) if hand and rng.random() < 0.9 else rng.randrange(64)
                loose = pos.loose & rng.getrandbits(52) if rng.random() < 0.8 else 0
                code = make_code(
                    action,
                    card,
                    value=rng.randrange(16),
                    house=rng.choice((0, 0, rng.randrange(16))),
                    loose=loose,
                    houses=rng.getrandbits(5) if rng.random() < 0.3 else 0,
                )
                refusal = check(pos, code)
                assert (refusal is None) == (code in legal), (pos.to_dict(), code, refusal)
                if refusal is None:
                    verify_move(pos, code)
                    continue
                assert SPECIFIC_RULE.match(refusal.rule), refusal
                assert str(refusal) == f"{refusal.template.format(**refusal.args)} ({refusal.rule})"
                seen.add(refusal.rule)
                with pytest.raises(IllegalMoveError, match=re.escape(str(refusal))):
                    verify_move(pos, code)
    # The mutations reach the rules of every kind of move.
    assert {"R13", "R20", "R21d", "R22", "R23", "R24", "R27", "R28", "R29"} <= seen, seen

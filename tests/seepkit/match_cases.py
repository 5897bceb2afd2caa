"""The match's worked cases (R9, R45, R46, A3, A20: docs/rules.md), shared by the tests of the
deal's settlement through the protocol (tests/core/test_match.py) and through the session
(tests/core/test_session.py)."""

from __future__ import annotations

from typing import Any


def match(diff: int = 0, baazis: tuple[int, int] = (0, 0), deals: int = 0) -> dict[str, Any]:
    """A docs/format.md `match` object."""
    return {"diff": diff, "baazis": list(baazis), "deals": deals}


# (case, dealer, match before, team 0 card points, sweeps, rules, match after, next dealer)
CASES: list[
    tuple[str, int, dict[str, Any], int, tuple[int, int], dict[str, Any], dict[str, Any], int]
] = [
    ("R9 level: same dealer", 2, match(0), 50, (0, 0), {}, match(0, (0, 0), 1), 2),
    ("R9 level after D moved", 1, match(20), 40, (0, 0), {}, match(0, (0, 0), 1), 1),
    ("R9 team 0 dealer ahead", 2, match(0), 60, (0, 0), {}, match(20, (0, 0), 1), 3),
    ("R9 team 1 dealer behind", 3, match(0), 60, (0, 0), {}, match(20, (0, 0), 1), 3),
    ("R9 team 1 dealer ahead", 3, match(0), 40, (0, 0), {}, match(-20, (0, 0), 1), 0),
    ("R9 team 1 ahead on old D", 1, match(-30), 50, (0, 0), {}, match(-30, (0, 0), 1), 2),
    ("R9 sweeps count in D", 0, match(0), 45, (0, 50), {}, match(-60, (0, 0), 1), 0),
    ("R45 lead exactly 100", 0, match(40, (2, 3), 7), 80, (0, 0), {}, match(0, (3, 3), 8), 3),
    ("R45 lead 99 is no baazi", 0, match(39), 80, (0, 0), {}, match(99, (0, 0), 1), 1),
    ("R45 team 1 wins", 0, match(-70), 35, (0, 0), {}, match(0, (0, 1), 1), 2),
    ("R45 team 1 wins, dealer W", 1, match(-70), 35, (0, 0), {}, match(0, (0, 1), 1), 0),
    ("A20 baazi_lead 500", 1, match(66), 91, (0, 0), {"baazi_lead": 500}, match(148, (0, 0), 1), 1),
    ("A20 baazi_lead 50", 0, match(0), 75, (0, 0), {"baazi_lead": 50}, match(0, (1, 0), 1), 3),
    ("R46 sweeps lift 5 to 55", 0, match(0), 95, (0, 50), {}, match(40, (0, 0), 1), 1),
    (
        "R46 min_score_includes_sweeps false",
        0,
        match(0),
        95,
        (0, 50),
        {"min_score_includes_sweeps": False},
        match(0, (1, 0), 1),
        3,
    ),
    ("R46 exactly 9 is enough", 1, match(0), 91, (0, 0), {}, match(82, (0, 0), 1), 1),
    ("R46 under 9 whatever D", 1, match(-95), 93, (0, 0), {}, match(0, (1, 0), 1), 3),
    ("R46 dealer's team under 9", 0, match(50), 5, (0, 0), {}, match(0, (0, 1), 1), 2),
    ("R46 team 1 dealer under 9", 3, match(0), 94, (0, 0), {}, match(0, (1, 0), 1), 1),
    ("R46 min_score 20", 0, match(0), 85, (0, 0), {"min_score": 20}, match(0, (1, 0), 1), 3),
    ("R46 min_score 20 met", 0, match(0), 80, (0, 0), {"min_score": 20}, match(60, (0, 0), 1), 1),
    ("A3 rotate, level", 2, match(0), 50, (0, 0), {"dealer_rule": "rotate"}, match(0), 3),
    ("A3 rotate, behind", 3, match(0), 60, (0, 0), {"dealer_rule": "rotate"}, match(20), 0),
    (
        "A3 rotate after a baazi",
        0,
        match(40),
        80,
        (0, 0),
        {"dealer_rule": "rotate"},
        match(0, (1, 0), 1),
        1,
    ),
]

"""Every registered bot is honest: its decision depends only on the seat's view and its RNG.

For positions reached by random play under several rule sets, the mover's view is taken, and
a second full position is made with the same view but the hidden cards (other hands, stock,
face-down floor) dealt differently (:meth:`seep.view.View.determinize`). Asked with the same
seed, the bot must make the same decision in both; the move must be legal in the real
position and come with a non-empty reason.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from seep.arena.frozen import FROZEN, make_arena_bot
from seep.bots import BOTS, DIFFICULTIES, Bot, make_bot
from seep.engine import Position
from seep.errors import SeepError
from seep.options import Rules
from seep.view import View

pytestmark = pytest.mark.default_build_only

make_bot("random")  # loads the built-in bots, each of which registers itself

# Settings that keep a bot fast and deterministic here: a search bot gets a small fixed
# number of iterations (a time budget would make its play depend on the machine).
TEST_SETTINGS: dict[str, dict[str, Any]] = {
    "ismcts": {"iterations": 30},
    "policy": {"samples": 2},
    # The presets keep their other settings (the choices' weights, endgame solver, value
    # network; expert with a few particles, to keep it quick).
    "hard": {"iterations": 30},
    "expert": {"iterations": 30, "particles": 4},
    "hard@1": {"iterations": 30},
    "expert@1": {"iterations": 30},
}
# Every registered bot, every difficulty and every frozen bot.
BOT_NAMES = sorted({*BOTS, "ismcts", *DIFFICULTIES, *FROZEN})

RULE_SETS: list[dict[str, Any]] = [
    {},
    {"deal_before_bid": True},
    {"capture_rule": "any", "throw_rule": "always", "absorb_loose_groups": "never"},
    {"ten_diamonds_points": 2, "majority_bonus": 4, "max_houses": 2, "allow_pair_build": True},
    # Two players (docs/rules.md §12): the hidden cards are the opponent's hand and the half-time
    # stock (R2P7).
    {"players": 2},
    {"players": 2, "second_deal": False, "deal_before_bid": True},
]

History = list[tuple[int, int]]


def sample_positions(rules: dict[str, Any], seed: int) -> list[tuple[Position, History]]:
    """Positions (with the deal's history) along random deals: the bid, play 1 and a spread
    of later plays."""
    rng = random.Random(seed)
    out: list[tuple[Position, History]] = []
    for _ in range(3):
        parsed = Rules.parse(rules)
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(parsed.players), parsed)
        history: History = []
        while not pos.is_over():
            if pos.plays < 2 or rng.random() < 0.2:
                out.append((pos.copy(), list(history)))
            seat = pos.to_move
            assert seat is not None
            code = rng.choice(pos.legal_codes())
            pos.push(code)
            # A redeal starts the deal afresh (R14): its history starts again too.
            history = [] if pos.phase == "bid" else [*history, (seat, code)]
    return out


def build_bot(name: str) -> Bot:
    """The bot with its test settings, or a skip saying why it cannot be tested yet."""
    if name not in BOTS and name not in DIFFICULTIES and name not in FROZEN:
        pytest.skip(f"bot {name!r} is not registered yet")
    settings = TEST_SETTINGS.get(name, {})
    try:
        return make_arena_bot(name, **settings)
    except (TypeError, SeepError) as exc:
        pytest.skip(f"bot {name!r} does not accept the test settings {settings}: {exc}")


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: ",".join(r) or "standard")
@pytest.mark.parametrize("name", BOT_NAMES)
def test_decision_depends_only_on_the_view(name: str, rules: dict[str, Any]) -> None:
    bot = build_bot(name)
    positions = sample_positions(rules, seed=len(name) * 101 + len(rules))
    differing = 0
    ambiguous = 0  # positions whose hidden cards have more than one place to go
    for k, (pos, history) in enumerate(positions):
        seat = pos.to_move
        assert seat is not None
        view = View.from_position(pos, seat, history)
        other = view.determinize(random.Random(k))
        assert View.from_position(other, seat, history) == view
        if other.hands != pos.hands or other.stock != pos.stock or other.loose != pos.loose:
            differing += 1
        places = sum(1 for s, n in enumerate(view.hand_sizes) if n and s != seat)
        # Two players with nothing left in the stock: the opponent holds exactly the unseen
        # cards, and nothing can differ.
        ambiguous += places + bool(view.stock_size) + bool(view.facedown) > 1
        seed = 1000 + k
        first = bot.choose(view, random.Random(seed))
        # The same bot object again (state kept between calls must not matter), on a view
        # built afresh from the other position.
        second = bot.choose(View.from_position(other, seat, history), random.Random(seed))
        assert first == second, (
            f"{name} decides differently when only hidden cards differ: "
            f"{first.move} vs {second.move} at play {pos.plays}"
        )
        assert pos.is_legal(first.move), f"{name} played the illegal {first.move}"
        assert other.is_legal(first.move)
        assert isinstance(first.reason, str) and first.reason.strip()
    assert differing >= ambiguous // 2  # the test did vary the hidden cards

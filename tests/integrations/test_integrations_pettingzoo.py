"""The PettingZoo environment passes PettingZoo's own checks, unchanged."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from seep.integrations.actions import NUM_ACTIONS  # noqa: E402
from seep.integrations.pettingzoo import SeepAECEnv, env, raw_env  # noqa: E402

pytestmark = pytest.mark.default_build_only


def test_api_test() -> None:
    api_test(raw_env(), num_cycles=300)


def test_api_test_wrapped_and_baazi() -> None:
    api_test(env(episode="baazi", rules="family"), num_cycles=300)


def test_seed_test() -> None:
    seed_test(raw_env, num_cycles=300)


def play(e: SeepAECEnv, seed: int) -> list[float]:
    e.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.shape == (NUM_ACTIONS,) and mask.any()
        e.step(rng.choice(np.flatnonzero(mask).tolist()))
    return [totals[a] for a in e.possible_agents]


def test_rewards_are_team_score_differences() -> None:
    e = raw_env()
    r = play(e, 3)
    assert r[0] == r[2] == -r[1] == -r[3]
    s = e.position.deal_scores()
    assert r[0] == s[0] - s[1]
    assert [seat for seat, _ in e.history][:1] == [e.position.bidder]
    assert len([m for m in e.history if m[1] >> 63 & 7 < 5]) == 48


def test_baazi_episode_ends_with_a_winner_or_truncation() -> None:
    e = raw_env(episode="baazi", max_deals=3)
    r = play(e, 1)
    assert r in ([1.0, -1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, 1.0], [0.0] * 4)


def test_illegal_action_raises() -> None:
    e = raw_env()
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="not allowed"):
        e.step(int(np.flatnonzero(mask == 0)[0]))


def test_render_and_view() -> None:
    e = raw_env(render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert isinstance(text, str) and text
    v = e.view(e.agent_selection)
    assert v.is_my_turn()


def test_two_player_api_and_zero_sum() -> None:
    """docs/rules.md §12: two agents, each his own team; the rewards cancel."""
    api_test(raw_env(rules="two_player"), num_cycles=300)
    e = raw_env(rules="two_player")
    assert e.possible_agents == ["player_0", "player_1"]
    for seed in range(3):
        r = play(e, seed)
        assert len(r) == 2 and r[0] == -r[1]
        s = e.position.deal_scores()
        assert r[0] == s[0] - s[1]

"""The Gymnasium environment passes Gymnasium's own checker, unchanged."""

from __future__ import annotations

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from seep.integrations.gymnasium import SeepEnv  # noqa: E402

pytestmark = pytest.mark.default_build_only


@pytest.mark.parametrize("seat", [0, 3])
def test_check_env(seat: int) -> None:
    check_env(SeepEnv(seat=seat, opponents="greedy"), skip_render_check=False)


def test_registered_and_made() -> None:
    env = gym.make("Seep-v0", opponents="greedy", render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)
    env.reset(seed=0)
    assert isinstance(env.render(), str)


def test_a_masked_episode_ends_with_the_score_difference() -> None:
    env = SeepEnv(seat=1, opponents="random", partner="greedy")
    obs, info = env.reset(seed=7)
    rng = np.random.default_rng(0)
    total, steps, done = 0.0, 0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
        assert not info["illegal"] and not truncated
        total += float(reward)
        steps += 1
    s = info["deal_scores"]
    assert total == s[1] - s[0]
    assert steps >= 12 and sum(1 for seat, _ in env.history if seat == 1) >= 12


def test_illegal_action_changes_nothing() -> None:
    env = SeepEnv()
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, reward, done, _, info = env.step(bad)
    assert info["illegal"] and reward == -1.0 and not done
    assert np.array_equal(obs["observation"], obs2["observation"])


def test_seeded_resets_repeat() -> None:
    a, b = SeepEnv(), SeepEnv()
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert np.array_equal(oa["observation"], ob["observation"])
    assert a.history == b.history


def test_action_mask_in_info_and_action_masks() -> None:
    env = SeepEnv()
    obs, info = env.reset(seed=4)
    assert (info["action_mask"] == obs["action_mask"]).all()
    assert (env.action_masks() == obs["action_mask"].astype(bool)).all()
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    obs, _r, _d, _t, info = env.step(legal)
    assert (info["action_mask"] == obs["action_mask"]).all()
    assert SeepEnv.metadata["render_fps"] > 0


def test_illegal_actions_in_a_row_truncate() -> None:
    env = SeepEnv(max_illegal=5)
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for k in range(5):
        _o, _r, terminated, truncated, _i = env.step(bad)
        assert not terminated and truncated == (k == 4)


def test_gym_make_by_module_path() -> None:
    import gymnasium as gym

    env = gym.make("seep.integrations.gymnasium:Seep-v0", opponents="greedy")
    obs, info = env.reset(seed=2)
    assert "action_mask" in info and obs["observation"].shape == (504,)


@pytest.mark.parametrize("seat", [0, 1])
def test_two_players_against_one_bot(seat: int) -> None:
    """docs/rules.md §12: the agent against one chosen bot; Gymnasium's checker passes."""
    check_env(SeepEnv(seat=seat, opponents="heuristic", rules="two_player"))
    env = SeepEnv(seat=seat, opponents="greedy", rules="two_player")
    assert set(env.bots) == {1 - seat}
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(seat)
    total, done = 0.0, False
    while not done:
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += float(reward)
    s = info["deal_scores"]
    assert total == s[seat] - s[1 - seat]
    assert sum(1 for who, _ in env.history if who == seat) >= 24
    assert ((obs["observation"] >= 0) & (obs["observation"] <= 1)).all()
    with pytest.raises(ValueError, match="seat must be"):
        SeepEnv(seat=2, rules="two_player")


def test_render_names_the_last_seat_by_compass_and_number() -> None:
    env = SeepEnv(seat=0, opponents="greedy", render_mode="ansi")
    env.reset(seed=0)
    seat, _ = env.history[-1]
    last = str(env.render()).splitlines()[-1]
    assert last.startswith(f"last move: {'NWSE'[seat]} (seat {seat}) ")

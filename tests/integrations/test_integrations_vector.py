"""The batched environments: shapes, masks, autoreset, truncation, determinism."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from seep.integrations.actions import NUM_ACTIONS
from seep.integrations.vector import SeepSelfPlayVectorEnv, SeepVectorEnv


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("cls", [SeepVectorEnv, SeepSelfPlayVectorEnv])
def test_deals_run_to_the_end_and_reset_on_the_next_step(cls: type) -> None:
    envs = cls(num_envs=3)
    obs, info = envs.reset(seed=7)
    assert obs["observation"].shape == (3, 504) and obs["action_mask"].shape == (3, NUM_ACTIONS)
    assert envs.action_masks().dtype == np.bool_ and envs.action_masks().any(axis=1).all()
    rng = np.random.default_rng(0)
    ended = np.zeros(3, np.int64)
    was_done = np.zeros(3, np.bool_)
    for _ in range(400):
        obs, rewards, terminated, truncated, info = envs.step(
            _random_actions(obs["action_mask"], rng)
        )
        assert (info["action_mask"] == obs["action_mask"]).all()
        assert obs["action_mask"].any(axis=1).all()  # after autoreset too: never a dead end
        # next-step autoreset: the step after the end gives reward 0 and a fresh deal
        assert not np.asarray(rewards)[was_done].any()
        assert not truncated.any()
        ended += terminated
        was_done = terminated | truncated
    assert (ended >= 2).all()


def test_same_seed_same_games() -> None:
    def run() -> list[float]:
        envs = SeepVectorEnv(num_envs=2)
        obs, _ = envs.reset(seed=11)
        rng = np.random.default_rng(1)
        out = []
        for _ in range(150):
            obs, r, *_ = envs.step(_random_actions(obs["action_mask"], rng))
            out += list(r)
        return out

    assert run() == run()


def test_illegal_actions_are_refused_then_truncate() -> None:
    envs = SeepVectorEnv(num_envs=2, max_illegal=5, illegal_reward=-0.5)
    obs, _ = envs.reset(seed=3)
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in obs["action_mask"]])
    for k in range(5):
        obs, rewards, terminated, truncated, _ = envs.step(bad)
        assert (rewards == -0.5).all() and not terminated.any()
        assert truncated.all() == (k == 4)


def test_self_play_rewards_are_per_seat_and_zero_sum() -> None:
    envs = SeepSelfPlayVectorEnv(num_envs=2)
    obs, info = envs.reset(seed=5)
    rng = np.random.default_rng(2)
    seen_end = False
    for _ in range(300):
        obs, rewards, terminated, _t, info = envs.step(_random_actions(obs["action_mask"], rng))
        assert rewards.shape == (2, 4)
        for i in np.flatnonzero(terminated):
            seen_end = True
            r = rewards[i]
            assert r[0] == r[2] == -r[1] == -r[3]
        assert set(info["agent"]) <= {0, 1, 2, 3}
    assert seen_end


def test_two_players() -> None:
    envs = SeepSelfPlayVectorEnv(num_envs=2, rules="two_player")
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(200):
        obs, rewards, terminated, _t, info = envs.step(_random_actions(obs["action_mask"], rng))
        assert rewards.shape == (2, 2) and set(info["agent"]) <= {0, 1}
        ended += int(terminated.sum())
    assert ended
    single = SeepVectorEnv(num_envs=2, rules="two_player", seat=1)
    obs, _ = single.reset(seed=2)
    for _ in range(60):
        obs, *_ = single.step(_random_actions(obs["action_mask"], rng))


class _ViewRandom:
    """RandomBot's choice made through its view, as any other bot is played (the env plays
    only the RandomBot class itself inline)."""

    name = "view-random"

    def choose(self, view, rng):  # type: ignore[no-untyped-def]
        from seep.bots.base import RandomBot

        return RandomBot().choose(view, rng)


@pytest.mark.parametrize("rules", ["standard", "two_player"])
def test_inline_random_bots_play_as_random_bot(rules: str) -> None:
    """The random opponents move inline, without a view: the same moves as RandomBot given
    its view and the same random source."""

    def run(bot: object) -> list[np.ndarray]:
        envs = SeepVectorEnv(num_envs=3, opponents=bot, partner=bot, rules=rules)  # type: ignore[arg-type]
        obs, _ = envs.reset(seed=21)
        rng = np.random.default_rng(5)
        out = []
        for _ in range(120):
            obs, r, *_ = envs.step(_random_actions(obs["action_mask"], rng))
            out += [obs["observation"].copy(), r]
        return out

    inline, viewed = run("random"), run(_ViewRandom())
    assert all(np.array_equal(a, b) for a, b in zip(inline, viewed, strict=True))


def _digest(envs: object, seed: int, steps: int, illegal_every: int = 0) -> str:
    """A digest of every array a seeded run returns (observations, masks, rewards, flags,
    infos), for the byte-equality check of a change made for speed."""
    import hashlib

    h = hashlib.sha256()

    def put(*arrays: np.ndarray) -> None:
        for a in arrays:
            a = np.asarray(a)
            h.update(f"{a.dtype}{a.shape}".encode())
            h.update(a.tobytes())

    obs, info = envs.reset(seed=seed)  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    put(obs["observation"], obs["action_mask"], *info.values())
    for k in range(steps):
        acts = _random_actions(obs["action_mask"], rng)
        if illegal_every and k % illegal_every == 0:
            acts = rng.integers(-2, 140, size=acts.shape)
        obs, r, te, tr, info = envs.step(acts)  # type: ignore[attr-defined]
        put(obs["observation"], obs["action_mask"], r, te, tr, *info.values())
        put(envs.action_masks())  # type: ignore[attr-defined]
    return h.hexdigest()[:16]


# Recorded before the environments' step was compiled (seep.integrations.hotpath): what they
# return must never change for speed.
_SEEDED_RUNS = {
    "vs_random": (lambda: SeepVectorEnv(num_envs=8), 4, 250, 0),
    "illegal": (lambda: SeepVectorEnv(num_envs=5, max_illegal=3, illegal_reward=-0.5), 9, 200, 3),
    "seat2_scaled": (lambda: SeepVectorEnv(num_envs=4, seat=2, reward_scale=0.1), 1, 200, 0),
    "two_players": (lambda: SeepVectorEnv(num_envs=4, seat=1, rules="two_player"), 2, 200, 0),
    "vs_greedy": (lambda: SeepVectorEnv(num_envs=3, opponents="greedy"), 3, 120, 0),
    "float32_rewards": (
        lambda: SeepVectorEnv(
            num_envs=4, reward_scale=np.float32(0.1), illegal_reward=np.float32(-0.3)
        ),
        7,
        200,
        5,
    ),
    "team_retention": (
        lambda: SeepVectorEnv(num_envs=3, rules={"add_retention": "team"}),
        5,
        120,
        0,
    ),
    "self_play": (lambda: SeepSelfPlayVectorEnv(num_envs=8), 4, 250, 0),
    "self_play_illegal": (lambda: SeepSelfPlayVectorEnv(num_envs=4, max_illegal=2), 8, 200, 2),
    "self_play_two": (lambda: SeepSelfPlayVectorEnv(num_envs=4, rules="two_player"), 6, 200, 0),
}
_DIGESTS = {
    "vs_random": "57632d76d5e662aa",
    "illegal": "311e3fb38da08ea0",
    "seat2_scaled": "f3a6985a9bcba0e8",
    "two_players": "2452bbab00117e1a",
    "vs_greedy": "dc0182a6ed3f1216",
    "float32_rewards": "01be6d79583d87d7",
    "team_retention": "88d8c85d36c5483a",
    "self_play": "d646580e53815933",
    "self_play_illegal": "5e37a73f45541384",
    "self_play_two": "17794d7b8a9ac538",
}


@pytest.mark.parametrize("name", sorted(_SEEDED_RUNS))
def test_seeded_runs_return_what_they_returned(name: str) -> None:
    """Byte for byte what a seeded run returned before the step was compiled: observations,
    masks, rewards, flags and infos (random opponents inline, others through their views,
    illegal actions, two players, self-play)."""
    make, seed, steps, illegal_every = _SEEDED_RUNS[name]
    assert _digest(make(), seed, steps, illegal_every) == _DIGESTS[name]

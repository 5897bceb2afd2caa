"""The action mask after ``gymnasium.make("Seep-v0")``, where sb3-contrib looks for it, and
docs/research.md's Gymnasium examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

import seep.integrations.gymnasium  # noqa: E402, F401  (registers Seep-v0)

pytestmark = pytest.mark.default_build_only

RESEARCH = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def gymnasium_examples() -> list[str]:
    """The Python blocks of the section "Gymnasium: SeepEnv / Seep-v0"."""
    text = RESEARCH.read_text(encoding="utf-8")
    section = text.split("## Gymnasium", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_mask_is_reachable_on_what_make_returns() -> None:
    env = gym.make("Seep-v0", opponents="greedy")
    obs, info = env.reset(seed=5)
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (133,) and mask.any()
    assert np.array_equal(mask, info["action_mask"].astype(bool))
    assert np.array_equal(mask, obs["action_mask"].astype(bool))
    assert np.array_equal(mask, env.get_wrapper_attr("action_masks")())
    obs, _, _, _, info = env.step(int(np.flatnonzero(mask)[0]))
    assert not info["illegal"]
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))


def test_under_a_wrapper_of_ones_own_get_wrapper_attr_finds_it() -> None:
    env = gym.wrappers.RecordEpisodeStatistics(gym.make("Seep-v0"))
    _, info = env.reset(seed=2)
    found = env.get_wrapper_attr("action_masks")()
    assert np.array_equal(found, info["action_mask"].astype(bool))


def test_sb3_contrib_finds_the_mask() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = gym.make("Seep-v0")
    _, info = env.reset(seed=4)
    assert is_masking_supported(env)
    assert np.array_equal(get_action_masks(env), info["action_mask"].astype(bool))
    vec = DummyVecEnv([lambda: gym.make("Seep-v0")])
    vec.reset()
    assert is_masking_supported(vec) and get_action_masks(vec).shape == (1, 133)


def test_the_docs_gymnasium_examples_run() -> None:
    """The first block alone; the MaskablePPO block too where sb3-contrib is installed (a
    64-step learn: about 2 s)."""
    blocks = gymnasium_examples()
    assert len(blocks) == 2 and "action_masks()" in blocks[0] and "MaskablePPO" in blocks[1]
    scope: dict[str, object] = {}
    exec(compile(blocks[0], "research.md: Gymnasium", "exec"), scope)
    mask = scope["mask"]
    assert isinstance(mask, np.ndarray) and mask.shape == (133,)
    pytest.importorskip("sb3_contrib")
    exec(compile(blocks[1], "research.md: MaskablePPO", "exec"), scope)
    env, action = scope["env"], int(scope["action"])  # type: ignore[call-overload]
    assert env.action_masks()[action]  # type: ignore[attr-defined]

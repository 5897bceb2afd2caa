"""The arena's Ray backend on a local Ray started here: the same results as the local backend.

Skipped only when Ray is not installed (it is the optional extra ``seep-game[ray]``, which
``make test`` installs through the ``dev`` extra).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'seep-game[ray]')")

from seep.arena import BotError, round_robin, run_match  # noqa: E402
from seep.bots import BOTS, make_bot  # noqa: E402
from seepkit.arena_plugin import PLUGIN, write_plugin  # noqa: E402

make_bot("random")  # load the built-in bots
OTHER = "greedy" if "greedy" in BOTS else "random"


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A small local Ray for this module (the arena uses an initialized Ray as it is), and the
    test bots' plugin module importable here and in Ray's workers."""
    plugin_dir = str(write_plugin(tmp_path_factory.mktemp("ray-plugin")))
    sys.path.insert(0, plugin_dir)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"PYTHONPATH": plugin_dir}},
    )
    try:
        yield
    finally:
        ray.shutdown()
        sys.path.remove(plugin_dir)
        sys.modules.pop(PLUGIN, None)
        for name in [n for n in BOTS if n.startswith("arena-")]:
            del BOTS[name]


def test_ray_deals_equal_local(local_ray: None) -> None:
    kwargs = {"deals": 12, "seed": 21, "records": True}
    local = run_match(OTHER, "random", **kwargs)
    remote = run_match(OTHER, "random", backend="ray", workers=2, **kwargs)
    assert remote.to_dict(timing=False) == local.to_dict(timing=False)
    assert remote.games == local.games
    assert json.dumps(remote.records()) == json.dumps(local.records())
    assert remote.to_dict()["backend"] == "ray"
    assert ray.is_initialized()  # a Ray the arena did not start is left running


def test_ray_baazis_and_round_robin_equal_local(local_ray: None) -> None:
    local = run_match("random", OTHER, baazis=4, seed=5)
    remote = run_match("random", OTHER, baazis=4, seed=5, backend="ray", workers=2)
    assert remote.to_dict(timing=False) == local.to_dict(timing=False)
    bots = ["random", OTHER] if OTHER != "random" else ["random", "easy"]
    if "easy" not in BOTS and OTHER == "random":
        pytest.skip("a round robin needs two different bots")
    rr_local = round_robin(bots, deals=4, seed=6)
    rr_ray = round_robin(bots, deals=4, seed=6, backend="ray")
    assert rr_ray.to_dict(timing=False) == rr_local.to_dict(timing=False)


def test_ray_task_errors_come_back_as_the_arena_error(local_ray: None) -> None:
    # The illegal move happens inside a Ray task; the caller gets the arena's own BotError.
    with pytest.raises(BotError, match=r"arena-cheat.*illegal move"):
        run_match("arena-cheat", "random", deals=4, backend="ray", plugins=[PLUGIN])

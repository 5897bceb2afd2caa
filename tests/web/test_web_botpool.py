"""The bot pool (docs/web.md "Bots"): slow bots think in worker processes that get only the
seat's view as docs/format.md JSON; a worker that overruns its move's budget is not waited for (a
cheap bot moves instead) and a stuck one is replaced; one client may keep only a few tables of
hard or expert bots open.

The worker functions are at the top of this module, which the worker processes import."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from seep.engine import Position
from seep.view import View
from seep.web.botpool import BotPool, think

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def spy(request: str) -> str:
    """A worker that answers like :func:`think` and tells what it got and where it ran."""
    assert isinstance(request, str)
    req = json.loads(request)
    assert View.from_dict(req["view"]).to_dict() == req["view"]
    answer = json.loads(think(request))
    answer["reason"] = json.dumps({"pid": os.getpid(), "keys": sorted(req)})
    return json.dumps(answer)


def sleepy(request: str) -> str:
    """A worker whose search never ends when asked for the bot "stuck"."""
    if json.loads(request)["bot"] == "stuck":
        time.sleep(120)
    return think(request)


def _view() -> View:
    pos = Position.new_deal(7)
    return View.from_position(pos, pos.bidder)


def test_slow_bots_think_in_another_process_from_the_view_alone() -> None:
    pool = BotPool(1, budget=60.0, worker=spy)

    async def go() -> Any:
        return await pool.choose("hard", _view(), 5)

    try:
        decision = asyncio.run(go())
    finally:
        pool.close()
    told = json.loads(decision.reason)
    assert told["pid"] != os.getpid()
    # What crossed: the bot's name, the view, a seed for its RNG and the deadline. No position.
    assert told["keys"] == ["bot", "deadline", "seed", "view"]
    assert int(decision.move) in _view().legal_codes()
    assert pool.fallbacks == 0


def test_an_overrun_is_not_waited_for_and_a_stuck_worker_is_replaced() -> None:
    pool = BotPool(1, budget=0.5, worker=sleepy)
    pool.stuck_after = 0.5
    view = _view()

    async def go() -> None:
        t0 = time.perf_counter()
        late = await pool.choose("stuck", view, 1)
        waited = time.perf_counter() - t0
        # The table got the cheap bot's move instead, and not much after the budget.
        assert int(late.move) in view.legal_codes()
        assert pool.fallbacks == 1
        print(f"\nan overrunning worker: the fallback move came after {waited:.2f} s")
        await asyncio.sleep(1.5)  # the worker is now stuck past its deadline
        pool.budget = 60.0
        # The one worker is still asleep: only a fresh pool can answer this one.
        good = await pool.choose("hard", view, 2)
        assert int(good.move) in view.legal_codes()
        assert pool.fallbacks == 1 and pool.restarts == 1

    try:
        asyncio.run(go())
    finally:
        pool.close()


def test_a_request_that_waited_past_its_deadline_is_skipped() -> None:
    request = json.dumps(
        {"bot": "expert", "view": _view().to_dict(), "seed": 1, "deadline": time.time() - 1}
    )
    assert json.loads(think(request)) == {"late": True}


def test_hard_and_expert_tables_are_capped_per_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from seepkit.web import web_client

    monkeypatch.setenv("SEEP_MAX_EXPERT_TABLES", "2")
    with web_client(tmp_path) as (client, manager, _):
        for bots in ("hard", "expert"):
            r = client.post("/api/tables", json={"bots": bots})
            assert r.status_code == 201, r.text
        r = client.post("/api/tables", json={"bots": "expert"})
        assert r.status_code == 429
        err = r.json()["error"]
        assert err["code"] == "too_many_tables" and "at most 2" in err["message"]
        # Cheap bots are not counted, and a closed table frees its place.
        assert client.post("/api/tables", json={"bots": "medium"}).status_code == 201
        first = next(t for t in manager.tables.values() if t.settings["bots"] == "hard")
        client.portal.call(_close, manager, first)  # type: ignore[union-attr]
        assert client.post("/api/tables", json={"bots": "expert"}).status_code == 201


async def _close(manager: Any, table: Any) -> None:
    manager.close(table)


@pytest.mark.parametrize(
    ("name", "value"),
    [("SEEP_BOT_WORKERS", "0"), ("SEEP_BOT_SECONDS", "-1"), ("SEEP_ABANDONED_HOURS", "x")],
)
def test_bad_settings_say_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    from seep.web.app import create_app

    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit, match=name):
        create_app(f"sqlite:///{tmp_path / 'seep.db'}")

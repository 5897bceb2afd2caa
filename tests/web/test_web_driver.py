"""The driver's timers (:class:`seep.web.driver.Driver`): a bot's move is timed with slack, so
the bots of many tables due within one tick move in one pass of the event loop; a short pause
and a player's turn clock keep their exact times."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("pydantic")

from seep.web.driver import BOT_TIMER_SLACK, Callbacks, Driver


def _never(*args: Any) -> Any:
    raise AssertionError("no timer should fire in this test")


def _table(code: str, *, bot: bool, turn_seconds: float | None = None) -> Any:
    """What the driver reads of a table: a human at seat 0 (connected), seat 1 to move, a
    bot there or another human."""
    human = SimpleNamespace(kind="human", connections=1)
    return SimpleNamespace(
        code=code,
        status="playing",
        seats=[human, SimpleNamespace(kind="bot" if bot else "human", connections=1)],
        to_move=1,
        game_version=3,
        settings={"turn_seconds": turn_seconds},
        deadline=None,
        by_bot=lambda seat: bot,
        all_ready=lambda: False,
        deal_over=lambda: False,
    )


def _driver() -> Driver:
    cb = Callbacks(*([_never] * 11))
    return Driver(cb, clock=lambda: 0.0)


def _when(driver: Driver, code: str) -> float:
    handle = driver.tasks[code].task
    assert isinstance(handle, asyncio.TimerHandle)
    when: float = handle.when()
    handle.cancel()
    return when


def test_bots_due_within_a_tick_move_together() -> None:
    async def run() -> tuple[float, list[float]]:
        loop = asyncio.get_running_loop()
        driver = _driver()
        start = loop.time()
        for i in range(5):
            driver.drive(_table(f"T{i}", bot=True), 0.6, 60.0)
        return start, [_when(driver, f"T{i}") for i in range(5)]

    start, whens = asyncio.run(run())
    # One tick for all five (scheduled microseconds apart, or across one tick's edge: two).
    assert len(set(whens)) <= 2
    for when in whens:
        # The nearest tick: bot_delay on average, never more than half a tick off.
        assert start + 0.6 - BOT_TIMER_SLACK / 2 <= when < start + 0.6 + BOT_TIMER_SLACK / 2 + 0.01
        ticks = when / BOT_TIMER_SLACK
        assert abs(ticks - round(ticks)) < 1e-6


def test_short_pauses_and_turn_clocks_are_exact() -> None:
    async def run(table: Any, delay: float) -> tuple[float, float, float]:
        loop = asyncio.get_running_loop()
        driver = _driver()
        before = loop.time()
        driver.drive(table, delay, 60.0)
        after = loop.time()
        return before, _when(driver, table.code), after

    # A bot's pause under five ticks (tests, a short --bot-delay): no slack.
    before, when, after = asyncio.run(run(_table("B", bot=True), 0.05))
    assert before + 0.05 <= when <= after + 0.05
    # A human's turn clock (turn_seconds) is his deadline, shown to the players: no slack.
    table = _table("C", bot=False, turn_seconds=30)
    before, when, after = asyncio.run(run(table, 0.6))
    assert before + 30 <= when <= after + 30
    assert table.deadline == 30.0  # the driver's clock (0) + turn_seconds

"""A connection's outbox (:class:`seep.web.hub.Outbox`): the messages reach its one writer in
order, a waiting writer is woken by the next one, and a writer cancelled while it waits (its
socket gone) leaves the outbox usable."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pydantic")

from seep.web.hub import Connection, Outbox


def test_messages_come_out_in_order() -> None:
    box = Outbox()
    assert box.empty() and box.qsize() == 0
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()
    for text in ("a", "b", None):
        box.put_nowait(text)
    assert box.qsize() == 3 and not box.empty()
    assert [box.get_nowait() for _ in range(3)] == ["a", "b", None]
    assert box.empty()


def test_a_waiting_writer_is_woken() -> None:
    async def run() -> list[str | None]:
        conn = Connection("ABCDEF", 0)
        got: list[str | None] = []

        async def writer() -> None:
            while True:
                text = await conn.next_message()
                got.append(text)
                if text is None:
                    return

        task = asyncio.create_task(writer())
        await asyncio.sleep(0)  # the writer waits on an empty outbox
        conn.push("one")
        await asyncio.sleep(0)
        conn.push("two")
        conn.push("three")
        conn.close()
        await asyncio.wait_for(task, 1.0)
        return got

    assert asyncio.run(run()) == ["one", "two", "three", None]


def test_a_cancelled_writer_leaves_it_usable() -> None:
    async def run() -> str | None:
        box = Outbox()
        waiting = asyncio.create_task(box.get())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        box.put_nowait("later")  # nobody waits: kept for the next writer
        return await asyncio.wait_for(box.get(), 1.0)

    assert asyncio.run(run()) == "later"

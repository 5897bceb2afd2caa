"""A connection's outbox (:class:`seep.web.hub.Outbox`): the messages reach its one writer in
order, a waiting writer is woken by the next one, and a writer cancelled while it waits (its
socket gone) leaves the outbox usable."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pydantic")

from seep.web.hub import CLOSE_TOO_SLOW, MAX_QUEUED, Connection, Outbox


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


def test_a_socket_that_reads_nothing_is_ended_not_fed() -> None:
    """Its writer waits for a transport that never drains: past MAX_QUEUED waiting messages
    the queue is dropped and the connection ended (1013, the page reconnects and is sent a
    complete state); nothing more piles up for it."""
    conn = Connection("ABCDEF", 0)
    for i in range(MAX_QUEUED):
        conn.push(f"state {i}")
    assert conn.queue.qsize() == MAX_QUEUED and conn.close_code is None
    conn.push("one too many")
    assert conn.close_code == CLOSE_TOO_SLOW == 1013
    assert [conn.queue.get_nowait() for _ in range(conn.queue.qsize())] == [None]
    for i in range(3 * MAX_QUEUED):
        conn.push(f"later {i}")
    assert conn.queue.empty()


def test_an_ended_connection_is_sent_what_came_before_its_end() -> None:
    conn = Connection("ABCDEF", None)
    conn.push("last words")
    conn.end(4429)
    conn.push("after the end")
    assert [conn.queue.get_nowait() for _ in range(2)] == ["last words", None]
    assert conn.queue.empty() and conn.close_code == 4429

"""One budget per client, not per socket, and seats before spectators (issue 23, items 1 and
4), against a real ``seep serve`` on loopback: sockets per address are capped server-wide and
per table, one message budget is shared by all of an address's sockets, a message of too many
JSON tokens is refused before it is parsed, a flooding address loses its sockets, and a seated
player gets into a full table (a spectator leaves for him). Each address below is its own
127.0.0.x; every flood is bounded in count and time."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from seep.web.limits import MessageBudget
from seepkit.server import Served, serve

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="loopback 127.0.0.x: Linux")

SETTINGS = {
    "SEEP_MAX_SOCKETS_PER_CLIENT": "10",
    "SEEP_MAX_SOCKETS_PER_CLIENT_TABLE": "8",
    "SEEP_MAX_SPECTATORS_PER_CLIENT_TABLE": "6",
    "SEEP_MAX_TABLE_CONNECTIONS": "12",
    "SEEP_MESSAGE_BUDGET": "20",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("budget")
    db = ["--database-url", f"sqlite:///{tmp / 'seep.db'}", "--bot-delay", "0.05"]
    with serve(tmp, *db, env=SETTINGS) as served:
        yield served


def _table(served: Served, source: str) -> dict[str, Any]:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, base_url=served.base, timeout=10) as http:
        made: dict[str, Any] = http.post("/api/tables", json={"name": "Asha"}).json()
        return made


async def _open(served: Served, code: str, source: str, token: str | None = None) -> Any:
    """A socket to ``code`` from ``source``; with ``token`` it says hello for that seat."""
    url = f"ws://127.0.0.1:{served.port}/ws/{code}"
    ws = await websockets.connect(url, local_addr=(source, 0), open_timeout=10)
    if token is not None:
        await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


async def _seated(ws: Any) -> None:
    """Wait for the state that shows ``ws`` in its seat (its hello taken)."""
    while (await _until(ws, "state"))["seat"] is None:
        pass


async def _refusal(ws: Any) -> tuple[str, int | None]:
    """The error code a refused socket gets, and the code it is closed with."""
    code = ""
    try:
        async with asyncio.timeout(10):
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] == "error":
                    code = msg["code"]
    except websockets.ConnectionClosed:
        pass
    return code, ws.close_code


async def _until(ws: Any, kind: str, seconds: float = 10.0) -> dict[str, Any]:
    async with asyncio.timeout(seconds):
        while True:
            msg: dict[str, Any] = json.loads(await ws.recv())
            if msg["type"] == kind:
                return msg


def test_sockets_per_address_are_capped_server_wide_and_per_table(server: Served) -> None:
    one = _table(server, "127.0.0.11")
    two = _table(server, "127.0.0.11")

    async def run() -> None:
        mine = [await _open(server, one["code"], "127.0.0.11", one["token"]) for _ in range(2)]
        for ws in mine:
            await _seated(ws)
        mine += [await _open(server, one["code"], "127.0.0.11") for _ in range(6)]
        # A seventh spectator of his at this table, then a ninth socket: both refused.
        assert await _refusal(await _open(server, one["code"], "127.0.0.11")) == (
            "too_many_connections",
            4429,
        )
        mine += [await _open(server, two["code"], "127.0.0.11") for _ in range(2)]
        assert await _refusal(await _open(server, two["code"], "127.0.0.11")) == (
            "too_many_connections",
            4429,
        )  # ten sockets server-wide: his limit
        other = await _open(server, one["code"], "127.0.0.12")  # another address gets in
        assert (await _until(other, "state"))["type"] == "state"
        for ws in [*mine, other]:
            await ws.close()
        # Closed sockets no longer count.
        again = await _open(server, two["code"], "127.0.0.11")
        await _until(again, "state")
        await again.close()

    asyncio.run(run())


def test_one_message_budget_for_all_of_an_addresss_sockets(server: Served) -> None:
    made = _table(server, "127.0.0.13")

    async def pongs(source: str, sockets: int, each: int) -> tuple[int, int]:
        socks = [await _open(server, made["code"], source) for _ in range(sockets)]
        for ws in socks:
            await _until(ws, "state")
        for ws in socks:
            for _ in range(each):
                await ws.send('{"type": "ping"}')
        got = errors = 0
        for ws in socks:
            try:
                async with asyncio.timeout(1.5):
                    async for raw in ws:
                        kind = json.loads(raw)["type"]
                        got += kind == "pong"
                        errors += kind == "error"
            except TimeoutError:
                pass
            await ws.close()
        return got, errors

    async def run() -> None:
        # 4 sockets of 15 pings each: under the old limit (20 a second per socket) all 60
        # came back; one budget of 20 a second (40 at once) for the address holds them.
        got, errors = await pongs("127.0.0.14", 4, 15)
        assert 35 <= got <= 48 and errors >= 1
        # Another address has its own budget.
        assert (await pongs("127.0.0.15", 1, 15))[0] == 15

    asyncio.run(run())


def test_too_many_json_tokens_are_refused_before_parsing(server: Served) -> None:
    made = _table(server, "127.0.0.16")

    async def run() -> None:
        ws = await _open(server, made["code"], "127.0.0.16", made["token"])
        await _until(ws, "state")
        nested = '{"type": "ping", "x": ' + "[" * 20 + "1," * 5000 + "1" + "]" * 20 + "}"
        assert len(nested) < 16 * 1024  # within the byte cap: only its tokens are too many
        await ws.send(nested)
        error = await _until(ws, "error")
        assert error["code"] == "too_large" and "JSON tokens" in error["message"]
        await ws.send('{"type": "ping"}')
        await _until(ws, "pong")  # the socket goes on
        await ws.close()

    asyncio.run(run())


def test_a_flooding_address_loses_its_sockets(server: Served) -> None:
    made = _table(server, "127.0.0.17")

    async def run() -> None:
        socks = [await _open(server, made["code"], "127.0.0.17") for _ in range(3)]
        for ws in socks:
            await _until(ws, "state")
        with pytest.raises(websockets.ConnectionClosed):
            async with asyncio.timeout(20):
                for _ in range(3000):  # bounded: the server closes them long before
                    for ws in socks:
                        await ws.send('{"type": "ping"}')
                    await asyncio.sleep(0)
        for ws in socks:
            assert (await _refusal(ws))[1] == 4429
        # Its new sockets are refused for the penalty's length; other addresses are not.
        again = await _open(server, made["code"], "127.0.0.17")
        assert await _refusal(again) == ("rate_limited", 4429)
        other = await _open(server, made["code"], "127.0.0.18")
        await _until(other, "state")
        await other.close()

    asyncio.run(run())


def test_a_seated_player_gets_into_a_full_table(server: Served) -> None:
    made = _table(server, "127.0.0.19")
    code = made["code"]

    async def run() -> None:
        watchers = [await _open(server, code, f"127.0.0.{20 + i // 6}") for i in range(12)]
        for ws in watchers:
            await _until(ws, "state")
        # Full: a spectator knocking gets in on trial only, and goes at his first message.
        knocker = await _open(server, code, "127.0.0.23")
        await knocker.send('{"type": "ping"}')
        assert await _refusal(knocker) == ("too_many_connections", 1013)
        # The seated player's hello gets in, and a spectator leaves for him.
        player = await _open(server, code, "127.0.0.19", made["token"])
        await _seated(player)
        dropped = 0
        for ws in watchers:
            try:
                async with asyncio.timeout(0.5):
                    async for _ in ws:
                        pass
            except TimeoutError:
                continue
            except websockets.ConnectionClosed:
                pass
            dropped += ws.close_code == 1013
        assert dropped == 1
        for ws in [*watchers, player]:
            await ws.close()

    asyncio.run(run())


def test_message_budget_refills_and_bans_after_sustained_abuse() -> None:
    now = [0.0]
    budget = MessageBudget(10, 20, abuse=5, window=10, penalty=30, clock=lambda: now[0])
    assert all(budget.charge("a", 1) for _ in range(20))
    assert not budget.charge("a", 1) and budget.charge("b", 4)  # one bucket per key
    now[0] += 0.5
    assert budget.charge("a", 5) and not budget.charge("a", 1)  # 5 units back in 0.5 s
    assert not any(budget.refused("a") for _ in range(5))
    assert budget.refused("a") and budget.banned("a")  # the sixth refusal in 10 s
    now[0] += 30
    assert not budget.banned("a")

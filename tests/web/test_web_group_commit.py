"""The moves' group commit (seep.web.group_commit, issue 24): a turn's moves go in one
transaction, on the event loop when SQLite takes them at once, else in the writer thread,
where moves handed while a batch is written go in the next transaction together; the event
loop never waits for a lock, each move's outcome is its own, and the app's shutdown writes
what it was handed.

The refusals as several instances see them (a lease lost, a move stored twice), on SQLite and
PostgreSQL, are in test_web_cluster.py
(``test_a_group_commit_refuses_only_the_moves_it_must``)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from seep.web.group_commit import GroupCommit
from seep.web.schema import StoreConflict, StoreUnavailable
from seep.web.store import Store
from seep.web.tables import Table, parse_settings


def _move(seq: int) -> dict[str, Any]:
    return {"seat": seq % 4, "bid": 9}


def _store(tmp_path: Path, *codes: str) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'seep.db'}")
    for code in codes:
        store.create_table(Table(code, parse_settings({"bots": "easy"}), 1))
    return store


def _stored(tmp_path: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(tmp_path / "seep.db") as c:
        return list(c.execute("SELECT code, seq FROM moves ORDER BY code, seq"))


class HeldStore:
    """A store whose first write waits until released: what a checkpoint does to SQLite."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, int, dict[str, Any], int]]] = []
        self.release = threading.Event()
        self.timed_calls: list[str] = []

    def write_moves(self, moves: list[tuple[str, int, dict[str, Any], int]]) -> list[Any]:
        self.calls.append(list(moves))
        if len(self.calls) == 1:
            assert self.release.wait(10)
        return [StoreConflict("taken") if code == "TAKEN" else None for code, *_ in moves]

    def write_moves_now(self, moves: list[tuple[str, int, dict[str, Any], int]]) -> bool:
        return False  # always busy: every move goes through the thread

    def timed(self, what: str, seconds: float, times: int = 1) -> None:
        self.timed_calls.extend([what] * times)  # a batch's moves told at once


def test_moves_handed_meanwhile_are_written_together_and_the_loop_goes_on() -> None:
    store = HeldStore()
    writer = GroupCommit(store, most=3)  # type: ignore[arg-type]
    told: list[tuple[str, Any, bool]] = []
    loop_thread = threading.get_ident()

    def then(code: str) -> Any:
        return lambda outcome: told.append((code, outcome, threading.get_ident() == loop_thread))

    async def play() -> int:
        writer.write("A", 0, _move(0), 1, then("A"))
        while not store.calls:  # the thread has the first move and waits on the database
            await asyncio.sleep(0.001)
        turns = 0
        for code in ("B", "TAKEN", "C"):  # one turn of the loop: handed over together
            writer.write(code, 0, _move(0), 1, then(code))
        await asyncio.sleep(0)
        writer.write("D", 0, _move(0), 1, then("D"))
        for _ in range(20):  # the loop keeps turning while the write waits
            await asyncio.sleep(0)
            turns += 1
        assert told == []
        store.release.set()
        while len(told) < 5:
            await asyncio.sleep(0.001)
        writer.close()
        return turns

    assert asyncio.run(play()) == 20
    assert [[m[0] for m in call] for call in store.calls] == [["A"], ["B", "TAKEN", "C"], ["D"]]
    assert [(code, type(outcome).__name__, on_loop) for code, outcome, on_loop in told] == [
        ("A", "NoneType", True),
        ("B", "NoneType", True),
        ("TAKEN", "StoreConflict", True),
        ("C", "NoneType", True),
        ("D", "NoneType", True),
    ]
    assert store.timed_calls == ["move"] * 5  # the metric counts moves, told on the loop


def test_closing_writes_what_was_handed_and_a_later_move_starts_again(tmp_path: Path) -> None:
    store = _store(tmp_path, "AAA", "BBB")
    told: list[Any] = []

    async def play() -> None:
        writer = GroupCommit(store)
        writer.write("AAA", 0, _move(0), 1, told.append)
        writer.write("BBB", 0, _move(0), 1, told.append)
        writer.close()  # the app's shutdown: both written before the thread ends
        await asyncio.sleep(0.05)  # the outcomes are told on the loop once it turns
        writer.write("AAA", 1, _move(1), 2, told.append)
        while len(told) < 3:
            await asyncio.sleep(0.001)
        writer.close()

    try:
        asyncio.run(play())
    finally:
        store.close()
    assert told == [None, None, None]
    assert _stored(tmp_path) == [("AAA", 0), ("AAA", 1), ("BBB", 0)]


class RefuseOne:
    """Makes the database refuse one table's move as a full disk does."""

    def __init__(self, store: Store, code: str) -> None:
        moves: Any = store._moves
        execute, execute_all = moves.execute, moves.execute_all

        def refuse(raw: Any, params: Any) -> int:
            if code in repr(params):
                raise sqlite3.OperationalError("database or disk is full")
            return int(execute(raw, params))

        def refuse_all(raw: Any, writes: Any) -> int:
            if code in repr(writes):
                raise sqlite3.OperationalError("database or disk is full")
            return int(execute_all(raw, writes))

        moves.execute, moves.execute_all = refuse, refuse_all


def test_one_tables_refused_move_is_its_own(tmp_path: Path) -> None:
    store = _store(tmp_path, "AAA", "BAD", "CCC")
    RefuseOne(store, "BAD")
    try:
        outcomes = store.write_moves(
            [("AAA", 0, _move(0), 1), ("BAD", 0, _move(0), 1), ("CCC", 0, _move(0), 1)]
        )
    finally:
        store.close()
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], StoreUnavailable) and "disk is full" in str(outcomes[1])
    assert _stored(tmp_path) == [("AAA", 0), ("CCC", 0)]


def test_a_locked_database_refuses_the_batch_after_two_tries_and_stores_nothing(
    tmp_path: Path,
) -> None:
    codes = [f"T{i:02d}" for i in range(6)]
    store = _store(tmp_path, *codes)
    moves: Any = store._moves
    tries: list[int] = []
    execute = moves.execute

    def counted(raw: Any, params: Any) -> int:
        tries.append(1)
        return int(execute(raw, params))

    moves.execute = counted
    locker = sqlite3.connect(tmp_path / "seep.db", isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        outcomes = store.write_moves([(code, 0, _move(0), 1) for code in codes])
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    try:
        assert all(isinstance(o, StoreUnavailable) for o in outcomes), outcomes
        assert "locked" in str(outcomes[0])
        # Three busy waits in all (all at once, then the first write of each try one by one),
        # not one per move.
        assert len(tries) == 2
        assert _stored(tmp_path) == []
        # The lock gone, the next batch goes through at once.
        assert store.write_moves([(code, 0, _move(0), 1) for code in codes]) == [None] * 6
    finally:
        store.close()
    assert len(_stored(tmp_path)) == 6


def _tries_on_the_loop(store: Store) -> list[list[str]]:
    """The tables of each batch the loop tries to write itself (``write_moves_now``)."""
    now: list[list[str]] = []
    write_moves_now = store.write_moves_now

    def counted(moves: Any) -> bool:
        now.append([m[0] for m in moves])
        return write_moves_now(moves)

    store.write_moves_now = counted  # type: ignore[method-assign]
    return now


def test_a_free_sqlite_file_takes_a_turns_moves_on_the_loop_in_one_transaction(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, "AAA", "BBB", "CCC")
    now = _tries_on_the_loop(store)
    told: list[tuple[str, Any]] = []

    async def play() -> GroupCommit:
        writer = GroupCommit(store)
        for code in ("AAA", "BBB", "CCC"):
            writer.write(code, 0, _move(0), 1, lambda o, code=code: told.append((code, o)))
        await asyncio.sleep(0)  # the turn ends: written at once, told on the loop
        await asyncio.sleep(0)
        writer.write("AAA", 1, _move(1), 2, lambda o: told.append(("AAA", o)))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return writer

    try:
        writer = asyncio.run(play())
    finally:
        store.close()
    assert now == [["AAA", "BBB", "CCC"], ["AAA"]]
    assert told == [("AAA", None), ("BBB", None), ("CCC", None), ("AAA", None)]
    assert writer._thread is None  # no thread was needed
    assert _stored(tmp_path) == [("AAA", 0), ("AAA", 1), ("BBB", 0), ("CCC", 0)]


def test_a_locked_sqlite_file_sends_the_moves_to_the_thread_and_the_loop_goes_on(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, "AAA", "BBB")
    now = _tries_on_the_loop(store)
    told: list[tuple[str, Any]] = []
    locker = sqlite3.connect(tmp_path / "seep.db", isolation_level=None)

    async def play() -> int:
        writer = GroupCommit(store)
        locker.execute("BEGIN EXCLUSIVE")  # what a checkpoint's last step does to writers
        writer.write("AAA", 0, _move(0), 1, lambda o: told.append(("AAA", o)))
        await asyncio.sleep(0)  # refused at once on the loop: the thread waits for the lock
        writer.write("BBB", 0, _move(0), 1, lambda o: told.append(("BBB", o)))
        turns = 0
        for _ in range(20):  # the loop keeps turning meanwhile
            await asyncio.sleep(0)
            turns += 1
        assert told == []
        locker.execute("ROLLBACK")
        while len(told) < 2:
            await asyncio.sleep(0.001)
        writer.write("AAA", 1, _move(1), 2, lambda o: told.append(("AAA", o)))
        while len(told) < 3:
            await asyncio.sleep(0.001)
        writer.close()
        return turns

    try:
        assert asyncio.run(play()) == 20
    finally:
        locker.close()
        store.close()
    # BBB, handed while the thread held AAA, went to the thread without a try on the loop;
    # once the thread had told everything, the loop wrote again.
    assert now == [["AAA"], ["AAA"]]
    assert told == [("AAA", None), ("BBB", None), ("AAA", None)]
    assert _stored(tmp_path) == [("AAA", 0), ("AAA", 1), ("BBB", 0)]

"""Seats that belong to accounts (docs/web.md "Accounts"): a guest who signs up or in keeps the
seats his browser holds, and a deleted account's seats become "a former player" at the live
tables as in the store. The manager calls these; they take its tables and store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping

from .store import Store
from .store_accounts import FORMER_PLAYER
from .table import Table, hash_token

__all__ = ["MAX_HELD_SEATS", "forget_account", "link_seats"]

MAX_HELD_SEATS = 50  # seat tokens a browser may hand over at once


def link_seats(
    tables: MutableMapping[str, Table],
    store: Store | None,
    held: Iterable[tuple[str, str]],
    account: int,
    changed: Callable[[Table], None],
) -> int:
    """Give ``account`` the guest seats of these ``(code, token)`` pairs: at a table in memory
    here, and at a stored one no instance plays (finished, closed); a seat that is an
    account's already stays its own. Returns how many seats were given."""
    given = 0
    for code, token in held:
        table = tables.get(code.upper())
        if table is None:
            if (
                store is not None
                and store.link_stored_seat(code.upper(), hash_token(token), account) is not None
            ):
                given += 1
            continue
        seat = table.seat_of_token(token)
        if seat is None or table.seats[seat].account is not None:
            continue
        table.seats[seat].account = account
        if store is not None:
            store.save_table(table)
        changed(table)
        given += 1
    return given


def forget_account(
    tables: MutableMapping[str, Table], account: int, changed: Callable[[Table], None]
) -> None:
    """A deleted account's seats at the tables in memory: named :data:`FORMER_PLAYER`, no
    account (the store renamed them in the deletion's transaction)."""
    for table in list(tables.values()):
        mine = [s for s in table.seats if s.account == account]
        for seat in mine:
            seat.name, seat.account = FORMER_PLAYER, None
        if mine:
            changed(table)

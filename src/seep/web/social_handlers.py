"""The socket messages of the table's social side: chat, emotes, mute, watchers' names,
rematch, moving a seat to another device (transfer and claim), the coach and reports.

Handlers as in :mod:`seep.web.game_handlers`; :data:`HANDLERS` maps each type to its handler.
"""

from __future__ import annotations

import secrets
from collections import deque
from typing import Any

from . import social, wire
from .hub import CHAT_LIMIT, Connection
from .keeper import Handler, TableKeeper
from .messages import Chat, Claim, Emote, Mute, ReportPlayer, Watch
from .moderation import ModerationError, Reported, until_words
from .table import ChatEntry, Seat, Table, TableError, hash_token

__all__ = ["CLAIM_LIMIT", "HANDLERS", "start_rematch"]

CLAIM_LIMIT = 10  # wrong transfer codes per client per minute


def _speaker(k: TableKeeper, table: Table, conn: Connection) -> tuple[int, str]:
    assert conn.seat is not None
    if conn.seat in table.muted:
        raise TableError("muted", "the host has muted you at this table")
    if k.moderation is not None:
        # From this instance's copy of the sanctions: no database query per line. The muted
        # player is told (his line went to nobody), not left to think he was heard.
        account = table.seats[conn.seat].account
        try:
            k.moderation.check_banned(conn.client, account)
        except ModerationError as exc:
            raise TableError(exc.code, exc.message) from None
        until = k.moderation.muted_until(conn.client, account)
        if until is not None:
            raise TableError(
                "muted", f"a moderator has muted you {until_words(until)}: your line was not sent"
            )
    if not conn.allow_chat(k.clock()):
        raise TableError(
            "rate_limited", f"at most {CHAT_LIMIT[0]} chat lines in {CHAT_LIMIT[1]:g} s"
        )
    return conn.seat, table.seats[conn.seat].name


async def on_chat(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert isinstance(msg, Chat)
    seat, name = _speaker(k, table, conn)
    table.chat_count += 1
    line = table.chat_count
    account = table.seats[seat].account
    table.chat_lines.append(ChatEntry(line, seat, name, account, conn.client, msg.text))
    k.hub.to_all(
        table.code, {"type": "chat", "seat": seat, "name": name, "text": msg.text, "line": line}
    )


async def on_emote(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert isinstance(msg, Emote)
    seat, name = _speaker(k, table, conn)
    k.hub.to_all(table.code, {"type": "emote", "seat": seat, "name": name, "emote": msg.emote})


async def on_mute(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None and isinstance(msg, Mute)
    table.mute(conn.seat, msg.seat, msg.muted)
    k._changed(table, game=False)


async def on_watch(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert isinstance(msg, Watch)
    if conn.seat is not None:
        raise TableError("not_allowed", "a player's name is his seat's")
    if not conn.allow_chat(k.clock()):
        raise TableError("rate_limited", "too many name changes: wait a few seconds")
    conn.name = msg.name or ""
    k.hub.watchers_changed(table.code, k.tables.get)


async def on_rematch(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if table.status != "finished":
        raise TableError("not_allowed", "a rematch is for a finished match")
    if table.rematched is not None:
        raise TableError("not_allowed", f"the rematch has begun at table {table.rematched}")
    table.rematch.add(conn.seat)
    if k.pusher is not None:
        k.pusher.rematch_offered(table)
    here = {c.seat for c in k.hub.of(table.code) if c.seat is not None}
    if here <= table.rematch:
        start_rematch(k, table)
    table.version += 1
    k.hub.broadcast(table)


async def on_transfer(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if table.status not in ("waiting", "playing"):
        raise TableError("not_allowed", f"the table is {table.status}: no seat to carry")
    code, expires = table.transfers.issue(conn.seat, k.clock())
    # The code rides in the link's fragment, which browsers never send to a server.
    link = f"{conn.origin}/t/{table.code}#transfer={code}"
    conn.push(
        wire.dumps(
            {"type": "transfer", "code": code, "expires": expires, "qr": social.qr_svg(link)}
        )
    )


async def on_claim(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert isinstance(msg, Claim)
    if conn.seat is not None:
        raise TableError("not_allowed", "this connection already holds a seat")
    now = k.clock()
    key = conn.client or "?"
    times = k._bad_claims.get(key)
    if times is not None:
        while times and now - times[0] >= 60.0:
            times.popleft()
        if len(times) >= CLAIM_LIMIT:
            raise TableError(
                "rate_limited", f"more than {CLAIM_LIMIT} wrong transfer codes in a minute"
            )
    seat = table.transfers.redeem(msg.code, now)
    if seat is None or table.seats[seat].kind != "human":
        if len(k._bad_claims) > 10_000:
            k._bad_claims.clear()  # bounded: a flood of addresses forgets old ones
        k._bad_claims.setdefault(key, deque()).append(now)
        raise TableError("bad_transfer", "this transfer code is wrong, used or expired")
    token = secrets.token_hex(24)
    s = table.seats[seat]
    s.token_hash = hash_token(token)  # the old device's token is dead
    for c in k.hub.of(table.code):
        if c.seat == seat:
            c.seat = None
            c.error("moved_device", "your seat went to another device: you are watching")
    s.connections = 1
    conn.seat = seat
    k.driver.end_grace(table.code, seat)
    s.away = False
    if k.store is not None:
        k.store.save_table(table)
    conn.push(wire.dumps({"type": "claimed", "seat": seat, "token": token}))
    k._changed(table, game=False)


async def on_coach(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    if not table.settings["practice"]:
        raise TableError("not_allowed", "the coach is for practice tables")
    if table.to_move != conn.seat:
        raise TableError("not_your_turn", "the coach advises on your own turn")
    advice = social.coach(table.view(conn.seat))
    conn.push(wire.dumps({"type": "coach", "version": table.version, **advice}))


async def on_report(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert conn.seat is not None
    state = table.state(conn.seat)
    if state["view"] is None:
        raise TableError("not_allowed", "the game has not started: no position yet")
    report = social.report(state["view"], state["legal"], state["legal_counts"])
    conn.push(wire.dumps({"type": "report", "report": report}))


async def on_report_player(k: TableKeeper, table: Table, conn: Connection, msg: Any) -> None:
    assert isinstance(msg, ReportPlayer)
    if (msg.line is None) == (msg.seat is None):
        raise TableError("bad_message", "a report names a chat 'line' or a 'seat', one of them")
    if k.moderation is None:
        raise TableError("not_allowed", "this server takes no reports")
    if msg.line is not None:
        said = next((e for e in table.chat_lines if e.line == msg.line), None)
        if said is None:
            raise TableError("not_allowed", f"chat line {msg.line} is unknown or too old")
        reported = Reported(
            said.name, said.account, said.client, table.code, said.seat, said.line, said.text
        )
    else:
        assert msg.seat is not None
        if msg.seat >= len(table.seats) or table.seats[msg.seat].kind != "human":
            raise TableError("not_allowed", f"seat {msg.seat} holds no player to report")
        s = table.seats[msg.seat]
        here = [c.client for c in k.hub.of(table.code) if c.seat == msg.seat]
        reported = Reported(s.name, s.account, here[0] if here else None, table.code, msg.seat)
    if reported.seat == conn.seat:
        raise TableError("not_allowed", "you cannot report yourself")
    account = table.seats[conn.seat].account if conn.seat is not None else None
    try:
        # On the loop: the limits' counters stay on one thread, and the write is one short
        # row, a few an hour per client.
        new = k.moderation.report(conn.client, account, reported, msg.reason, msg.note)
    except ModerationError as exc:
        raise TableError(exc.code, exc.message) from None
    conn.push(wire.dumps({"type": "reported", "repeat": not new}))


def start_rematch(k: TableKeeper, table: Table) -> None:
    """A new match for the players who accepted, in the same seats (a new table code:
    each match keeps its own record); bots take the other seats."""
    if k.may_create is not None:
        k.may_create(table.client)  # a rematch is a new table: the same limits
    new = Table(k._new_code(), table.settings, secrets.randbits(62))
    new.client = table.client
    new.alone_since = k.clock()
    tokens: dict[int, str] = {}
    for i in sorted(table.rematch):
        old = table.seats[i]
        if old.kind == "human":
            tokens[i] = secrets.token_hex(24)
            new.seats[i] = Seat(
                name=old.name, kind="human", token_hash=hash_token(tokens[i]), account=old.account
            )
    if not tokens:
        return
    new.host = table.host if table.host in tokens else min(tokens)
    new.start(new.host)
    k._store_new(new)
    if not k.clustered:
        k.tables[new.code] = new
    if k.created is not None:
        k.created(new.client, new.code)
    table.rematched = new.code
    for c in k.hub.of(table.code):
        token = tokens.get(c.seat) if c.seat is not None else None
        seat = c.seat if token is not None else None
        c.push(wire.dumps({"type": "rematch", "code": new.code, "seat": seat, "token": token}))


HANDLERS: dict[str, Handler] = {
    "chat": on_chat,
    "emote": on_emote,
    "mute": on_mute,
    "watch": on_watch,
    "rematch": on_rematch,
    "transfer": on_transfer,
    "claim": on_claim,
    "coach": on_coach,
    "report": on_report,
    "report_player": on_report_player,
}

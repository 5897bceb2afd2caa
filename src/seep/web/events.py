"""Events on the server (issue 30; docs/web.md "Events"): what an organiser and the players
ask of an event, and the runner that opens each round's tables and pairs the next.

Everything an event is lives in the store (:mod:`seep.web.store_events`): an instance that
restarts reads it again and goes on where the event stood. The runner's :meth:`Events.tick`
(every few seconds, and at once when a round's table ends) takes the steps that are due:

- an open event whose start time has come starts with its checked-in teams (too few: it ends);
- a running event without a round being played records the next (the pairing of
  :func:`seep.web.tournament.swiss.pair_round` over the results so far, the bye, a table code
  per pair), then opens its tables (:meth:`~seep.web.tables.TableManager.open_seated`); a
  recorded table that is not open yet (a restart came between) opens at the next tick;
- a round whose tables have all ended (finished, or closed unfinished) has its results read
  from the tables' stored records (replayed by the core: who won, each side's score) and
  written, with the round marked done, in one transaction that happens once.

A player's seat token is not kept: it is derived from a server secret, the table and the seat
(:meth:`Events.token`), so that a signed-in player asks for it again from any device
(``POST /api/events/{id}/seat``), and nobody without the secret can.

Not served yet (docs/web.md says so): arena and duplicate events' rounds, partners drawn
each round ("individual"), events on several instances (the runner and the tables it opens
are this instance's).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..session import Session
from .messages import Name
from .names import check_name, skeleton
from .store import Store
from .store_events import ACTIVE, EventRefused, RoundTable
from .table import TableError, parse_settings
from .tables import TableManager
from .tournament import swiss

__all__ = [
    "CreateEvent",
    "EventSettings",
    "Events",
    "RegisterBody",
    "TeamBody",
    "result_of_record",
]

log = logging.getLogger("seep.web.events")

EVENT_NAME_LENGTH = 60
KINDS = ("swiss", "arena", "duplicate")
SERVED_KINDS = ("swiss",)  # the kinds whose rounds the server runs so far
MAX_ROUNDS = 12  # a Swiss event's rounds (docs/web.md: the pairing's time grows past teams - 1)
MAX_DEALS = 20
MAX_AHEAD = 90 * 24 * 3600.0  # how far ahead an event may start


def _clean_event_name(value: str) -> str:
    name = check_name(value)
    if not name:
        raise ValueError("an event needs a name")
    if len(name) > EVENT_NAME_LENGTH:
        raise ValueError(f"at most {EVENT_NAME_LENGTH} characters")
    return name


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CreateEvent(_Body):
    """``POST /api/events``: a new event, its organiser the signed-in player. Answered 201
    ``{"id": n}``."""

    name: Annotated[str, Field(max_length=200), AfterValidator(_clean_event_name)]
    kind: Literal["swiss", "arena", "duplicate"] = "swiss"
    format: Literal["four", "two"] = "four"
    rated: bool = False
    starts: Annotated[float, Field(description="the start, in seconds since 1970 (UTC)")]
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = 3
    deals: Annotated[int, Field(ge=1, le=MAX_DEALS, description="deals a round")] = 1
    partners: Literal["registered", "individual"] = "registered"
    bots: Annotated[bool, Field(description="bots play for players who do not come")] = True


class RegisterBody(_Body):
    """``POST /api/events/{id}/register``: the signed-in player registers; at four players
    with his ``partner`` (an account's name), who then accepts
    (``POST /api/events/{id}/accept``)."""

    partner: Name = None


class TeamBody(_Body):
    """``POST /api/events/{id}/teams/withdraw``: the organiser withdraws a team."""

    team: Annotated[int, Field(ge=1)]


@dataclass(frozen=True)
class EventSettings:
    """An event's bounds: events not finished per organiser, teams per event, events listed,
    and how often the runner looks (seconds)."""

    per_organiser: int = 3
    max_teams: int = 64
    listed: int = 50
    tick_seconds: float = 2.0


def result_of_record(record: Mapping[str, Any] | None) -> dict[str, Any]:
    """A round table's result from its stored game record: the winning side (``None``: a
    draw, or nothing played), each side's score summed over the finished deals, the baazis
    won, and the deals played. A table closed unfinished counts what was finished."""
    if record is None or not record.get("deals"):
        return {"winner": None, "score": [0, 0], "baazis": [0, 0], "deals": 0}
    session = Session.from_record(dict(record))
    standing = session.standing()
    scores = [d["result"]["score"] for d in record["deals"] if d.get("result")]
    return {
        "winner": standing.leader,
        "score": [sum(s[0] for s in scores), sum(s[1] for s in scores)],
        "baazis": list(standing.baazis),
        "deals": len(scores),
    }


def _team_name(team: Mapping[str, Any]) -> str:
    return team["name1"] if team["name2"] is None else f"{team['name1']} & {team['name2']}"


def _members(team: Mapping[str, Any]) -> list[tuple[int | None, str]]:
    """A team's players (account, name); a deleted account's is ``None``."""
    out: list[tuple[int | None, str]] = [(team["player1"], str(team["name1"]))]
    if team["name2"] is not None:
        out.append((team["player2"], str(team["name2"])))
    return out


def _playing(team: Mapping[str, Any]) -> bool:
    return bool(team["accepted"] and team["checked_in"])


def seats_of(
    table: Mapping[str, Any], teams: Mapping[int, Mapping[str, Any]], players: int
) -> dict[int, tuple[int | None, str]]:
    """Who sits where at a round's table: ``team_a`` on side 0 (seats 0 and 2; at two players
    seat 0) unless ``swapped``, ``team_b`` on the other; partners opposite each other."""
    out: dict[int, tuple[int | None, str]] = {}
    for key, side in (("team_a", 0), ("team_b", 1)):
        if table["swapped"]:
            side = 1 - side
        for seat, member in zip(range(side, players, 2), _members(teams[table[key]]), strict=False):
            out[seat] = member
    return out


class Events:
    """The server's events: the organiser's and the players' requests, and the runner.
    ``clock`` gives the time (seconds since 1970). Call the async methods on the event loop's
    thread (they open tables); the others may run in a worker thread."""

    def __init__(
        self,
        manager: TableManager,
        store: Store,
        settings: EventSettings = EventSettings(),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.manager = manager
        self.store = store
        self.settings = settings
        self.clock = clock
        self._secret = base64.urlsafe_b64decode(
            store.server_key(
                "events", lambda: base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
            )
        )
        self._lock = asyncio.Lock()
        self._due = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None  # the runner's, once it runs
        # The codes of the round tables this instance opened or saw: their end wakes the runner.
        self.codes: set[str] = set()

    # --- the organiser ----------------------------------------------------------------------

    def create(self, body: CreateEvent, account: tuple[int, str]) -> int:
        """Store a new event organised by ``account``; its id."""
        if body.kind not in SERVED_KINDS:
            raise TableError(
                "not_allowed", f"{body.kind} events are not served yet: make a Swiss event"
            )
        if body.partners != "registered":
            raise TableError(
                "not_allowed",
                "partners drawn each round are not served yet: partners register together",
            )
        now = self.clock()
        if not now - 3600 <= body.starts <= now + MAX_AHEAD:
            raise TableError("bad_request", "starts: from now to 90 days ahead")
        values = {
            "name": body.name,
            "organiser": account[0],
            "organiser_name": account[1],
            "kind": body.kind,
            "format": body.format,
            "rated": body.rated,
            "partners": body.partners,
            "bots": body.bots,
            "starts": body.starts,
            "rounds": body.rounds,
            "deals": body.deals,
            "seed": str(secrets.randbits(62)),
        }
        try:
            return self.store.create_event(values, per_organiser=self.settings.per_organiser)
        except EventRefused as exc:
            raise TableError(exc.code, exc.message) from None

    def _own(self, event: int, account: tuple[int, str]) -> dict[str, Any]:
        found = self._event(event)
        if found["organiser"] != account[0]:
            raise TableError("not_organiser", "only the event's organiser can do that")
        return found

    def _event(self, event: int) -> dict[str, Any]:
        found = self.store.event(event)
        if found is None:
            raise TableError("unknown_event", f"no event {event}")
        return found

    def organise(self, event: int, account: tuple[int, str], action: str) -> None:
        """The organiser's ``start`` (now), ``pause``, ``resume`` or ``end``."""
        self._own(event, account)
        now = self.clock()
        steps: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
            "start": (("open",), {"starts": now}),
            "pause": (("open", "running"), {"status": "paused"}),
            "resume": (("paused",), {"status": "running"}),
            "end": (ACTIVE, {"status": "finished", "ended": now}),
        }
        was, values = steps[action]
        if action == "resume":
            # A paused event that never started goes back to taking registrations.
            if self._event(event)["round"] == 0:
                values = {"status": "open"}
        if not self.store.set_event(event, was, **values):
            raise TableError("not_allowed", f"this event cannot {action} now")

    def withdraw_team(self, event: int, account: tuple[int, str], team: int) -> None:
        """The organiser withdraws a team: it plays no further round (its results stay)."""
        self._own(event, account)
        if not self.store.set_team(event, team, {"withdrawn": False}, withdrawn=True):
            raise TableError("not_allowed", f"no team {team} to withdraw in this event")

    # --- the players ------------------------------------------------------------------------

    def _team_of(self, event: int, account: int) -> dict[str, Any] | None:
        for t in self.store.teams(event):
            if not t["withdrawn"] and account in (t["player1"], t["player2"]):
                return t
        return None

    def register(self, event: int, account: tuple[int, str], body: RegisterBody) -> int:
        """Register ``account`` (with his partner at four players); the team's id."""
        found = self._event(event)
        players = [account]
        if found["format"] == "four":
            if body.partner is None:
                raise TableError("bad_request", "partner: a four-player event's teams are two")
            partner = self.store.account_named(skeleton(body.partner))
            if partner is None:
                raise TableError("unknown_player", f"no player {body.partner}")
            if partner.id == account[0]:
                raise TableError("bad_request", "partner: someone else")
            players.append((partner.id, partner.name))
        elif body.partner is not None:
            raise TableError("bad_request", "partner: a two-player event's teams are one player")
        try:
            return self.store.add_team(event, players, max_teams=self.settings.max_teams)
        except EventRefused as exc:
            raise TableError(exc.code, exc.message) from None

    def _mine(self, event: int, account: tuple[int, str]) -> dict[str, Any]:
        team = self._team_of(event, account[0])
        if team is None:
            raise TableError("not_allowed", "you are not registered in this event")
        return team

    def accept(self, event: int, account: tuple[int, str]) -> None:
        """A partner named at registration accepts."""
        team = self._mine(event, account)
        if team["player2"] != account[0] or team["accepted"]:
            raise TableError("not_allowed", "there is no partnership for you to accept")
        self.store.set_team(event, team["id"], {"accepted": False}, accepted=True)

    def check_in(self, event: int, account: tuple[int, str]) -> None:
        """A registered player checks his team in, before the start."""
        if self._event(event)["status"] not in ("open", "paused"):
            raise TableError("not_allowed", "check-in is over: the event has started")
        team = self._mine(event, account)
        if not team["accepted"]:
            raise TableError("not_allowed", "your partner has not accepted yet")
        self.store.set_team(event, team["id"], {}, checked_in=True)

    def withdraw(self, event: int, account: tuple[int, str]) -> None:
        """A player withdraws his team: before the start it is gone, after it plays no
        further round."""
        found = self._event(event)
        team = self._mine(event, account)
        if found["status"] == "open" and found["round"] == 0:
            self.store.drop_team(event, team["id"])
        else:
            self.store.set_team(event, team["id"], {}, withdrawn=True)

    def token(self, code: str, seat: int) -> str:
        """The token of ``seat`` at the round table ``code`` (derived, never stored)."""
        mac = hmac.new(self._secret, f"event-seat:{code}:{seat}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()[:24]).decode()

    def seat(self, event: int, account: tuple[int, str]) -> dict[str, Any]:
        """The player's seat at his table of the round being played: code, seat, token."""
        found = self._event(event)
        if found["round"] == 0:
            raise TableError("not_allowed", "the event has no round yet")
        teams = {t["id"]: t for t in self.store.teams(event)}
        players = 4 if found["format"] == "four" else 2
        for row in self.store.event_tables(event, found["round"]):
            for seat, (who, _) in seats_of(row, teams, players).items():
                if who == account[0]:
                    code = row["code"]
                    if row["table_status"] is None:  # recorded, opening in a moment
                        raise TableError("unavailable", "your table is opening: ask again")
                    return {
                        "code": code,
                        "url": f"/t/{code}",
                        "seat": seat,
                        "token": self.token(code, seat),
                    }
        raise TableError("not_allowed", "you have no table in this round")

    # --- reading ----------------------------------------------------------------------------

    def listing(self) -> dict[str, Any]:
        """``GET /api/events``: events upcoming and running, soonest first."""
        rows = self.store.events(ACTIVE, self.settings.listed)
        return {"events": [self._summary(r) for r in rows]}

    @staticmethod
    def _summary(r: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("id", "name", "kind", "format", "rated", "partners", "bots", "starts")
        return {
            **{k: r[k] for k in keys},
            **{"rounds": r["rounds"], "deals": r["deals"], "status": r["status"]},
            "round": r["round"],
            "organiser": r["organiser_name"],
        }

    def page(self, event: int, account: tuple[int, str] | None) -> dict[str, Any]:
        """``GET /api/events/{id}``: the event, its teams, standings and rounds with their
        tables (results once the round is over), and the reader's own team."""
        found = self._event(event)
        teams = self.store.teams(event)
        by_id = {t["id"]: t for t in teams}
        rounds = self.store.rounds(event)
        tables = self.store.event_tables(event)
        out_rounds = []
        for r in rounds:
            rows = [t for t in tables if t["round"] == r["number"]]
            out_rounds.append(
                {
                    "number": r["number"],
                    "status": r["status"],
                    "bye": r["bye"],
                    "tables": [
                        {
                            "board": t["board"],
                            "code": t["code"],
                            "teams": [t["team_a"], t["team_b"]],
                            "swapped": t["swapped"],
                            "status": t["table_status"],
                            "result": json.loads(t["result"]) if t["result"] else None,
                        }
                        for t in rows
                    ],
                }
            )
        mine = None if account is None else self._team_of(event, account[0])
        return {
            **self._summary(found),
            "teams": [
                {
                    "id": t["id"],
                    "name": _team_name(t),
                    "players": [m[1] for m in _members(t)],
                    "accepted": t["accepted"],
                    "checked_in": t["checked_in"],
                    "withdrawn": t["withdrawn"],
                }
                for t in teams
            ],
            "standings": self._standings(found, teams, rounds, tables, by_id),
            "rounds": out_rounds,
            "me": None if mine is None else {"team": mine["id"]},
        }

    def _standings(
        self,
        event: Mapping[str, Any],
        teams: Sequence[Mapping[str, Any]],
        rounds: Sequence[Mapping[str, Any]],
        tables: Sequence[Mapping[str, Any]],
        by_id: Mapping[int, Mapping[str, Any]],
    ) -> list[dict[str, Any]]:
        if event["round"] == 0:
            return []
        ids, results, withdrawn = _swiss_inputs(teams, rounds, tables)
        return [
            {
                "rank": s.rank,
                "team": s.team,
                "name": _team_name(by_id[int(s.team)]),
                "points": s.points,
                "buchholz": s.buchholz,
                "diff": s.diff,
                "played": s.played,
                "byes": s.byes,
                "withdrawn": s.withdrawn,
            }
            for s in swiss.standings(ids, results, withdrawn)
        ]

    # --- the runner -------------------------------------------------------------------------

    def table_changed(self, code: str, status: str) -> None:
        """A table's state is about to be sent (the manager's observer): a round table that
        ended wakes the runner."""
        if status in ("finished", "closed") and code in self.codes:
            self.codes.discard(code)
            self._due.set()

    def wake(self) -> None:
        """Take the steps due now rather than at the next tick (from any thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._due.set)

    async def run(self) -> None:
        """Tick forever (a task of the app): every ``tick_seconds``, or at once when woken."""
        self._loop = asyncio.get_running_loop()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._due.wait(), self.settings.tick_seconds)
            self._due.clear()
            try:
                await self.tick()
            except Exception as exc:  # a bug or a database away must not stop the events
                log.exception("events: a step failed: %s", exc)

    async def tick(self) -> int:
        """Take every step that is due (see the module); how many were taken."""
        async with self._lock:
            steps = 0
            events = await asyncio.to_thread(self.store.events, ("open", "running"), 200)
            for ev in events:
                steps += await self._step(ev)
            return steps

    async def _step(self, ev: Mapping[str, Any]) -> int:
        event = int(ev["id"])
        now = self.clock()
        if ev["status"] == "open":
            if ev["starts"] > now:
                return 0
            teams = [t for t in await asyncio.to_thread(self.store.teams, event) if _playing(t)]
            if len(teams) < 2:
                self.store.set_event(event, ("open",), status="finished", ended=now)
                return 1
            self.store.set_event(event, ("open",), status="running")
            return 1 + await self._open_next(event)
        rounds = await asyncio.to_thread(self.store.rounds, event)
        if not rounds or rounds[-1]["status"] == "done":
            return await self._open_next(event)
        current = rounds[-1]
        rows = await asyncio.to_thread(self.store.event_tables, event, current["number"])
        if await self._open_missing(ev, rows):
            return 1
        for row in rows:
            if row["table_status"] not in ("finished", "closed"):
                self.codes.add(row["code"])  # after a restart: its end wakes the runner too
        if any(r["table_status"] not in ("finished", "closed") for r in rows):
            return 0
        records = await asyncio.to_thread(self.store.table_records, [r["code"] for r in rows])
        results = {
            code: result_of_record(json.loads(text) if text else None)
            for code, text in records.items()
        }
        last = current["number"] >= ev["rounds"]
        if not self.store.close_round(event, current["number"], results, last=last):
            return 0
        return 1 + (0 if last else await self._open_next(event))

    async def _open_next(self, event: int) -> int:
        """Record the event's next round (it is running, and no round is being played): its
        pairing and a code for each table; then open its tables (:meth:`_open_missing`)."""
        plan = await asyncio.to_thread(self._plan, event)
        if plan is None:
            return 1
        number, round_seed, bye, pairs = plan
        tables = [
            RoundTable(self.manager.new_code(), board, int(a), int(b))
            for board, (a, b) in enumerate(pairs, 1)
        ]
        done = await asyncio.to_thread(
            self.store.open_round, event, number, seed=round_seed, bye=bye, tables=tables
        )
        if not done:
            return 0  # another step recorded the round first
        rows = await asyncio.to_thread(self.store.event_tables, event, number)
        ev = await asyncio.to_thread(self.store.event, event)
        assert ev is not None
        return 1 + await self._open_missing(ev, rows)

    def _plan(self, event: int) -> tuple[int, int, int | None, list[tuple[int, int]]] | None:
        """The next round's number, seed, bye and pairs (in a worker thread); ``None`` when the
        event is over instead (its last round played, or fewer than two teams left), which it
        records."""
        ev = self.store.event(event)
        if ev is None or ev["status"] != "running":
            return None
        number = int(ev["round"]) + 1
        teams = self.store.teams(event)
        ids, results, withdrawn = _swiss_inputs(
            teams, self.store.rounds(event), self.store.event_tables(event)
        )
        if number > ev["rounds"] or len([i for i in ids if i not in withdrawn]) < 2:
            self.store.set_event(event, ("running",), status="finished", ended=self.clock())
            return None
        pairing = swiss.pair_round(ids, results, withdrawn)
        round_seed = random.Random(f"seep-event:{ev['seed']}:{number}").randrange(1 << 62)
        bye = None if pairing.bye is None else int(pairing.bye)
        return number, round_seed, bye, [(int(a), int(b)) for a, b in pairing.pairs]

    async def _open_missing(self, ev: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> int:
        """Open the recorded tables of a round that are not in the store yet: all of them just
        after the round was recorded, or those a restart came between (the round is recorded
        before its tables open, so that a table is never opened twice). How many opened."""
        missing = [r for r in rows if r["table_status"] is None]
        if not missing:
            return 0
        event = int(ev["id"])
        teams = await asyncio.to_thread(self.store.teams, event)
        by_id = {int(t["id"]): t for t in teams}
        players = 4 if ev["format"] == "four" else 2
        settings = parse_settings(
            {
                "preset": "standard" if players == 4 else "two_player",
                "bots": "medium",
                "deals": int(ev["deals"]),
                "rated": bool(ev["rated"]),
            }
        )
        for row in missing:
            seats = {s: (name, acc) for s, (acc, name) in seats_of(row, by_id, players).items()}
            self.manager.open_seated(
                settings, secrets.randbits(62), seats, self.token, f"event:{event}", row["code"]
            )
            self.codes.add(row["code"])
        return len(missing)


def _swiss_inputs(
    teams: Sequence[Mapping[str, Any]],
    rounds: Sequence[Mapping[str, Any]],
    tables: Sequence[Mapping[str, Any]],
) -> tuple[list[int], list[swiss.Result], set[int]]:
    """The Swiss module's inputs from the store's rows: the teams that take part (seed order:
    as they registered), the results of the rounds done (byes included), the withdrawn."""
    ids = [int(t["id"]) for t in teams if _playing(t)]
    withdrawn = {int(t["id"]) for t in teams if _playing(t) and t["withdrawn"]}
    done = {r["number"] for r in rounds if r["status"] == "done"}
    results: list[swiss.Result] = [
        swiss.Result(int(r["bye"]), None) for r in rounds if r["number"] in done and r["bye"]
    ]
    for t in tables:
        if t["round"] not in done or not t["result"]:
            continue
        res = json.loads(t["result"])
        side_a = 1 if t["swapped"] else 0
        a, b = int(t["team_a"]), int(t["team_b"])
        winner = None
        if res["winner"] is not None:
            winner = a if res["winner"] == side_a else b
        diff = res["score"][side_a] - res["score"][1 - side_a]
        results.append(swiss.Result(a, b, winner, diff))
    return ids, results, withdrawn

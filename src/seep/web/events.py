"""Events on the server (issue 30; docs/web.md "Events"): what an organiser and the players
ask of an event. The runner that opens each round's tables and pairs the next is
:mod:`seep.web.events_runner` (the base of :class:`Events`), what the pages show
:mod:`seep.web.events_page`; everything an event is lives in the store
(:mod:`seep.web.store_events`), so that an instance that restarts goes on where it stood.

A player asks for his seat token again from any device (``POST /api/events/{id}/seat``): it is
derived from a server secret, never stored (:meth:`~seep.web.events_runner.EventRunner.token`).

Served: Swiss, duplicate and arena events, and Swiss events at four players whose partners are
drawn each round ("individual": :mod:`seep.web.tournament.individual`).
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .events_page import page, result_of_record, seats_of, summary
from .events_runner import EventRunner, EventSettings
from .messages import Name
from .names import check_name, skeleton
from .store_events import ACTIVE, EventRefused
from .table import TableError

__all__ = [
    "CreateEvent",
    "EventSettings",
    "Events",
    "RegisterBody",
    "TeamBody",
    "result_of_record",
    "seats_of",
]

EVENT_NAME_LENGTH = 60
KINDS = ("swiss", "arena", "duplicate")
SERVED_KINDS = ("swiss", "duplicate", "arena")  # the kinds whose rounds the server runs so far
MAX_ROUNDS = 12  # a Swiss event's rounds (docs/web.md: the pairing's time grows past teams - 1)
MAX_DEALS = 20
MAX_BAAZIS = 5  # baazis a round: a baazi is a few deals, often more (R45, R46)
MAX_MINUTES = 24 * 60  # an arena's longest window
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
    baazis: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_BAAZIS,
            description="baazis a round instead of deals (Swiss and arena: a game is played "
            "until a side has won this many baazis)",
        ),
    ] = None
    partners: Literal["registered", "individual"] = "registered"
    bots: Annotated[bool, Field(description="bots play for players who do not come")] = True
    minutes: Annotated[
        int | None,
        Field(ge=5, le=MAX_MINUTES, description="an arena's window from its start (default 60)"),
    ] = None


class RegisterBody(_Body):
    """``POST /api/events/{id}/register``: the signed-in player registers; at four players
    with his ``partner`` (an account's name), who then accepts
    (``POST /api/events/{id}/accept``)."""

    partner: Name = None


class TeamBody(_Body):
    """``POST /api/events/{id}/teams/withdraw``: the organiser withdraws a team."""

    team: Annotated[int, Field(ge=1)]


class Events(EventRunner):
    """The server's events: the organiser's and the players' requests, what they read, and
    the runner (:class:`~seep.web.events_runner.EventRunner`). The requests and reads may run
    in a worker thread; the runner's async methods on the event loop's thread."""

    # --- the organiser ----------------------------------------------------------------------

    def create(self, body: CreateEvent, account: tuple[int, str]) -> int:
        """Store a new event organised by ``account``; its id."""
        if body.kind not in SERVED_KINDS:
            raise TableError(
                "not_allowed", f"{body.kind} events are not served yet: make a Swiss event"
            )
        if body.kind == "duplicate" and body.rated:
            # A rated table's result is on its players' profiles the moment it ends: a
            # duplicate deal's must wait for every table of the round (docs/web.md "Events").
            raise TableError("not_allowed", "duplicate events are not rated: make it unrated")
        if body.baazis is not None and body.kind == "duplicate":
            # Every table of a duplicate round plays the same deals: a number of them.
            raise TableError("bad_request", "baazis: a duplicate round is a number of deals")
        if body.minutes is not None and body.kind != "arena":
            raise TableError("bad_request", "minutes: an arena's window, for arenas only")
        if body.partners == "individual" and (body.kind != "swiss" or body.format != "four"):
            raise TableError(
                "not_allowed",
                "partners drawn each round: for a Swiss event at four players only",
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
            "baazis": body.baazis,
            "minutes": (body.minutes or 60) if body.kind == "arena" else None,
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
        """Register ``account`` (with his partner at four players, unless partners are drawn
        each round); the team's id."""
        found = self._event(event)
        players = [account]
        if found["partners"] == "individual":  # partners drawn each round: alone
            if body.partner is not None:
                raise TableError("bad_request", "partner: partners are drawn each round")
        elif found["format"] == "four":
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

    def seat(self, event: int, account: tuple[int, str]) -> dict[str, Any]:
        """The player's seat at his table of the round being played (of a duplicate round,
        of its deal being played, ``deal``; of an arena, his game being played): code, seat,
        token."""
        found = self._event(event)
        if found["round"] == 0:
            raise TableError("not_allowed", "the event has no round yet")
        teams = {t["id"]: t for t in self.store.teams(event)}
        players = 4 if found["format"] == "four" else 2
        rows = self.store.event_tables(event, found["round"])
        deal = max((int(r["deal"]) for r in rows), default=0)
        rows = [r for r in rows if int(r["deal"]) == deal]
        if found["kind"] == "arena":  # his game now: the latest, not over
            rows = [r for r in reversed(rows) if r["table_status"] not in ("finished", "closed")]
        for row in rows:
            for seat, (who, _) in seats_of(row, teams, players).items():
                if who == account[0]:
                    code = row["code"]
                    if row["table_status"] is None:  # recorded, opening in a moment
                        raise TableError("unavailable", "your table is opening: ask again")
                    return {
                        "code": code,
                        "url": f"/t/{code}",
                        "seat": seat,
                        "deal": deal,
                        "token": self.token(code, seat),
                    }
        if found["kind"] == "arena":
            raise TableError("not_allowed", "you have no game now: the next pairs you soon")
        raise TableError("not_allowed", "you have no table in this round")

    # --- reading ----------------------------------------------------------------------------

    def listing(self) -> dict[str, Any]:
        """``GET /api/events``: events upcoming and running, soonest first."""
        rows = self.store.events(ACTIVE, self.settings.listed)
        return {"events": [summary(r) for r in rows]}

    def page(self, event: int, account: tuple[int, str] | None) -> dict[str, Any]:
        """``GET /api/events/{id}``: the event, its teams, standings and rounds with their
        tables (results once known), a duplicate event's open deals, the reader's own team
        (:func:`seep.web.events_page.page`)."""
        found = self._event(event)
        mine = None if account is None else self._team_of(event, account[0])
        return page(
            found,
            self.store.teams(event),
            self.store.rounds(event),
            self.store.event_tables(event),
            mine,
        )

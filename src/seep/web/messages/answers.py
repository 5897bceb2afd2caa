"""What the server sends, as pydantic models: the HTTP answers and the socket messages
(docs/web.md). They document the protocol (:mod:`seep.web.messages.schema`); the server builds
those messages as plain dicts (the hot path) and the tests check them against the models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatLine",
    "Claimed",
    "Clock",
    "CoachAnswer",
    "CoachMove",
    "CoachRisk",
    "CoachWarning",
    "Created",
    "DealResult",
    "EmoteSent",
    "ErrorMessage",
    "EventTable",
    "HintAnswer",
    "Joined",
    "Lobby",
    "LobbyTable",
    "MatchInfo",
    "MovesAnswer",
    "Pong",
    "Reason",
    "RematchReady",
    "ReportAnswer",
    "ReportReceived",
    "Review",
    "ReviewPlay",
    "SeatInfo",
    "Sent",
    "ServerMessage",
    "State",
    "Summary",
    "TableInfo",
    "TransferCode",
    "Watching",
]


class Sent(BaseModel):
    """What every message the server sends shares: fields it may gain are allowed (a client
    reads the ones it knows)."""

    model_config = ConfigDict(extra="allow")


class SeatRating(Sent):
    """A seated player's rating as his name shows it ("1532?" while provisional)."""

    rating: int
    provisional: bool


class SeatInfo(Sent):
    """A seat as everyone sees it."""

    name: str
    kind: Literal["human", "bot", "empty"]
    connected: bool
    away: bool
    forfeited: bool = Field(
        default=False,
        description='left a rated match and did not come back in time (docs/web.md "Fair play")',
    )
    rating: SeatRating | None = Field(
        default=None, description="a signed-in player's rating in the table's format"
    )


class Watching(Sent):
    """Who is watching: how many spectators, and the names of those who gave one."""

    count: int
    names: list[str]


class TableInfo(Sent):
    """A table as anyone may see it (``GET /api/tables/{code}`` and ``state.table``)."""

    code: str
    status: Literal["waiting", "playing", "finished"]
    host: int
    settings: dict[str, Any]
    seats: list[SeatInfo]
    muted: list[int] = Field(default_factory=list, description="seats the host muted")
    watching: Watching | None = None
    rematch: list[int] = Field(
        default_factory=list, description="after the match: the seats that asked for a rematch"
    )
    starts_at: float | None = Field(
        default=None,
        description="quick match: when the countdown fills the empty seats with bots and"
        " starts (Unix time); null for a table its host starts",
    )


class LobbyTable(Sent):
    """An open public table with free seats."""

    code: str
    settings: dict[str, Any]
    seats: list[SeatInfo]
    free: int


class Lobby(Sent):
    """``GET /api/lobby``: open public tables with free seats (at most 50, oldest first), and
    the server's version (the package's, ``seep.__version__``), which the page's footer shows."""

    tables: list[LobbyTable]
    version: str


class Created(Sent):
    """The answer to ``POST /api/tables``."""

    code: str
    url: str
    seat: int
    token: str


class Joined(Sent):
    """The answer to ``POST /api/tables/{code}/join``."""

    seat: int
    token: str


class DealResult(Sent):
    """A finished deal's ``result`` (docs/format.md)."""

    points: list[int]
    bonus: list[int] = Field(default_factory=list)
    sweeps: list[int]
    score: list[int]


class MatchInfo(Sent):
    """The running match."""

    deals: int
    diff: int
    baazis: list[int]
    history: list[DealResult]
    points: list[int]
    score: list[int]


class Summary(Sent):
    """A finished deal's summary."""

    deal: int
    result: DealResult
    captured: list[list[str]]
    baazi_over: bool
    baazi_winner: int | None
    diff: int
    baazis: list[int]
    match_over: bool
    match_winner: int | None = Field(
        description="the team that won the match (docs/rules.md §6.3); null: a draw, or not over"
    )
    ready: list[int]


class Clock(Sent):
    """The turn clock."""

    seat: int
    deadline: float


class Reason(Sent):
    """A rule's refusal, for the page to word in its own language (docs/web.md "Reasons"):
    ``seep.verify.check``'s :class:`~seep.verify.Refusal` as data."""

    rule: str = Field(description="the rule's number in docs/rules.md: R16, R21d, A22 ...")
    template: str = Field(
        description="the English sentence with {name} places for args (the key of its "
        "translation: one rule may have several)"
    )
    args: dict[str, int | str] = Field(description="the facts of the position it rests on")


class State(Sent):
    """What one connection may see of its table, after every change."""

    type: Literal["state"]
    version: int
    seat: int | None
    history_from: int | None = Field(
        default=None,
        description="to a socket whose hello asked for the appended history: view.history "
        "holds the deal's moves from this number on, the ones before are those its last state "
        "held (0: the whole history)",
    )
    table: TableInfo
    view: dict[str, Any] | None = Field(description="a docs/format.md view (null before the start)")
    legal: list[dict[str, Any]]
    dead: dict[str, str] = Field(
        default_factory=dict,
        description="the seat to move's cards with no legal use, each with the rules "
        "checker's reason (R16, R21d ...) in English",
    )
    dead_reasons: dict[str, Reason] = Field(
        default_factory=dict,
        description="the same cards' reasons as rule and arguments (a card with no refusal "
        "to cite, only 'no legal use now', has none)",
    )
    last_moves: list[dict[str, Any] | None]
    history_sweeps: list[int] = Field(
        default_factory=list,
        description="the sweep points (R38) each move of view.history scored, 0 for none, "
        "in its order",
    )
    match: MatchInfo | None
    summary: Summary | None
    clock: Clock | None
    legal_counts: dict[str, int] | None = Field(
        default=None,
        description="when the legal list is too long to send (more than 10,000 moves): "
        "each card's number of moves, and 'legal' is empty; ask with a 'moves' message",
    )


class HintAnswer(Sent):
    """The bots' suggestion (``version``: the state it was asked in)."""

    type: Literal["hint"]
    version: int
    move: dict[str, Any]
    reason: str


class ChatLine(Sent):
    """A chat line, to every player and spectator of the table."""

    type: Literal["chat"]
    seat: int
    name: str
    text: str
    line: int = Field(description="the line's number at this table, to report it by")


class EmoteSent(Sent):
    """An emote, to every player and spectator of the table."""

    type: Literal["emote"]
    seat: int
    name: str
    emote: str


class RematchReady(Sent):
    """The rematch has begun at a new table code: a player gets his new seat's token (to his
    connections only), a spectator only the code."""

    type: Literal["rematch"]
    code: str
    seat: int | None
    token: str | None


class TransferCode(Sent):
    """A one-time code carrying the seat to another device (``/t/{table}#transfer={code}``),
    valid once until ``expires`` (Unix time); ``qr`` is the link as a QR code: ``size``
    (modules) and ``path`` (an SVG path of the dark modules), null when the server has no QR
    library."""

    type: Literal["transfer"]
    code: str
    expires: float
    qr: dict[str, Any] | None


class Claimed(Sent):
    """A transfer code was good: this connection holds the seat, with a new token (the old
    device's token is dead)."""

    type: Literal["claimed"]
    seat: int
    token: str


class CoachMove(Sent):
    """One of the bots' best moves."""

    move: dict[str, Any]
    reason: str


class CoachRisk(Sent):
    """What a move leaves the next player, for the page to word: ``sweep`` (the floor, with
    one of ``values``) or ``house`` (the team's house of ``value``)."""

    risk: Literal["sweep", "house"]
    values: list[str] | None = None
    value: int | None = None


class CoachWarning(Sent):
    """A move the coach warns about: its risks, and the same in English sentences that name
    the move."""

    move: dict[str, Any]
    risks: list[CoachRisk] = Field(default_factory=list)
    warnings: list[str]


class CoachAnswer(Sent):
    """Practice tables: the bots' top three moves, warnings on the moves offered, and the
    unseen cards by value (1..13, from the seat's view only)."""

    type: Literal["coach"]
    version: int
    top: list[CoachMove]
    warnings: list[CoachWarning]
    unseen: dict[str, int]


class ReviewPlay(Sent):
    """One of the player's card plays, scored by the medium bot from his view at that turn."""

    index: int = Field(description="its place among the deal's moves")
    move: dict[str, Any]
    score: float = Field(description="the bot's score of the play (its points)")
    best: dict[str, Any] = Field(description="the bot's best move there")
    best_score: float
    loss: float = Field(description="best_score - score; 0 when the bot would play it too")
    choices: int = Field(description="how many legal moves there were")


class Review(Sent):
    """Practice tables, after a deal, to the player's seat only: the bots' review of his plays
    (docs/web.md, Post-deal review)."""

    type: Literal["review"]
    deal: int
    seat: int
    moves: int = Field(description="the deal's moves, the reviewed ones among them")
    plays: list[ReviewPlay]
    costly: list[int] = Field(description="indexes of the at most 3 dearest plays, dearest first")
    complete: bool = Field(description="false when the time budget left plays unscored")


class ReportAnswer(Sent):
    """The position as the seat sees it (a docs/format.md view), the moves offered and the app
    version, for a bug report."""

    type: Literal["report"]
    report: dict[str, Any]


class ReportReceived(Sent):
    """The answer to ``report_player``: the report reached the operator (``repeat``: this
    reporter had reported the same line or player already; kept once)."""

    type: Literal["reported"]
    repeat: bool


class MovesAnswer(Sent):
    """One card's legal moves (at most 10,000; ``count`` is how many there are)."""

    type: Literal["moves"]
    version: int
    card: str
    moves: list[dict[str, Any]]
    count: int


class EventTable(Sent):
    """An event's next table for this seat's player is open (docs/web.md "Events"): sent to
    the sockets of his seat at his earlier table of the event. It names the event only; the
    page claims the seat with ``POST /api/events/{event}/seat`` (no code or token here)."""

    type: Literal["event_table"]
    event: int
    url: str = Field(description="the event's page, /events/{event}")


class Pong(Sent):
    """The answer to ``ping``."""

    type: Literal["pong"]


class ErrorMessage(Sent):
    """A refused message or request, to that connection only."""

    type: Literal["error"]
    code: str
    message: str
    rule: str | None = Field(
        default=None, description="an illegal_move: the rule it breaks (as in Reason)"
    )
    template: str | None = Field(default=None, description="an illegal_move: as in Reason")
    args: dict[str, int | str] | None = Field(
        default=None, description="an illegal_move: as in Reason"
    )


ServerMessage = Annotated[
    State
    | HintAnswer
    | ChatLine
    | EmoteSent
    | RematchReady
    | TransferCode
    | Claimed
    | CoachAnswer
    | ReportReceived
    | Review
    | ReportAnswer
    | MovesAnswer
    | EventTable
    | Pong
    | ErrorMessage,
    Field(discriminator="type"),
]

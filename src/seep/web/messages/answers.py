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
    "HintAnswer",
    "Joined",
    "Leaderboard",
    "Lobby",
    "LobbyTable",
    "MatchInfo",
    "Me",
    "MovesAnswer",
    "MyMatch",
    "MyMatches",
    "Pong",
    "Profile",
    "RatingShown",
    "Reason",
    "RematchReady",
    "ReportAnswer",
    "ReportReceived",
    "Review",
    "ReviewPlay",
    "SeatInfo",
    "ServerMessage",
    "State",
    "Summary",
    "TableInfo",
    "TransferCode",
    "Watching",
]


class _Sent(BaseModel):
    model_config = ConfigDict(extra="allow")


class SeatRating(_Sent):
    """A seated player's rating as his name shows it ("1532?" while provisional)."""

    rating: int
    provisional: bool


class SeatInfo(_Sent):
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


class Watching(_Sent):
    """Who is watching: how many spectators, and the names of those who gave one."""

    count: int
    names: list[str]


class TableInfo(_Sent):
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


class LobbyTable(_Sent):
    """An open public table with free seats."""

    code: str
    settings: dict[str, Any]
    seats: list[SeatInfo]
    free: int


class Lobby(_Sent):
    """``GET /api/lobby``: open public tables with free seats (at most 50, oldest first), and
    the server's version (the package's, ``seep.__version__``), which the page's footer shows."""

    tables: list[LobbyTable]
    version: str


class Created(_Sent):
    """The answer to ``POST /api/tables``."""

    code: str
    url: str
    seat: int
    token: str


class Joined(_Sent):
    """The answer to ``POST /api/tables/{code}/join``."""

    seat: int
    token: str


class RatingShown(_Sent):
    """A rating in one format: openskill's ``mu`` and ``sigma``, the number shown, the rated
    matches behind it, and whether it is still provisional (shown as "1432?")."""

    mu: float
    sigma: float
    rating: int
    games: int
    provisional: bool


class Me(_Sent):
    """``GET /api/me``, and the answer to signing up or in: the signed-in account."""

    name: str
    created: Annotated[int, Field(description="when the account was made (Unix seconds)")]
    ratings: dict[Literal["four", "two"], RatingShown] = Field(
        description='the rating in each format (docs/web.md "Ratings")'
    )
    abandons: int = Field(
        description='rated matches forfeited by leaving them (docs/web.md "Fair play")'
    )


class PlayerName(_Sent):
    """A seat of a rated match as a profile lists it."""

    name: str
    account: bool = Field(description="a player's account (his profile is /u/{name})")


class ProfileMatch(_Sent):
    """One rated match of a profile, with the player's rating before and after it."""

    code: str
    format: Literal["four", "two"]
    ended: int
    result: Literal["win", "loss", "draw"]
    forfeited: bool
    partner: PlayerName | None = Field(description="null in two-player")
    opponents: list[PlayerName]
    rating_before: int
    rating_after: int
    change: int
    replay: str


class ProfileStats(_Sent):
    """A player's rated matches summed (his team's baazis, card and sweep points)."""

    matches: int
    wins: int
    losses: int
    draws: int
    abandons: int
    deals: int
    baazis: int
    points_per_deal: float
    sweep_points_per_deal: float


class RatingPoint(_Sent):
    """The rating after one rated match (the profile's chart)."""

    ended: int
    rating: int


class Profile(_Sent):
    """``GET /api/players/{name}?page=N``: a player's public profile (docs/web.md
    "Profiles and leaderboards"), 20 rated matches a page, newest first."""

    name: str
    created: int
    ratings: dict[Literal["four", "two"], RatingShown]
    stats: ProfileStats
    history: dict[Literal["four", "two"], list[RatingPoint]]
    matches: list[ProfileMatch]
    next_page: int | None


class BoardRow(_Sent):
    """One player on a leaderboard."""

    rank: int
    name: str
    rating: int
    games: int


class Leaderboard(_Sent):
    """``GET /api/leaderboard?format=four&page=N``: settled players, best first, 50 a page."""

    format: Literal["four", "two"]
    total: int
    players: list[BoardRow]
    next_page: int | None


class MyMatch(_Sent):
    """One of an account's stored games (``GET /api/me/matches``; with its record in
    ``GET /api/me/records``)."""

    code: str
    seat: int
    status: Literal["finished", "closed"]
    created: int
    players: list[str | None]
    replay: str
    record: dict[str, Any] | None = None


class MyMatches(_Sent):
    """``GET /api/me/matches?page=N``: 50 games a page, newest first."""

    matches: list[MyMatch]
    next_page: int | None


class DealResult(_Sent):
    """A finished deal's ``result`` (docs/format.md)."""

    points: list[int]
    bonus: list[int] = Field(default_factory=list)
    sweeps: list[int]
    score: list[int]


class MatchInfo(_Sent):
    """The running match."""

    deals: int
    diff: int
    baazis: list[int]
    history: list[DealResult]
    points: list[int]
    score: list[int]


class Summary(_Sent):
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


class Clock(_Sent):
    """The turn clock."""

    seat: int
    deadline: float


class Reason(_Sent):
    """A rule's refusal, for the page to word in its own language (docs/web.md "Reasons"):
    ``seep.verify.check``'s :class:`~seep.verify.Refusal` as data."""

    rule: str = Field(description="the rule's number in docs/rules.md: R16, R21d, A22 ...")
    template: str = Field(
        description="the English sentence with {name} places for args (the key of its "
        "translation: one rule may have several)"
    )
    args: dict[str, int | str] = Field(description="the facts of the position it rests on")


class State(_Sent):
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


class HintAnswer(_Sent):
    """The bots' suggestion (``version``: the state it was asked in)."""

    type: Literal["hint"]
    version: int
    move: dict[str, Any]
    reason: str


class ChatLine(_Sent):
    """A chat line, to every player and spectator of the table."""

    type: Literal["chat"]
    seat: int
    name: str
    text: str
    line: int = Field(description="the line's number at this table, to report it by")


class EmoteSent(_Sent):
    """An emote, to every player and spectator of the table."""

    type: Literal["emote"]
    seat: int
    name: str
    emote: str


class RematchReady(_Sent):
    """The rematch has begun at a new table code: a player gets his new seat's token (to his
    connections only), a spectator only the code."""

    type: Literal["rematch"]
    code: str
    seat: int | None
    token: str | None


class TransferCode(_Sent):
    """A one-time code carrying the seat to another device (``/t/{table}#transfer={code}``),
    valid once until ``expires`` (Unix time); ``qr`` is the link as a QR code: ``size``
    (modules) and ``path`` (an SVG path of the dark modules), null when the server has no QR
    library."""

    type: Literal["transfer"]
    code: str
    expires: float
    qr: dict[str, Any] | None


class Claimed(_Sent):
    """A transfer code was good: this connection holds the seat, with a new token (the old
    device's token is dead)."""

    type: Literal["claimed"]
    seat: int
    token: str


class CoachMove(_Sent):
    """One of the bots' best moves."""

    move: dict[str, Any]
    reason: str


class CoachRisk(_Sent):
    """What a move leaves the next player, for the page to word: ``sweep`` (the floor, with
    one of ``values``) or ``house`` (the team's house of ``value``)."""

    risk: Literal["sweep", "house"]
    values: list[str] | None = None
    value: int | None = None


class CoachWarning(_Sent):
    """A move the coach warns about: its risks, and the same in English sentences that name
    the move."""

    move: dict[str, Any]
    risks: list[CoachRisk] = Field(default_factory=list)
    warnings: list[str]


class CoachAnswer(_Sent):
    """Practice tables: the bots' top three moves, warnings on the moves offered, and the
    unseen cards by value (1..13, from the seat's view only)."""

    type: Literal["coach"]
    version: int
    top: list[CoachMove]
    warnings: list[CoachWarning]
    unseen: dict[str, int]


class ReviewPlay(_Sent):
    """One of the player's card plays, scored by the medium bot from his view at that turn."""

    index: int = Field(description="its place among the deal's moves")
    move: dict[str, Any]
    score: float = Field(description="the bot's score of the play (its points)")
    best: dict[str, Any] = Field(description="the bot's best move there")
    best_score: float
    loss: float = Field(description="best_score - score; 0 when the bot would play it too")
    choices: int = Field(description="how many legal moves there were")


class Review(_Sent):
    """Practice tables, after a deal, to the player's seat only: the bots' review of his plays
    (docs/web.md, Post-deal review)."""

    type: Literal["review"]
    deal: int
    seat: int
    moves: int = Field(description="the deal's moves, the reviewed ones among them")
    plays: list[ReviewPlay]
    costly: list[int] = Field(description="indexes of the at most 3 dearest plays, dearest first")
    complete: bool = Field(description="false when the time budget left plays unscored")


class ReportAnswer(_Sent):
    """The position as the seat sees it (a docs/format.md view), the moves offered and the app
    version, for a bug report."""

    type: Literal["report"]
    report: dict[str, Any]


class ReportReceived(_Sent):
    """The answer to ``report_player``: the report reached the operator (``repeat``: this
    reporter had reported the same line or player already; kept once)."""

    type: Literal["reported"]
    repeat: bool


class MovesAnswer(_Sent):
    """One card's legal moves (at most 10,000; ``count`` is how many there are)."""

    type: Literal["moves"]
    version: int
    card: str
    moves: list[dict[str, Any]]
    count: int


class Pong(_Sent):
    """The answer to ``ping``."""

    type: Literal["pong"]


class ErrorMessage(_Sent):
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
    | Pong
    | ErrorMessage,
    Field(discriminator="type"),
]

"""The web protocol's shapes as pydantic models: HTTP bodies, socket messages, and what the
server sends, with the JSON parsing every request and message goes through.

The models check what a client sends (``parse_body``, ``parse_message``); a refused value
becomes a :class:`~seep.web.tables.TableError` whose plain message names the field. The same
models publish the protocol as JSON Schema (:func:`protocol_schema`, committed as
docs/web-protocol.schema.json by ``python -m seep.web.messages``) so that other clients can be
written against it. The server-to-client models document ``state`` and the rest; the server
builds those messages as plain dicts (the hot path) and the tests check them against the models.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from ..bots.registry import BOTS, _load_builtin
from ..bots.registry import DIFFICULTIES as BOT_PRESETS
from ..options import PRESETS
from .names import check_name

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_TOKENS",
    "MESSAGES",
    "NAME_LENGTH",
    "SCHEMA_PATH",
    "BadInput",
    "ClientMessage",
    "CreateTable",
    "JoinTable",
    "ServerMessage",
    "bad_json",
    "json_tokens",
    "parse_body",
    "parse_json",
    "parse_message",
    "plain_error",
    "protocol_schema",
    "schema_text",
]

NAME_LENGTH = 24
CHAT_LENGTH = 200  # characters of one chat line
EMOTES = ("well_played", "nice_sweep", "oops", "thanks", "hurry", "good_game")
MAX_DEPTH = 32  # nesting of arrays and objects: a move needs 3
# Tokens of one socket message (json_tokens): a move needs about 20, a chat line of commas 210.
MAX_TOKENS = 400
MAX_INT_DIGITS = 18  # fits 64 bits; the protocol has no larger integers


class BadInput(ValueError):
    """Input that is not acceptable JSON or does not fit its model: ``code`` is the error code
    (``bad_json``, or the caller's code for a field), ``message`` a plain sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- JSON ---------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _checked_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError("a number too large")
    return int(text)


def _checked_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or len(text) > 64:
        raise ValueError("a number too large")
    return value


def _depth_ok(text: str) -> bool:
    """True when no array or object nests deeper than :data:`MAX_DEPTH` (a quick scan: the
    JSON parser itself would recurse once per level)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return True
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def bad_json(what: str) -> BadInput:
    """The ``bad_json`` error for ``what`` (``"the request body"``, ``"a message"``)."""
    return BadInput(
        "bad_json",
        f"{what} is not valid JSON (UTF-8, at most {MAX_DEPTH} levels deep, integers of at "
        f"most {MAX_INT_DIGITS} digits, no NaN or Infinity)",
    )


def json_tokens(text: str) -> int:
    """An upper bound on the JSON tokens of ``text`` past its first value: its brackets, braces,
    commas and colons (those inside strings count too, so a chat line of commas costs more
    than it parses; it stays within :data:`MAX_TOKENS`). Counted in C, before any parsing."""
    return sum(text.count(ch) for ch in "[]{},:")


def _unique_keys(what: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        made: dict[str, Any] = {}
        for key, value in pairs:
            if key in made:
                # Which of the two a reader takes differs between parsers: refuse both.
                raise BadInput("bad_json", f"{what} names {key[:40]!r} twice")
            made[key] = value
        return made

    return pairs_to_dict


def parse_json(data: str | bytes, what: str = "a message", max_tokens: int = 0) -> Any:
    """Parse JSON text strictly; raises :class:`BadInput` ``bad_json`` for invalid UTF-8,
    invalid JSON, an object naming a key twice, nesting deeper than :data:`MAX_DEPTH`,
    integers of more than :data:`MAX_INT_DIGITS` digits, numbers that overflow a float, and
    ``NaN``/``Infinity``;
    ``too_large`` for more than ``max_tokens`` tokens (:func:`json_tokens`; 0: no limit),
    refused before the parser spends a microsecond per token on it."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if max_tokens and json_tokens(text) > max_tokens:
            raise BadInput(
                "too_large", f"{what} has more than {max_tokens} JSON tokens (a move needs 20)"
            )
        if not _depth_ok(text):
            raise bad_json(what)
        return json.loads(
            text,
            parse_int=_checked_int,
            parse_float=_checked_float,
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_keys(what),
        )
    except BadInput:
        raise
    except (ValueError, RecursionError, UnicodeError):
        raise bad_json(what) from None


# --- the plain sentence for a pydantic error -------------------------------------------------


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def plain_error(exc: ValidationError, model: type[BaseModel]) -> str:
    """A pydantic error as one plain sentence naming the field (the first error only)."""
    err = exc.errors(include_url=False)[0]
    loc = err["loc"]
    field = ".".join(str(p) for p in loc)
    kind = err["type"]
    ctx = err.get("ctx") or {}
    got = f", got {_shown(err.get('input'))}" if "input" in err else ""
    if kind == "extra_forbidden":
        known = ", ".join(f for f in model.model_fields if f != "type") or "none"
        return f"unknown field {field!r} (known: {known})"
    if kind == "missing":
        return f"{field!r} is required"
    if kind == "value_error":
        reason = str(ctx.get("error", err["msg"]))
        return f"{field!r}: {reason}" if field else reason
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{field!r} must be an integer{got}"
    if kind in ("bool_type", "bool_parsing"):
        return f"{field!r} must be true or false{got}"
    if kind == "string_type":
        return f"{field!r} must be a string{got}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"{field!r} must be at least {ctx.get('ge', ctx.get('gt'))}{got}"
    if kind in ("less_than_equal", "less_than"):
        return f"{field!r} must be at most {ctx.get('le', ctx.get('lt'))}{got}"
    if kind == "literal_error":
        return f"{field!r} must be {ctx.get('expected')}{got}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{field or 'the body'!r} must be a JSON object{got}"
    return f"{field!r}: {err['msg']}"


M = TypeVar("M", bound=BaseModel)


def _validate(model: type[M], data: Any, code: str) -> M:
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise BadInput(code, plain_error(exc, model)) from None


# --- HTTP bodies --------------------------------------------------------------------------


def _clean_name(value: str | None) -> str | None:
    """Spaces squeezed, at most :data:`NAME_LENGTH` characters; invisible, look-alike and
    reserved names refused (:func:`seep.web.names.check_name`)."""
    if value is None:
        return None
    name = check_name(value)
    if len(name) > NAME_LENGTH:
        raise ValueError(f"at most {NAME_LENGTH} characters")
    return name or None


Name = Annotated[
    str | None,
    AfterValidator(_clean_name),
    Field(description=f"shown to the other players; at most {NAME_LENGTH} characters"),
]


# Every preset is offered: four seats, or two with ``two_player`` (docs/rules.md §12).
_TABLE_PRESETS = sorted(p for p, rules in PRESETS.items() if rules.add_retention != "team")


def _check_preset(value: str) -> str:
    if value not in PRESETS:
        raise ValueError(f"unknown preset {value!r} (known: {', '.join(_TABLE_PRESETS)})")
    if PRESETS[value].add_retention == "team":
        # The server words each seat's legal moves and dead-card reasons from the rules
        # checker, and under "team" they depend on the partner's hand: they would reveal it.
        raise ValueError(
            f"preset {value!r} uses add_retention 'team', which a web table does not offer: "
            "the legal moves would give away the partner's hidden cards"
        )
    return value


def _bot_names() -> list[str]:
    _load_builtin()
    return [*BOT_PRESETS, *BOTS]


def _check_bots(value: str) -> str:
    if value not in _bot_names():
        raise ValueError(f"unknown bot {value!r} (known: {', '.join(_bot_names())})")
    return value


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CreateTable(_Body):
    """``POST /api/tables``: a new table with its creator as host in seat 0."""

    name: Name = None
    preset: Annotated[
        str,
        AfterValidator(_check_preset),
        WithJsonSchema({"type": "string", "enum": _TABLE_PRESETS}),
    ] = "standard"
    bots: Annotated[
        str,
        AfterValidator(_check_bots),
        WithJsonSchema({"type": "string", "enum": _bot_names()}),
        Field(description="the bots' difficulty (or a bot's name)"),
    ] = "medium"
    deals: Annotated[int | None, Field(ge=1, le=100, description="deals to play")] = None
    baazis: Annotated[
        int | None, Field(ge=1, le=20, description="baazis to play (default: one)")
    ] = None
    practice: Annotated[bool, Field(description="one player against bots, undo allowed")] = False
    turn_seconds: Annotated[
        int | None, Field(ge=5, le=3600, description="the turn clock (null: none)")
    ] = None
    public: Annotated[
        bool, Field(description="listed in the lobby (GET /api/lobby) while seats are free")
    ] = False

    @model_validator(mode="after")
    def _one_length(self) -> CreateTable:
        if self.deals is not None and self.baazis is not None:
            raise ValueError("give 'deals' or 'baazis', not both")
        return self


class JoinTable(_Body):
    """``POST /api/tables/{code}/join``: take a seat before the start."""

    name: Name = None
    seat: Annotated[int | None, Field(ge=0, le=3, description="null: the first free seat")] = None
    token: Annotated[
        str | None,
        Field(
            max_length=100,
            description="the seat token this browser already holds for this table, if any: "
            "one person holds one seat",
        ),
    ] = None


def parse_body(model: type[M], data: Any) -> M:
    """An HTTP body checked against ``model``; raises :class:`BadInput` ``bad_request``."""
    if not isinstance(data, dict):
        raise BadInput("bad_request", "the request body must be a JSON object")
    return _validate(model, data, "bad_request")


# --- socket messages, client -> server -------------------------------------------------------


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    type: str


Version = Annotated[int, Field(description="the 'version' of the state it answers")]
SeatNumber = Annotated[int, Field(ge=0, le=3)]
MoveObject = Annotated[
    Any,
    WithJsonSchema(
        {"type": "object", "description": "a docs/format.md move object", "required": ["action"]}
    ),
]


class Hello(_Message):
    """The first message of a player's connection: claim the seat the token holds."""

    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=100)]


class Ping(_Message):
    """Answered by ``pong``."""

    type: Literal["ping"]


class MoveMessage(_Message):
    """Play a move for my seat."""

    type: Literal["move"]
    move: MoveObject
    version: Version


class Start(_Message):
    """Host only: fill the empty seats with bots and start."""

    type: Literal["start"]


class Sit(_Message):
    """Move to another empty seat before the start."""

    type: Literal["sit"]
    seat: SeatNumber


class Kick(_Message):
    """Host only, before the start: remove the player in ``seat`` (his token is dead)."""

    type: Literal["kick"]
    seat: SeatNumber


class Hint(_Message):
    """Ask the bots' suggestion for my turn."""

    type: Literal["hint"]


class Undo(_Message):
    """Practice tables: take back my last move and the bots' moves after it."""

    type: Literal["undo"]


class Next(_Message):
    """After a deal's summary: ready for the next deal."""

    type: Literal["next"]


def _clean_text(value: str) -> str:
    """Printable characters (line breaks become spaces; control and direction characters
    go), spaces squeezed; not empty."""
    kept = "".join(ch if ch.isprintable() else " " if ch.isspace() else "" for ch in value)
    text = " ".join(kept.split())
    if not text:
        raise ValueError("a chat line needs some text")
    return text


class Chat(_Message):
    """A chat line to everyone at the table (players and spectators); shown as text."""

    type: Literal["chat"]
    text: Annotated[str, Field(max_length=CHAT_LENGTH), AfterValidator(_clean_text)]


class Emote(_Message):
    """A quick emote to everyone at the table."""

    type: Literal["emote"]
    emote: Literal[EMOTES]  # type: ignore[valid-type]


class Mute(_Message):
    """Host only: mute (or unmute) the chat and emotes of the player in ``seat``."""

    type: Literal["mute"]
    seat: SeatNumber
    muted: bool = True


class Watch(_Message):
    """A spectator gives his name, shown in the table's list of who is watching."""

    type: Literal["watch"]
    name: Name = None


class Rematch(_Message):
    """After the match: I play again at this table with the same seats."""

    type: Literal["rematch"]


class Transfer(_Message):
    """Ask for a one-time code that carries my seat to another device."""

    type: Literal["transfer"]


class Claim(_Message):
    """Another device claims a seat with a transfer code (from the link's fragment)."""

    type: Literal["claim"]
    code: Annotated[str, Field(min_length=1, max_length=64)]


class Coach(_Message):
    """Practice tables: the coach's advice for my turn."""

    type: Literal["coach"]


class Report(_Message):
    """The position as my seat sees it, the moves offered and the app version."""

    type: Literal["report"]


class MovesRequest(_Message):
    """One card's legal moves, when the state sends counts per card instead of the list."""

    type: Literal["moves"]
    card: Annotated[str, Field(min_length=2, max_length=2, pattern="^[A2-9TJQK][CDHS]$")]


MESSAGES: dict[str, type[_Message]] = {
    "hello": Hello,
    "ping": Ping,
    "move": MoveMessage,
    "start": Start,
    "sit": Sit,
    "kick": Kick,
    "hint": Hint,
    "undo": Undo,
    "next": Next,
    "chat": Chat,
    "emote": Emote,
    "mute": Mute,
    "watch": Watch,
    "rematch": Rematch,
    "transfer": Transfer,
    "claim": Claim,
    "coach": Coach,
    "report": Report,
    "moves": MovesRequest,
}

ClientMessage = Annotated[
    Hello
    | Ping
    | MoveMessage
    | Start
    | Sit
    | Kick
    | Hint
    | Undo
    | Next
    | Chat
    | Emote
    | Mute
    | Watch
    | Rematch
    | Transfer
    | Claim
    | Coach
    | Report
    | MovesRequest,
    Field(discriminator="type"),
]


def parse_message(data: Any) -> _Message:
    """A socket message (already parsed JSON) checked against its type's model; raises
    :class:`BadInput` ``bad_message`` or ``unknown_type``."""
    if not isinstance(data, dict):
        raise BadInput("bad_message", "a message must be a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise BadInput("bad_message", "a message needs a string 'type'")
    model = MESSAGES.get(kind)
    if model is None:
        known = ", ".join(MESSAGES)
        raise BadInput("unknown_type", f"unknown message type {_shown(kind)} (known: {known})")
    return _validate(model, data, "bad_message")


# --- server -> client (documentation; the server sends plain dicts) --------------------------


class _Sent(BaseModel):
    model_config = ConfigDict(extra="allow")


class SeatInfo(_Sent):
    """A seat as everyone sees it."""

    name: str
    kind: Literal["human", "bot", "empty"]
    connected: bool
    away: bool


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
    """``GET /api/lobby``: open public tables with free seats (at most 50, oldest first)."""

    tables: list[LobbyTable]


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
    | Review
    | ReportAnswer
    | MovesAnswer
    | Pong
    | ErrorMessage,
    Field(discriminator="type"),
]


def protocol_schema() -> dict[str, Any]:
    """The protocol as one JSON Schema document: the schema itself is a client's socket
    message; ``$defs`` holds the HTTP bodies and answers and the server's messages."""
    adapters: dict[str, Any] = {
        "ClientMessage": ClientMessage,
        "ServerMessage": ServerMessage,
        "CreateTable": CreateTable,
        "JoinTable": JoinTable,
        "Created": Created,
        "Joined": Joined,
        "TableInfo": TableInfo,
        "Lobby": Lobby,
    }
    defs: dict[str, Any] = {}
    tops: dict[str, Any] = {}
    for name, tp in adapters.items():
        schema = TypeAdapter(tp).json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        tops[name] = schema
    for name, schema in tops.items():
        defs.setdefault(name, schema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Seep web protocol (docs/web.md)",
        "description": (
            "A message a client sends on /ws/{code}. $defs: ServerMessage (what the server "
            "sends), CreateTable and JoinTable (HTTP bodies; CreateTable also for POST "
            "/api/quick), Created, Joined, TableInfo and Lobby (HTTP answers). Generated "
            "from seep.web.messages: python -m seep.web.messages"
        ),
        "$ref": "#/$defs/ClientMessage",
        "$defs": dict(sorted(defs.items())),
    }


SCHEMA_PATH = Path("docs") / "web-protocol.schema.json"


def schema_text() -> str:
    """The committed schema file's exact text."""
    return json.dumps(protocol_schema(), indent=2, sort_keys=False) + "\n"


if __name__ == "__main__":  # python -m seep.web.messages [path]: write the schema file
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_PATH
    out.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {out}")

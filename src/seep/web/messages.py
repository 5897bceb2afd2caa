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

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MESSAGES",
    "NAME_LENGTH",
    "SCHEMA_PATH",
    "BadInput",
    "ClientMessage",
    "CreateTable",
    "JoinTable",
    "ServerMessage",
    "bad_json",
    "parse_body",
    "parse_json",
    "parse_message",
    "plain_error",
    "protocol_schema",
    "schema_text",
]

NAME_LENGTH = 24
MAX_DEPTH = 32  # nesting of arrays and objects: a move needs 3
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


def parse_json(data: str | bytes, what: str = "a message") -> Any:
    """Parse JSON text strictly; raises :class:`BadInput` ``bad_json`` for invalid UTF-8,
    invalid JSON, nesting deeper than :data:`MAX_DEPTH`, integers of more than
    :data:`MAX_INT_DIGITS` digits, numbers that overflow a float, and ``NaN``/``Infinity``."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if not _depth_ok(text):
            raise bad_json(what)
        return json.loads(
            text,
            parse_int=_checked_int,
            parse_float=_checked_float,
            parse_constant=_reject_constant,
        )
    except (ValueError, RecursionError, UnicodeError):
        # BadInput is a ValueError too: it passes through unchanged.
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
    """Printable characters, spaces squeezed, at most :data:`NAME_LENGTH` characters."""
    if value is None:
        return None
    name = " ".join("".join(ch for ch in value if ch.isprintable()).split())
    if len(name) > NAME_LENGTH:
        raise ValueError(f"at most {NAME_LENGTH} characters")
    return name or None


Name = Annotated[
    str | None,
    AfterValidator(_clean_name),
    Field(description=f"shown to the other players; at most {NAME_LENGTH} characters"),
]


def _check_preset(value: str) -> str:
    if value not in PRESETS:
        raise ValueError(f"unknown preset {value!r} (known: {', '.join(sorted(PRESETS))})")
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
        WithJsonSchema({"type": "string", "enum": sorted(PRESETS)}),
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
        {"type": "object", "description": "a FORMAT.md move object", "required": ["action"]}
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
}

ClientMessage = Annotated[
    Hello | Ping | MoveMessage | Start | Sit | Kick | Hint | Undo | Next,
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


class TableInfo(_Sent):
    """A table as anyone may see it (``GET /api/tables/{code}`` and ``state.table``)."""

    code: str
    status: Literal["waiting", "playing", "finished"]
    host: int
    settings: dict[str, Any]
    seats: list[SeatInfo]


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
    """A finished deal's ``result`` (FORMAT.md)."""

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


class State(_Sent):
    """What one connection may see of its table, after every change."""

    type: Literal["state"]
    version: int
    seat: int | None
    table: TableInfo
    view: dict[str, Any] | None = Field(description="a FORMAT.md view (null before the start)")
    legal: list[dict[str, Any]]
    dead: dict[str, str] = Field(
        default_factory=dict,
        description="the seat to move's cards with no legal use, each with the rules "
        "checker's reason (R16, R21d ...)",
    )
    last_moves: list[dict[str, Any] | None]
    match: MatchInfo | None
    summary: Summary | None
    clock: Clock | None


class HintAnswer(_Sent):
    """The bots' suggestion (``version``: the state it was asked in)."""

    type: Literal["hint"]
    version: int
    move: dict[str, Any]
    reason: str


class Pong(_Sent):
    """The answer to ``ping``."""

    type: Literal["pong"]


class ErrorMessage(_Sent):
    """A refused message or request, to that connection only."""

    type: Literal["error"]
    code: str
    message: str


ServerMessage = Annotated[State | HintAnswer | Pong | ErrorMessage, Field(discriminator="type")]


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
            "sends), CreateTable and JoinTable (HTTP bodies), Created, Joined and TableInfo "
            "(HTTP answers). Generated from seep.web.messages: python -m seep.web.messages"
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

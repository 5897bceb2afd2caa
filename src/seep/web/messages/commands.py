"""The socket messages a client sends on ``/ws/{code}`` (docs/web.md "WebSocket"), as pydantic
models, and :func:`parse_message`, which checks one against its type's model."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from .bodies import NOTE_LENGTH, REPORT_REASONS, Name
from .parsing import BadInput, shown, validate

__all__ = [
    "CHAT_LENGTH",
    "EMOTES",
    "MESSAGES",
    "Chat",
    "Claim",
    "ClientMessage",
    "Coach",
    "Emote",
    "Hello",
    "Hint",
    "Kick",
    "MoveMessage",
    "MovesRequest",
    "Mute",
    "Next",
    "Ping",
    "Rematch",
    "Report",
    "ReportPlayer",
    "Sit",
    "Start",
    "Transfer",
    "Undo",
    "Visibility",
    "Watch",
    "parse_message",
]

CHAT_LENGTH = 200  # characters of one chat line
EMOTES = ("well_played", "nice_sweep", "oops", "thanks", "hurry", "good_game")


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
    history: Literal["whole", "append"] = Field(
        default="whole",
        description="'append': each state's view.history holds only the moves after those "
        "this socket's last state held, from number history_from on (docs/web.md)",
    )


class Ping(_Message):
    """Answered by ``pong``."""

    type: Literal["ping"]


class Visibility(_Message):
    """Whether the page is in sight (sent on connecting and at each change): a seat with no
    visible page is away, and may be sent push notifications (docs/web.md
    "Notifications"). Not answered."""

    type: Literal["visibility"]
    visible: bool


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


def _clean_note(value: str) -> str:
    """A reporter's words: printable, spaces squeezed (empty allowed)."""
    kept = "".join(ch if ch.isprintable() else " " if ch.isspace() else "" for ch in value)
    return " ".join(kept.split())


class ReportPlayer(_Message):
    """Report a chat line (its ``line`` number, as the ``chat`` message gave it) or the player
    in ``seat`` to the server's operator (docs/deploy.md "Moderation"); answered by
    ``reported``. Never shown to the reported player."""

    type: Literal["report_player"]
    line: Annotated[int, Field(ge=1)] | None = None
    seat: SeatNumber | None = None
    reason: Literal[REPORT_REASONS] = "other"  # type: ignore[valid-type]
    note: Annotated[str, Field(max_length=NOTE_LENGTH), AfterValidator(_clean_note)] = ""


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
    "report_player": ReportPlayer,
    "moves": MovesRequest,
    "visibility": Visibility,
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
    | ReportPlayer
    | MovesRequest
    | Visibility,
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
        raise BadInput("unknown_type", f"unknown message type {shown(kind)} (known: {known})")
    return validate(model, data, "bad_message")

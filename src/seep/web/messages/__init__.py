"""The web protocol's shapes as pydantic models: HTTP bodies, socket messages, and what the
server sends, with the JSON parsing every request and message goes through.

The models check what a client sends (``parse_body``, ``parse_message``); a refused value
becomes a :class:`~seep.web.tables.TableError` whose plain message names the field. The same
models publish the protocol as JSON Schema (:func:`protocol_schema`, committed as
docs/web-protocol.schema.json by ``python -m seep.web.messages``) so that other clients can be
written against it. The server-to-client models document ``state`` and the rest; the server
builds those messages as plain dicts (the hot path) and the tests check them against the models.

One module a job, each re-exported here:

- :mod:`~seep.web.messages.parsing`: strict JSON parsing, :class:`BadInput`, the plain sentence
  for a pydantic error;
- :mod:`~seep.web.messages.bodies`: the HTTP request bodies and the player's name;
- :mod:`~seep.web.messages.commands`: the socket messages a client sends;
- :mod:`~seep.web.messages.answers`: what the server sends (HTTP answers, socket messages);
- :mod:`~seep.web.messages.schema`: the protocol as one JSON Schema document.
"""

from __future__ import annotations

from .answers import (
    ChatLine,
    Claimed,
    Clock,
    CoachAnswer,
    CoachMove,
    CoachRisk,
    CoachWarning,
    Created,
    DealResult,
    EmoteSent,
    ErrorMessage,
    HintAnswer,
    Joined,
    Lobby,
    LobbyTable,
    MatchInfo,
    MovesAnswer,
    Pong,
    Reason,
    RematchReady,
    ReportAnswer,
    Review,
    ReviewPlay,
    SeatInfo,
    ServerMessage,
    State,
    Summary,
    TableInfo,
    TransferCode,
    Watching,
)
from .bodies import NAME_LENGTH, PRESETS, CreateTable, JoinTable, Name, parse_body
from .commands import (
    CHAT_LENGTH,
    EMOTES,
    MESSAGES,
    Chat,
    Claim,
    ClientMessage,
    Coach,
    Emote,
    Hello,
    Hint,
    Kick,
    MoveMessage,
    MovesRequest,
    Mute,
    Next,
    Ping,
    Rematch,
    Report,
    Sit,
    Start,
    Transfer,
    Undo,
    Watch,
    parse_message,
)
from .parsing import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_TOKENS,
    BadInput,
    bad_json,
    json_tokens,
    parse_json,
    plain_error,
)
from .schema import SCHEMA_PATH, protocol_schema, schema_text

__all__ = [
    "CHAT_LENGTH",
    "EMOTES",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_TOKENS",
    "MESSAGES",
    "NAME_LENGTH",
    "PRESETS",
    "SCHEMA_PATH",
    "BadInput",
    "Chat",
    "ChatLine",
    "Claim",
    "Claimed",
    "ClientMessage",
    "Clock",
    "Coach",
    "CoachAnswer",
    "CoachMove",
    "CoachRisk",
    "CoachWarning",
    "CreateTable",
    "Created",
    "DealResult",
    "Emote",
    "EmoteSent",
    "ErrorMessage",
    "Hello",
    "Hint",
    "HintAnswer",
    "JoinTable",
    "Joined",
    "Kick",
    "Lobby",
    "LobbyTable",
    "MatchInfo",
    "MoveMessage",
    "MovesAnswer",
    "MovesRequest",
    "Mute",
    "Name",
    "Next",
    "Ping",
    "Pong",
    "Reason",
    "Rematch",
    "RematchReady",
    "Report",
    "ReportAnswer",
    "Review",
    "ReviewPlay",
    "SeatInfo",
    "ServerMessage",
    "Sit",
    "Start",
    "State",
    "Summary",
    "TableInfo",
    "Transfer",
    "TransferCode",
    "Undo",
    "Watch",
    "Watching",
    "bad_json",
    "json_tokens",
    "parse_body",
    "parse_json",
    "parse_message",
    "plain_error",
    "protocol_schema",
    "schema_text",
]

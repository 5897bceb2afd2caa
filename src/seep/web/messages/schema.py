"""The protocol as one JSON Schema document, committed as docs/web-protocol.schema.json
(``python -m seep.web.messages`` writes it) so that other clients can be written against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from .answers import (
    Created,
    Joined,
    Lobby,
    ServerMessage,
    TableInfo,
)
from .bodies import (
    ChangePassword,
    CreateTable,
    DeleteAccount,
    DeletePasskey,
    JoinTable,
    PasskeyLogin,
    PasskeyRegister,
    PushSubscribe,
    PushUnsubscribe,
    QuickMatch,
    ReportPlayerBody,
    SignIn,
    SignUp,
)
from .commands import ClientMessage
from .players import Leaderboard, Me, MyMatches, Profile

__all__ = ["SCHEMA_PATH", "protocol_schema", "schema_text"]


def protocol_schema() -> dict[str, Any]:
    """The protocol as one JSON Schema document: the schema itself is a client's socket
    message; ``$defs`` holds the HTTP bodies and answers and the server's messages."""
    adapters: dict[str, Any] = {
        "ClientMessage": ClientMessage,
        "ServerMessage": ServerMessage,
        "CreateTable": CreateTable,
        "QuickMatch": QuickMatch,
        "ReportPlayerBody": ReportPlayerBody,
        "PushSubscribe": PushSubscribe,
        "PushUnsubscribe": PushUnsubscribe,
        "JoinTable": JoinTable,
        "Created": Created,
        "Joined": Joined,
        "TableInfo": TableInfo,
        "Lobby": Lobby,
        "SignUp": SignUp,
        "SignIn": SignIn,
        "ChangePassword": ChangePassword,
        "DeleteAccount": DeleteAccount,
        "PasskeyRegister": PasskeyRegister,
        "PasskeyLogin": PasskeyLogin,
        "DeletePasskey": DeletePasskey,
        "Me": Me,
        "MyMatches": MyMatches,
        "Profile": Profile,
        "Leaderboard": Leaderboard,
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
            "sends), CreateTable, QuickMatch and JoinTable (HTTP bodies; SignUp, SignIn, "
            "ChangePassword, DeleteAccount, PasskeyRegister, PasskeyLogin, DeletePasskey: the "
            "account routes' bodies; ReportPlayerBody: POST /api/reports; PushSubscribe, "
            "PushUnsubscribe: the push routes), "
            "Created, Joined, TableInfo, Lobby, Me, MyMatches, Profile and Leaderboard (HTTP "
            "answers). Generated "
            "from seep.web.messages: python -m seep.web.messages"
        ),
        "$ref": "#/$defs/ClientMessage",
        "$defs": dict(sorted(defs.items())),
    }


SCHEMA_PATH = Path("docs") / "web-protocol.schema.json"


def schema_text() -> str:
    """The committed schema file's exact text."""
    return json.dumps(protocol_schema(), indent=2, sort_keys=False) + "\n"

"""The HTTP request bodies (``POST /api/tables``, ``/api/quick``, ``/api/tables/{code}/join``)
as pydantic models, and the player's name every body and the ``watch`` message share."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from ...bots.registry import BOTS, DIFFICULTIES, _load_builtin
from ...options import PRESETS
from ..names import check_name
from .parsing import BadInput, M, validate

__all__ = [
    "NAME_LENGTH",
    "NOTE_LENGTH",
    "PRESETS",
    "REPORT_REASONS",
    "ChangePassword",
    "CreateTable",
    "DeleteAccount",
    "DeletePasskey",
    "JoinTable",
    "Name",
    "PasskeyLogin",
    "PasskeyRegister",
    "PushSubscribe",
    "PushUnsubscribe",
    "QuickMatch",
    "ReportPlayerBody",
    "SignIn",
    "SignUp",
    "parse_body",
]

NAME_LENGTH = 24
MAX_HELD_TOKENS = 50  # quick match: the seat tokens one browser may say it holds
WAIT_SECONDS = (10, 300)  # rated quick match: the fewest and most seconds a player may wait
REPORT_REASONS = ("abuse", "cheating", "spam", "name", "other")  # a report's reason, a fixed list
NOTE_LENGTH = 200  # characters of a reporter's own words in a report


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
    return [*DIFFICULTIES, *BOTS]


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

    rated: Annotated[
        bool,
        Field(
            description='a rated match (docs/web.md "Ratings"): every player signed in, '
            "no practice, undo, hints or coach; bots of a difficulty only"
        ),
    ] = False

    @model_validator(mode="after")
    def _one_length(self) -> CreateTable:
        if self.deals is not None and self.baazis is not None:
            raise ValueError("give 'deals' or 'baazis', not both")
        if self.rated and self.practice:
            raise ValueError("a rated table cannot be a practice table")
        if self.rated and self.bots not in DIFFICULTIES:
            raise ValueError(
                f"a rated table's bots are a difficulty ({', '.join(DIFFICULTIES)}), whose "
                f"ratings are fixed, not {self.bots!r}"
            )
        return self


class QuickMatch(CreateTable):
    """``POST /api/quick``: a table's settings as ``CreateTable``'s, and what only quick match
    takes (the route reads these two, naming what is wrong, before the settings are read)."""

    tokens: Annotated[
        list[Annotated[str, Field(max_length=100)]],
        Field(
            max_length=MAX_HELD_TOKENS,
            description="the seat tokens this browser holds: a seat it holds already at the "
            "table found is answered, not a second one",
        ),
    ] = []
    wait: Annotated[
        int | None,
        Field(
            ge=WAIT_SECONDS[0],
            le=WAIT_SECONDS[1],
            description="rated quick match only: seconds to wait for players before bots "
            "fill the empty seats (null: SEEP_QUICK_SECONDS)",
        ),
    ] = None


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


_ACCOUNT_NAME = Field(
    min_length=3,
    max_length=24,
    description="unique as it looks: case, accents and look-alike letters are one name",
)
_PASSWORD = Field(min_length=8, max_length=128, description="8 to 128 characters")


class HeldSeat(_Body):
    """A seat this browser holds: the table's code and the seat's token."""

    code: Annotated[str, Field(max_length=8)]
    token: Annotated[str, Field(max_length=100)]


_HELD = Field(
    max_length=50,
    description="the seats this browser holds as a guest: they become the account's",
)


class SignUp(_Body):
    """``POST /api/accounts``: a new account, signed in at once (the session cookie)."""

    name: Annotated[str, _ACCOUNT_NAME]
    password: Annotated[str, _PASSWORD]
    seats: Annotated[list[HeldSeat], _HELD] = []


class SignIn(_Body):
    """``POST /api/login``: a new session for this account (the session cookie)."""

    name: str
    password: str
    seats: Annotated[list[HeldSeat], _HELD] = []


class ChangePassword(_Body):
    """``POST /api/me/password`` (signed in): every other session ends."""

    password: Annotated[str, Field(description="the current password")]
    new_password: Annotated[str, _PASSWORD]


class DeleteAccount(_Body):
    """``POST /api/me/delete`` (signed in): the account, its name and sessions are gone."""

    password: Annotated[str, Field(description="the current password")]


class PasskeyRegister(_Body):
    """``POST /api/passkeys/register`` (signed in): the authenticator's answer to the
    registration options, kept as one of the account's passkeys."""

    handle: Annotated[str, Field(max_length=100, description="the options' handle")]
    credential: Annotated[
        dict[str, Any],
        Field(description="navigator.credentials.create()'s answer, in WebAuthn's JSON form"),
    ]
    label: Annotated[str, Field(max_length=40, description="the owner's name for it")] = ""


class PasskeyLogin(_Body):
    """``POST /api/passkeys/login``: a new session for the passkey's account (the session
    cookie), as a password's sign-in gives."""

    handle: Annotated[str, Field(max_length=100, description="the options' handle")]
    credential: Annotated[
        dict[str, Any],
        Field(description="navigator.credentials.get()'s answer, in WebAuthn's JSON form"),
    ]
    seats: Annotated[list[HeldSeat], _HELD] = []


class DeletePasskey(_Body):
    """``POST /api/me/passkeys/delete`` (signed in): one of the account's passkeys is gone."""

    id: Annotated[int, Field(ge=1, description="the passkey's id, as GET /api/me/passkeys")]


class ReportPlayerBody(_Body):
    """``POST /api/reports``: report a player by his account's name (from his profile) to the
    server's operator. Answered ``{"repeat": false}`` (true: reported by you already)."""

    player: Annotated[str, Field(min_length=1, max_length=4 * NAME_LENGTH)]
    reason: Literal[REPORT_REASONS] = "other"  # type: ignore[valid-type]
    note: Annotated[str, Field(max_length=NOTE_LENGTH)] = ""


class PushKeys(_Body):
    """A push subscription's keys (RFC 8291), base64url as the browser gives them."""

    p256dh: Annotated[str, Field(max_length=100, description="the browser's P-256 public key")]
    auth: Annotated[str, Field(max_length=50, description="the 16-byte authentication secret")]


class PushSubscriptionInfo(_Body):
    """A browser's ``PushSubscription.toJSON()``."""

    endpoint: Annotated[
        str, Field(max_length=1024, description="the push service's URL for this browser")
    ]
    expirationTime: int | float | None = None  # the browser's own name
    keys: PushKeys


class PushSubscribe(_Body):
    """``POST /api/push/subscriptions``: notify this browser (docs/web.md "Notifications")
    for the seats it holds as a guest, and, signed in, for every seat of the account. The
    same subscription again adds its seats and takes its language. Answered 201
    ``{"seats": n}``."""

    subscription: PushSubscriptionInfo
    seats: Annotated[
        list[HeldSeat],
        Field(max_length=20, description="the seats this browser holds (code and token)"),
    ] = []
    lang: Literal["en", "hi"] = "en"


class PushUnsubscribe(_Body):
    """``POST /api/push/subscriptions/delete``: no more notifications to this browser.
    Answered ``{"deleted": true}`` (false: none was kept)."""

    endpoint: Annotated[str, Field(max_length=1024)]


def parse_body(model: type[M], data: Any) -> M:
    """An HTTP body checked against ``model``; raises :class:`BadInput` ``bad_request``."""
    if not isinstance(data, dict):
        raise BadInput("bad_request", "the request body must be a JSON object")
    return validate(model, data, "bad_request")

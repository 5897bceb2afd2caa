"""What the store keeps: the database's tables (SQLAlchemy Core metadata, which the schema's
Alembic revisions follow), the records a write takes (:class:`TableRow`: any object with those
fields, a :class:`seep.web.table.Table` among them, so the store needs no table module), a
lease's answer and the refusals of a write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    false,
)
from sqlalchemy import Table as SqlTable

__all__ = [
    "LIVE",
    "Lease",
    "SeatRow",
    "StoreConflict",
    "StoreUnavailable",
    "TableRow",
    "accounts_t",
    "audit_t",
    "event_rounds_t",
    "event_tables_t",
    "event_teams_t",
    "events_t",
    "leases_t",
    "metadata",
    "moves_t",
    "passkey_challenges_t",
    "passkeys_t",
    "push_seats_t",
    "push_subscriptions_t",
    "rated_matches_t",
    "rating_changes_t",
    "ratings_t",
    "reports_t",
    "sanctions_t",
    "seat_accounts_t",
    "server_keys_t",
    "sessions_t",
    "status_index",
    "tables_t",
]

LIVE = ("waiting", "playing")  # the statuses loaded at start-up; "finished", "closed" are kept


class SeatRow(Protocol):
    """What the store keeps of a seat (never a token: its hash)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def token_hash(self) -> str | None: ...
    @property
    def account(self) -> int | None: ...
    @property
    def forfeited(self) -> bool: ...


class TableRow(Protocol):
    """What the store keeps of a table: any record with these fields (a
    :class:`seep.web.table.Table` is one), so the store needs no table module."""

    @property
    def code(self) -> str: ...
    @property
    def settings(self) -> Mapping[str, Any]: ...
    @property
    def seed(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def host(self) -> int: ...
    @property
    def version(self) -> int: ...
    @property
    def seats(self) -> Sequence[SeatRow]: ...


metadata = MetaData()
tables_t = SqlTable(
    "tables",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("settings", Text, nullable=False),  # JSON
    Column("seed", String(24), nullable=False),  # 62-bit: a string for every database
    Column("status", String(12), nullable=False),
    Column("host", Integer, nullable=False),
    Column("seats", Text, nullable=False),  # JSON: name, kind, token_hash per seat
    Column("version", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("record", Text),  # the docs/format.md game record once finished
)
moves_t = SqlTable(
    "moves",
    metadata,
    Column("code", String(8), ForeignKey("tables.code"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("move", Text, nullable=False),  # the docs/format.md move with its seat
)
status_index = Index("ix_tables_status", tables_t.c.status)

# One row per table some instance holds (several instances on one database only).
leases_t = SqlTable(
    "leases",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("owner", String(64), nullable=False),  # the holding instance's id
    Column("expires", Float, nullable=False),  # time.time() of the end of the lease
    Column("wanted", String(64)),  # another instance that asked for the table
)

# Accounts (docs/web.md "Accounts"): a guest needs none. ``name_key`` is the name as it looks
# (seep.web.names.skeleton), unique, so that no two accounts pass for one another.
accounts_t = SqlTable(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(24), nullable=False),  # as its owner spelt it
    Column("name_key", String(96), nullable=False, unique=True),
    Column("password_hash", String(200), nullable=False),  # argon2id, with its parameters
    Column("created", Float, nullable=False),
)
# A signed-in browser: the SHA-256 of its session cookie (the cookie itself is never stored).
sessions_t = SqlTable(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("seen", Float, nullable=False),  # the last request it signed, to the hour
)

# Which account sat where: the seats JSON says it too, this finds an account's tables by index
# (its matches, and what its deletion must rename).
seat_accounts_t = SqlTable(
    "seat_accounts",
    metadata,
    Column("code", String(8), ForeignKey("tables.code"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
)

# Ratings (docs/web.md "Ratings", seep.web.ratings): an account's rating per format, each rated
# match once (its code unique: a second end of the same match finds it and changes nothing), and
# what it did to every seat's rating (a bot's seat: its fixed rating, before and after alike).
ratings_t = SqlTable(
    "ratings",
    metadata,
    Column("account", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("format", String(8), primary_key=True),  # "four" or "two"
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("last", Float, nullable=False),  # when its latest rated match ended
)
# The leaderboard reads a format's ratings best first (ties by account), filtered on sigma,
# games and last: all in the index, so that a page and the count never read the table.
Index(
    "ix_ratings_leaderboard",
    ratings_t.c.format,
    ratings_t.c.mu.desc(),
    ratings_t.c.account,
    ratings_t.c.sigma,
    ratings_t.c.games,
    ratings_t.c.last,
)
rated_matches_t = SqlTable(
    "rated_matches",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),  # the order they were rated
    Column("code", String(8), ForeignKey("tables.code"), nullable=False, unique=True),
    Column("format", String(8), nullable=False),
    Column("winner", Integer),  # the winning team; NULL a drawn match
    Column("ended", Float, nullable=False),
)
rating_changes_t = SqlTable(
    "rating_changes",
    metadata,
    Column("match", Integer, ForeignKey("rated_matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", Integer, ForeignKey("accounts.id")),  # NULL: a bot, a deleted account
    Column("result", String(4), nullable=False),  # "win", "loss" or "draw"
    # The player left the match and did not come back in time (docs/web.md "Fair play").
    Column("forfeited", Boolean, nullable=False, server_default=false()),
    # His team's totals over the match, for the profile's statistics (docs/web.md "Profiles").
    Column("deals", Integer, nullable=False, server_default="0"),
    Column("baazis", Integer, nullable=False, server_default="0"),
    Column("points", Integer, nullable=False, server_default="0"),
    Column("sweep_points", Integer, nullable=False, server_default="0"),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    # A player's rated matches, newest first (his profile), with what his statistics sum:
    # those read the index alone (revision 0007).
    Index(
        "ix_rating_changes_profile",
        "account",
        "match",
        "result",
        "forfeited",
        "deals",
        "baazis",
        "points",
        "sweep_points",
    ),
)


# Passkeys (docs/web.md "Accounts"): an account's WebAuthn credentials, each its public key and
# the authenticator's signature counter; ``user_handle`` is the account's random WebAuthn user
# id (one per account, the same on each of its passkeys), never its database id.
passkeys_t = SqlTable(
    "passkeys",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "account",
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("credential_id", LargeBinary(1023), nullable=False, unique=True),
    Column("public_key", LargeBinary(2048), nullable=False),  # COSE, as the authenticator sent it
    Column("user_handle", LargeBinary(64), nullable=False),
    Column("sign_count", BigInteger, nullable=False),  # 32 bits unsigned: not a signed Integer
    Column("transports", String(200), nullable=False),  # JSON list, hints for the browser
    Column("label", String(40), nullable=False),  # the owner's name for it
    Column("created", Float, nullable=False),
    Column("used", Float),  # its latest sign-in; NULL: never used
)
# A WebAuthn ceremony under way: its challenge, found by the SHA-256 of the random handle its
# options answer carried (in the JSON body, never a URL); single-use and short-lived. In the
# database, not in memory, so that the finish may reach another instance than the start.
passkey_challenges_t = SqlTable(
    "passkey_challenges",
    metadata,
    Column("handle_hash", String(64), primary_key=True),
    Column("purpose", String(8), nullable=False),  # "register" or "login"
    Column("account", Integer, ForeignKey("accounts.id", ondelete="CASCADE")),  # register's
    Column("challenge", LargeBinary(64), nullable=False),
    Column("user_handle", LargeBinary(64)),  # register: the user id the options named
    Column("origin", String(200), nullable=False),  # the page that asked
    Column("expires", Float, nullable=False, index=True),
)


# Moderation (docs/deploy.md "Moderation"). A player's report of a chat line or a player: what
# the reported party said and who it was (name, account, address as the server saw it) are
# copied in, so that the operator reads them after the table is gone; never shown to players.
# ``dedupe`` (reporter, table, line or seat) makes a second report of the same thing by the
# same reporter count once.
reports_t = SqlTable(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created", Float, nullable=False),
    Column("open", Boolean, nullable=False),
    Column("code", String(8)),  # the table (none: a player reported by name)
    Column("line", Integer),  # the chat line's number at its table
    Column("seat", Integer),
    Column("name", String(24), nullable=False),  # the reported player's name then
    Column("account", Integer),  # his account's id then (no key: it may be deleted)
    Column("client", String(64)),  # his address as the server saw it
    Column("text", Text),  # the reported chat line
    Column("reason", String(16), nullable=False),
    Column("note", String(200), nullable=False),  # the reporter's words
    Column("reporter_account", Integer),
    Column("reporter_client", String(64), nullable=False),
    Column("dedupe", String(200), nullable=False, unique=True),
    Column("closed", Float),
    Column("closed_by", String(64)),
    # `seep admin reports --open`: the open ones, newest first.
    Index("ix_reports_open", "open", "id"),
)
# Bans, mutes and requests to close a live table, each for a time (``until`` NULL: until
# lifted). The servers read the active ones every few seconds (seep.web.moderation).
sanctions_t = SqlTable(
    "sanctions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(8), nullable=False),  # "ban", "mute" or "close"
    Column("target_kind", String(8), nullable=False),  # "address", "account" or "table"
    Column("target", String(64), nullable=False),  # a network, an account id, a table code
    Column("created", Float, nullable=False),
    Column("until", Float),
    Column("reason", String(200), nullable=False),
    Column("by", String(64), nullable=False),
    Column("lifted", Float),  # unbanned, unmuted, or the table closed
    Index("ix_sanctions_active", "lifted", "until"),
    Index("ix_sanctions_target", "kind", "target_kind", "target"),
)
# Every operator's action, written in the same transaction as the action itself.
audit_t = SqlTable(
    "audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("by", String(64), nullable=False),  # the operator (his OS user, or --by)
    Column("action", String(24), nullable=False),
    Column("target", String(100), nullable=False),
    Column("reason", String(200), nullable=False),
)


# Web Push (docs/web.md "Notifications", revision 0009). The server's own keys by name (the
# VAPID key pair, "vapid": made by the first instance that starts, then read by every one).
server_keys_t = SqlTable(
    "server_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", Text, nullable=False),  # JSON
    Column("created", Float, nullable=False),
)
# A browser's push subscription: where its push service takes messages for it, and the keys
# they are encrypted with (RFC 8291). Found by the SHA-256 of its endpoint (unique, short to
# index). ``client`` (the address that sent it) bounds how many one address keeps.
push_subscriptions_t = SqlTable(
    "push_subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("endpoint_hash", String(64), nullable=False, unique=True),
    Column("endpoint", Text, nullable=False),
    Column("p256dh", String(100), nullable=False),  # base64url, as the browser gave it
    Column("auth", String(50), nullable=False),
    Column("lang", String(8), nullable=False),  # the page's language: the notification's
    # A signed-in browser's account: every seat of the account is notified there.
    Column("account", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), index=True),
    Column("client", String(64), nullable=False, index=True),
    Column("created", Float, nullable=False),
)
# The seats a subscription is for (a guest's: the SHA-256 of the seat's token, as the table
# keeps it; never the token).
push_seats_t = SqlTable(
    "push_seats",
    metadata,
    Column(
        "subscription",
        Integer,
        ForeignKey("push_subscriptions.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("code", String(8), primary_key=True),
    Column("token_hash", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Index("ix_push_seats_seat", "code", "token_hash"),
)


# Events (docs/web.md "Events", revision 0010). An event an organiser (an account) made: what it
# plays, when, and where it stands. ``seed`` is the server's secret the rounds' seeds follow
# from (duplicate: every table of a round deals from it); it is never shown.
events_t = SqlTable(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(60), nullable=False),
    Column("organiser", Integer),  # the account (no key: it may be deleted, the event stays)
    Column("organiser_name", String(24), nullable=False),
    Column("kind", String(10), nullable=False),  # "swiss", "arena" or "duplicate"
    Column("format", String(4), nullable=False),  # "four" or "two"
    Column("rated", Boolean, nullable=False),
    Column("partners", String(10), nullable=False),  # "registered" ("individual": not yet)
    Column("bots", Boolean, nullable=False),  # bots play for no-shows
    Column("starts", Float, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("deals", Integer, nullable=False),  # deals a round
    # An arena's window in minutes from its start (revision 0011; other kinds: None).
    Column("minutes", Integer),
    # Baazis a round (revision 0012; None: the round is ``deals`` deals). Swiss and arena only.
    Column("baazis", Integer),
    Column("status", String(10), nullable=False),  # open, running, paused, finished
    Column("round", Integer, nullable=False),  # the round being played or last played (0: none)
    Column("seed", String(24), nullable=False),
    Column("created", Float, nullable=False),
    Column("ended", Float),
    Index("ix_events_status", "status", "starts"),
    Index("ix_events_organiser", "organiser"),
)
# A team of an event: one player (two seats) or two partners (four seats). A partner named at
# registration has to accept (``accepted``) before the team takes part.
event_teams_t = SqlTable(
    "event_teams",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("event", Integer, ForeignKey("events.id", ondelete="CASCADE"), nullable=False),
    Column("player1", Integer),  # accounts (no key; NULL: deleted, the name "a former player")
    Column("name1", String(24), nullable=False),
    Column("player2", Integer),
    Column("name2", String(24)),
    Column("accepted", Boolean, nullable=False),
    Column("checked_in", Boolean, nullable=False),
    Column("withdrawn", Boolean, nullable=False),
    Column("created", Float, nullable=False),
    Index("ix_event_teams_event", "event"),
    Index("ix_event_teams_player1", "player1"),
    Index("ix_event_teams_player2", "player2"),
)
# A round of an event: its pairing's bye and, for duplicate, the seed its deals follow from.
event_rounds_t = SqlTable(
    "event_rounds",
    metadata,
    Column("event", Integer, ForeignKey("events.id", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),  # from 1
    Column("status", String(10), nullable=False),  # "playing" or "done"
    Column("bye", Integer),  # the team with the bye
    Column("seed", String(24), nullable=False),
    Column("started", Float, nullable=False),
    Column("ended", Float),
)
# A table a round opened: the two teams on it (``team_a`` holds side 0 unless ``swapped``), and
# its result once the round is over (JSON: winner side or null, each side's points).
event_tables_t = SqlTable(
    "event_tables",
    metadata,
    Column("code", String(8), primary_key=True),  # the table's code
    Column("event", Integer, ForeignKey("events.id", ondelete="CASCADE"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("board", Integer, nullable=False),  # from 1, in the pairing's order
    # A duplicate round's deal (0 first): a table per pair and deal (revision 0011).
    Column("deal", Integer, nullable=False, server_default="0"),
    Column("team_a", Integer, nullable=False),
    Column("team_b", Integer, nullable=False),
    # Partners drawn each round: the partners of team_a and team_b (revision 0011).
    Column("team_a2", Integer),
    Column("team_b2", Integer),
    Column("swapped", Boolean, nullable=False),
    Column("result", Text),
    Index("ix_event_tables_round", "event", "round"),
)


class StoreConflict(Exception):
    """A write that another writer got in first: a table code already taken, a move number
    already stored, or a table whose lease another instance holds."""


class StoreUnavailable(Exception):
    """A write the database could not take now (locked by another writer, disk full, ...):
    nothing of it was stored, and the same write may be tried again later."""


@dataclass(frozen=True)
class Lease:
    """The answer to :meth:`Store.take_lease`: ``owner`` holds the table until ``expires``."""

    taken: bool
    owner: str
    expires: float

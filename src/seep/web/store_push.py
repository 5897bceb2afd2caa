"""Web Push in a :class:`~seep.web.store.Store` (docs/web.md "Notifications"): the server's
VAPID key pair, the browsers' push subscriptions and the seats each one is for.

The key pair is made once for all instances: the first to start inserts it, a second that
started at the same moment finds the row taken and reads the first one's (insert if absent,
then read), so every instance signs with the key the browsers subscribed with.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import ColumnElement

from .schema import push_seats_t, push_subscriptions_t, server_keys_t

__all__ = ["PushRefused", "PushTarget", "StorePush", "endpoint_hash", "forget_push"]


class PushRefused(Exception):
    """A new subscription over the address's cap (the route answers 429)."""


@dataclass(frozen=True)
class PushTarget:
    """A subscription to send a notification to."""

    id: int
    endpoint: str
    p256dh: str
    auth: str
    lang: str


def endpoint_hash(endpoint: str) -> str:
    """The key a subscription is found by (its endpoint may be long)."""
    return hashlib.sha256(endpoint.encode()).hexdigest()


def forget_push(c: Connection, account: int) -> None:
    """Delete the account's subscriptions and their seats inside the caller's transaction (an
    account's deletion: SQLite does not enforce the foreign keys' cascade by itself)."""
    ids = select(push_subscriptions_t.c.id).where(push_subscriptions_t.c.account == account)
    c.execute(delete(push_seats_t).where(push_seats_t.c.subscription.in_(ids)))
    c.execute(delete(push_subscriptions_t).where(push_subscriptions_t.c.account == account))


class StorePush:
    """The store's push keys and subscriptions; ``engine`` is the store's."""

    engine: Engine

    def server_key(self, name: str, make: Callable[[], str]) -> str:
        """The server's key ``name``: the stored one, else ``make()``'s, stored. Two
        instances that start at once both end with the one that was stored first."""
        query = select(server_keys_t.c.value).where(server_keys_t.c.name == name)
        with self.engine.connect() as c:
            found = c.execute(query).scalar()
        if found is not None:
            return str(found)
        try:
            with self.engine.begin() as c:
                c.execute(
                    insert(server_keys_t).values(name=name, value=make(), created=time.time())
                )
        except IntegrityError:
            pass  # another instance stored its key first: that one is read below
        with self.engine.connect() as c:
            return str(c.execute(query).scalar_one())

    def add_push_subscription(
        self,
        endpoint: str,
        p256dh: str,
        auth: str,
        *,
        lang: str,
        account: int | None,
        client: str,
        seats: Sequence[tuple[str, str]],
        per_client: int,
        per_account: int,
        per_subscription: int,
    ) -> int:
        """Keep a browser's subscription (the same endpoint again: its keys, language and
        account are updated) and link it to ``seats`` (table code, token hash). A new one
        past ``per_client`` subscriptions of the address is refused (:class:`PushRefused`);
        past ``per_account`` of the account its oldest goes; a subscription keeps its
        ``per_subscription`` newest seats. Returns its id."""
        now = time.time()
        key = endpoint_hash(endpoint)
        subs = push_subscriptions_t
        with self.engine.begin() as c:
            found = c.execute(select(subs.c.id).where(subs.c.endpoint_hash == key)).scalar()
            values = {"p256dh": p256dh, "auth": auth, "lang": lang, "account": account}
            if found is None:
                mine = c.execute(
                    select(func.count()).select_from(subs).where(subs.c.client == client)
                ).scalar_one()
                if per_client and mine >= per_client:
                    raise PushRefused(f"at most {per_client} subscriptions from one address")
                made = c.execute(
                    insert(subs).values(
                        endpoint_hash=key, endpoint=endpoint, client=client, created=now, **values
                    )
                )
                assert made.inserted_primary_key is not None
                sub = int(made.inserted_primary_key[0])
            else:
                sub = int(found)
                c.execute(update(subs).where(subs.c.id == sub).values(**values))
            if account is not None and per_account:
                ids = c.execute(
                    select(subs.c.id).where(subs.c.account == account).order_by(subs.c.id.desc())
                ).scalars()
                old = [i for i in ids if i != sub][per_account - 1 :]
                if old:
                    c.execute(delete(push_seats_t).where(push_seats_t.c.subscription.in_(old)))
                    c.execute(delete(subs).where(subs.c.id.in_(old)))
            for i, (code, token_hash) in enumerate(seats):
                c.execute(
                    delete(push_seats_t).where(
                        push_seats_t.c.subscription == sub, push_seats_t.c.code == code
                    )
                )
                c.execute(
                    insert(push_seats_t).values(
                        # The list's order counts as time: its last seat is the newest.
                        subscription=sub,
                        code=code,
                        token_hash=token_hash,
                        created=now + i * 1e-6,
                    )
                )
            kept = c.execute(
                select(push_seats_t.c.code)
                .where(push_seats_t.c.subscription == sub)
                .order_by(push_seats_t.c.created.desc(), push_seats_t.c.code)
            ).scalars()
            extra = list(kept)[per_subscription:]
            if extra:
                c.execute(
                    delete(push_seats_t).where(
                        push_seats_t.c.subscription == sub, push_seats_t.c.code.in_(extra)
                    )
                )
        return sub

    def delete_push_subscription(self, endpoint: str) -> bool:
        """Forget a browser's subscription (it unsubscribed); False when none was kept."""
        key = endpoint_hash(endpoint)
        with self.engine.begin() as c:
            found = c.execute(
                select(push_subscriptions_t.c.id).where(push_subscriptions_t.c.endpoint_hash == key)
            ).scalar()
            if found is None:
                return False
            self._delete_push(c, int(found))
        return True

    def delete_push(self, sub: int) -> None:
        """Forget subscription ``sub`` (its push service said it is gone: 404 or 410)."""
        with self.engine.begin() as c:
            self._delete_push(c, sub)

    @staticmethod
    def _delete_push(c: Connection, sub: int) -> None:
        c.execute(delete(push_seats_t).where(push_seats_t.c.subscription == sub))
        c.execute(delete(push_subscriptions_t).where(push_subscriptions_t.c.id == sub))

    def push_seat_tokens(self, code: str) -> set[str]:
        """The token hashes of table ``code``'s seats that some subscription is for."""
        query = select(push_seats_t.c.token_hash).where(push_seats_t.c.code == code)
        with self.engine.connect() as c:
            return {str(h) for h in c.execute(query).scalars()}

    def push_accounts(self) -> set[int]:
        """The accounts that have a subscription."""
        subs = push_subscriptions_t
        query = select(subs.c.account).where(subs.c.account.is_not(None)).distinct()
        with self.engine.connect() as c:
            return {int(a) for a in c.execute(query).scalars()}

    def push_targets(
        self, code: str, token_hash: str | None, account: int | None
    ) -> list[PushTarget]:
        """The subscriptions of a seat: those linked to its token at table ``code``, and
        those of its ``account`` (each once)."""
        subs = push_subscriptions_t
        wanted: list[ColumnElement[bool]] = []
        if token_hash is not None:
            wanted.append(
                subs.c.id.in_(
                    select(push_seats_t.c.subscription).where(
                        push_seats_t.c.code == code, push_seats_t.c.token_hash == token_hash
                    )
                )
            )
        if account is not None:
            wanted.append(subs.c.account == account)
        if not wanted:
            return []
        query = select(subs.c.id, subs.c.endpoint, subs.c.p256dh, subs.c.auth, subs.c.lang)
        with self.engine.connect() as c:
            rows = c.execute(query.where(or_(*wanted)).order_by(subs.c.id)).all()
        return [PushTarget(r.id, r.endpoint, r.p256dh, r.auth, r.lang) for r in rows]

    def push_count(self) -> int:
        """How many subscriptions are kept (tests, metrics)."""
        with self.engine.connect() as c:
            return int(
                c.execute(select(func.count()).select_from(push_subscriptions_t)).scalar_one()
            )

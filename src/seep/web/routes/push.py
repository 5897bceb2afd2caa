"""Web Push's routes (docs/web.md "Notifications"): the server's VAPID public key, and a
browser's subscription kept or forgotten. The seats it is for come in the body (a guest's
seat tokens: never in a URL); a signed-in browser's is for every seat of the account too."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from ..limits import RateLimiter
from ..messages import PushSubscribe, PushUnsubscribe, parse_body
from ..push import PushSettings, VapidKeys, check_endpoint, check_keys
from ..store_push import PushRefused
from ..table import checked, hash_token
from ..tables import TableError
from .bodies import body_doc, json_body
from .gate import Gate

__all__ = ["router"]


def router(gate: Gate, keys: VapidKeys, settings: PushSettings) -> APIRouter:
    """``GET /api/push/key``, ``POST /api/push/subscriptions`` and
    ``POST /api/push/subscriptions/delete``."""
    push = APIRouter()
    store = gate.store
    posts = RateLimiter(settings.posts_per_minute)

    def count(key: str) -> None:
        if posts.over(key):
            gate.manager.metrics.refused("push")
            raise TableError(
                "rate_limited",
                f"at most {posts.limit} notification settings a minute from one address",
            )
        posts.add(key)

    @push.get("/api/push/key")
    async def push_key() -> dict[str, Any]:
        """The key a browser subscribes with (``applicationServerKey``)."""
        return {"key": keys.public}

    @push.post("/api/push/subscriptions", status_code=201, openapi_extra=body_doc(PushSubscribe))
    async def subscribe(request: Request) -> dict[str, Any]:
        key = gate.client(request)
        body = checked(lambda d: parse_body(PushSubscribe, d), await json_body(request))
        account = gate.account(request)
        gate.check_banned(key, None if account is None else account[0])
        count(key)
        sub = body.subscription
        try:
            endpoint = check_endpoint(sub.endpoint, settings)
            check_keys(sub.keys.p256dh, sub.keys.auth)
        except ValueError as exc:
            raise TableError("bad_request", f"the subscription: {exc}") from None
        seats = [(s.code.upper(), hash_token(s.token)) for s in body.seats]
        try:
            await asyncio.to_thread(
                store.add_push_subscription,
                endpoint,
                sub.keys.p256dh,
                sub.keys.auth,
                lang=body.lang,
                account=None if account is None else account[0],
                client=key,
                seats=seats,
                per_client=settings.per_client,
                per_account=settings.per_account,
                per_subscription=settings.per_subscription,
            )
        except PushRefused as exc:
            gate.manager.metrics.refused("push")
            raise TableError("too_many_subscriptions", f"{exc}: unsubscribe one first") from None
        pusher = gate.manager.pusher
        if pusher is not None:  # its seats' turns are watched from now on
            pusher.subscribed(seats, None if account is None else account[0], gate.manager.tables)
        return {"seats": len(seats)}

    @push.post("/api/push/subscriptions/delete", openapi_extra=body_doc(PushUnsubscribe))
    async def unsubscribe(request: Request) -> dict[str, Any]:
        key = gate.client(request)
        body = checked(lambda d: parse_body(PushUnsubscribe, d), await json_body(request))
        count(key)
        deleted = await asyncio.to_thread(store.delete_push_subscription, body.endpoint)
        return {"deleted": deleted}

    return push

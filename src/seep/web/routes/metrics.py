"""``GET /metrics``: the server's Prometheus metrics (:mod:`seep.web.metrics`, docs/deploy.md
"Metrics"), for the operator's scraper only.

Who may read them (:class:`MetricsAccess`): a client whose own address is a loopback one or in
``SEEP_METRICS_NETWORKS``, or a request with ``Authorization: Bearer <SEEP_METRICS_TOKEN>``.
The address is the real client's, read through the trusted proxies as every limit reads it:
behind HAProxy on the same machine every request's peer is loopback, and taking the peer
would hand the metrics to anyone the proxy serves. A request forwarded by a proxy that
``SEEP_TRUSTED_PROXIES`` does not name (its peer untrusted, yet it carries
``X-Forwarded-For`` or ``Forwarded``) has no address to believe: only the token admits it.
Anyone else gets the app's plain 404, as for a path that does not exist.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..limits import ClientResolver, RateLimiter
from ..limits.clients import Network
from ..metrics import CONTENT_TYPE, Metrics
from ..tables import TableError
from .gate import Gate

__all__ = ["METRICS_PER_MINUTE", "MetricsAccess", "router"]

#: Scrapes a minute per client (Prometheus scrapes every 15 s by default: 4).
METRICS_PER_MINUTE = 60


class MetricsAccess:
    """Whether a request may read the metrics (see the module): ``client_of`` reads the
    client's address through the trusted proxies, ``networks`` are admitted besides loopback,
    ``token`` (None: no token admits) is the bearer token."""

    def __init__(
        self, client_of: ClientResolver, networks: Iterable[Network], token: str | None
    ) -> None:
        self.client_of = client_of
        self.networks = tuple(networks)
        self._token = token.encode() if token else None

    def allows(
        self,
        peer: str | None,
        forwarded_for: str | None,
        forwarded: str | None,
        authorization: str | None,
    ) -> bool:
        """True when the request (its peer's address and those headers) may read them."""
        if self._token is not None and authorization:
            scheme, _, given = authorization.partition(" ")
            # Compared in constant time: the answer's timing tells nothing of the token.
            if scheme.lower() == "bearer" and hmac.compare_digest(
                given.strip().encode(), self._token
            ):
                return True
        if (forwarded_for or forwarded) and not self.client_of.is_trusted(peer):
            return False  # an unnamed proxy forwarded it: its client's address is unknown
        ip = self.client_of.address(peer, forwarded_for)
        if ip is None:
            return False
        if ip.is_loopback:
            return True
        return any(ip.version == net.version and ip in net for net in self.networks)


def router(gate: Gate, metrics: Metrics, access: MetricsAccess) -> APIRouter:
    """The metrics' route; not in the OpenAPI."""
    ops = APIRouter(include_in_schema=False)
    scrapes = RateLimiter(METRICS_PER_MINUTE)

    @ops.get("/metrics")
    async def read_metrics(request: Request) -> Response:
        peer = request.client.host if request.client is not None else None
        headers = request.headers
        if not access.allows(
            peer,
            headers.get("x-forwarded-for"),
            headers.get("forwarded"),
            headers.get("authorization"),
        ):
            # As a path that does not exist: an outsider learns nothing, not even that.
            raise StarletteHTTPException(404, "Not Found")
        key = gate.client(request)
        if not scrapes.hit(key):
            metrics.refused("metrics")
            raise TableError(
                "rate_limited", f"at most {METRICS_PER_MINUTE} metrics reads a minute per client"
            )
        await metrics.refresh()
        return Response(
            metrics.exposition(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
        )

    return ops

"""A request's JSON body, read with the limits every body has, and its documentation for /docs."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from starlette.requests import Request

from ..messages import BadInput, parse_json
from ..tables import MAX_MESSAGE_BYTES, TableError

__all__ = ["body_doc", "json_body"]


async def json_body(request: Request) -> Any:
    """The request's JSON object, read at most :data:`MAX_MESSAGE_BYTES` bytes. Only
    ``application/json``: a cross-site form or ``text/plain`` POST, which a browser sends
    without asking the server first, is refused before its body is read."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json":
        raise TableError(
            "bad_content_type", "a request body is JSON, sent as Content-Type: application/json"
        )
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_MESSAGE_BYTES:
        raise TableError("too_large", f"a request body is at most {MAX_MESSAGE_BYTES} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_MESSAGE_BYTES:
            raise TableError("too_large", f"a request body is at most {MAX_MESSAGE_BYTES} bytes")
    if not body.strip():
        return {}
    try:
        return parse_json(body, "the request body")
    except BadInput as exc:
        raise TableError(exc.code, exc.message) from None


def body_doc(model: type[BaseModel]) -> dict[str, Any]:
    """The request body for /docs: the bodies are read and checked by hand (size, strict JSON,
    our error codes), so FastAPI does not know their model by itself."""
    schema = model.model_json_schema()
    return {"requestBody": {"content": {"application/json": {"schema": schema}}}}

"""Strict JSON parsing, and the plain sentence for a refused value: what every HTTP body and
socket message goes through before its model (docs/web.md "Security").

A refusal is a :class:`BadInput` with the error code the client gets and a plain sentence.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_TOKENS",
    "BadInput",
    "bad_json",
    "json_tokens",
    "parse_json",
    "plain_error",
    "shown",
    "validate",
]

MAX_DEPTH = 32  # nesting of arrays and objects: a move needs 3
# Tokens of one socket message (json_tokens): a move needs about 20, a chat line of commas 210.
MAX_TOKENS = 400
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


def json_tokens(text: str) -> int:
    """An upper bound on the JSON tokens of ``text`` past its first value: its brackets, braces,
    commas and colons (those inside strings count too, so a chat line of commas costs more
    than it parses; it stays within :data:`MAX_TOKENS`). Counted in C, before any parsing."""
    return sum(text.count(ch) for ch in "[]{},:")


def _unique_keys(what: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        made: dict[str, Any] = {}
        for key, value in pairs:
            if key in made:
                # Which of the two a reader takes differs between parsers: refuse both.
                raise BadInput("bad_json", f"{what} names {key[:40]!r} twice")
            made[key] = value
        return made

    return pairs_to_dict


@functools.lru_cache(maxsize=16)
def _decoder(what: str) -> json.JSONDecoder:
    """The strict decoder for ``what``, made once (every socket message goes through it:
    ``json.loads`` with these arguments makes a new one each time)."""
    return json.JSONDecoder(
        parse_int=_checked_int,
        parse_float=_checked_float,
        parse_constant=_reject_constant,
        object_pairs_hook=_unique_keys(what),
    )


def parse_json(data: str | bytes, what: str = "a message", max_tokens: int = 0) -> Any:
    """Parse JSON text strictly; raises :class:`BadInput` ``bad_json`` for invalid UTF-8,
    invalid JSON, an object naming a key twice, nesting deeper than :data:`MAX_DEPTH`,
    integers of more than :data:`MAX_INT_DIGITS` digits, numbers that overflow a float, and
    ``NaN``/``Infinity``;
    ``too_large`` for more than ``max_tokens`` tokens (:func:`json_tokens`; 0: no limit),
    refused before the parser spends a microsecond per token on it."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if max_tokens and json_tokens(text) > max_tokens:
            raise BadInput(
                "too_large", f"{what} has more than {max_tokens} JSON tokens (a move needs 20)"
            )
        if not _depth_ok(text):
            raise bad_json(what)
        return _decoder(what).decode(text)
    except BadInput:
        raise
    except (ValueError, RecursionError, UnicodeError):
        raise bad_json(what) from None


# --- the plain sentence for a pydantic error -------------------------------------------------


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def plain_error(exc: ValidationError, model: type[BaseModel]) -> str:
    """A pydantic error as one plain sentence naming the field (the first error only)."""
    err = exc.errors(include_url=False)[0]
    loc = err["loc"]
    field = ".".join(str(p) for p in loc)
    kind = err["type"]
    ctx = err.get("ctx") or {}
    got = f", got {shown(err.get('input'))}" if "input" in err else ""
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


def validate(model: type[M], data: Any, code: str) -> M:
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise BadInput(code, plain_error(exc, model)) from None

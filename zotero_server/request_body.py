"""The plugin's POST body read as JSON: one flat object, its shape checked before and after
parsing, the base64 ``fileContent`` cut out so that parsing stays fast (pure, no I/O)."""

from __future__ import annotations

import json
import re
from typing import Any

from common.errors import InputError, RequestShapeError

#: Most fields a body may have; every plugin generation sends fewer than 60.
MAX_FIELDS = 200
#: Most quotes, commas and brackets a body may hold before it is parsed: a flat object of
#: ``MAX_FIELDS`` strings needs a few hundred (the rest is room for text settings such as a
#: custom prompt); a body of millions of keys or deep nesting needs millions. Counting costs
#: milliseconds where parsing such a body held the server for seconds.
MAX_STRUCTURE = 20_000


def parse_body(raw: bytes | bytearray) -> dict[str, Any]:
    """The POST body as the plugin sends it: one flat JSON object of at most ``MAX_FIELDS``
    strings, numbers, booleans or nulls, except the small objects of ``NESTED_IGNORED``, which
    are checked for size and removed. Anything else is an ``InputError`` (400), refused
    before it is parsed where its size alone shows it (see ``MAX_STRUCTURE``). CPU-bound for a
    large upload: call it off the event loop."""
    for char in (b'"', b",", b"[", b"{"):
        if raw.count(char) > MAX_STRUCTURE:
            raise RequestShapeError(_NOT_FLAT)
    content, rest = _cut_file_content(raw)
    try:
        body = json.loads(rest)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    if len(body) > MAX_FIELDS:
        raise RequestShapeError(_NOT_FLAT)
    for key, value in list(body.items()):
        if isinstance(value, str | int | float | bool | None):
            continue
        if key not in NESTED_IGNORED:
            raise RequestShapeError(f"{str(key)[:40]!r} must be a string, not a list or object")
        _check_nested(key, value)
        del body[key]  # never used, stored or logged: it may hold the user's API key
    if content is not None and isinstance(body, dict) and body.get("fileContent") == "":
        body["fileContent"] = content
    return body


#: Nested values a plugin generation is known to send, accepted and dropped unread:
#: ``llm_api`` = ``{service, model, apiKey, apiUrl, extraData: {...}}`` whenever the user has an
#: LLM entry switched on (plugin 3.x-4.1.x, ``getActiveLLMApiConfig``). Our model serves every
#: request, so none of it is used; the key it carries must never reach a log or the job store.
NESTED_IGNORED = frozenset({"llm_api", "llmApi"})
#: Bounds on such a value: nesting depth and leaves (the plugin sends depth 2, a dozen leaves).
MAX_NESTED_DEPTH = 4
MAX_NESTED_ITEMS = 200


def _check_nested(key: str, value: Any) -> None:
    """``RequestShapeError`` unless ``value`` is a small JSON object of plain values."""
    count = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_NESTED_ITEMS:
            raise RequestShapeError(f"{key!r} has more than {MAX_NESTED_ITEMS} values")
        if isinstance(item, dict | list):
            if depth > MAX_NESTED_DEPTH:
                raise RequestShapeError(f"{key!r} is nested more than {MAX_NESTED_DEPTH} deep")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    if not isinstance(value, dict):
        raise RequestShapeError(f"{key!r} must be an object")


_FILE_CONTENT = re.compile(rb'"fileContent"\s*:\s*"')


def _cut_file_content(raw: bytes | bytearray) -> tuple[memoryview | None, bytes | bytearray]:
    """The ``fileContent`` string's raw bytes, and the body with an empty string in its place.

    Parsing a 130 MB JSON string holds the interpreter for a second or more; cut out, the rest
    parses in microseconds and the base64 is decoded in steps. Base64 needs no unescaping;
    a value with a backslash is left to the JSON parser.
    """
    match = _FILE_CONTENT.search(raw, 0, 64 * 1024)  # the plugins send it among the first keys
    if match is None:
        return None, raw
    end = raw.find(b'"', match.end())
    if end < 0 or raw.find(b"\\", match.end(), end) >= 0:
        return None, raw
    return memoryview(raw)[match.end() : end], raw[: match.end()] + raw[end:]


_NOT_FLAT = f"the request body must be a flat JSON object of at most {MAX_FIELDS} fields"

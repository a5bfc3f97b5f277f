"""The PDF a POST carries in ``fileContent``: a base64 data URL or bare base64, decoded in steps
under the upload size limit (pure, no I/O)."""

from __future__ import annotations

import binascii
import re
from typing import Any

from common.errors import InputError, TooLargeError
from common.settings import mib


def decode_file_content(value: Any, max_bytes: int) -> bytes:
    """Decode ``data:application/pdf;base64,...`` or bare base64; enforce the size limit early.

    ``value`` is the JSON string, or the raw base64 bytes ``request_body.parse_body`` cut out of the
    body. Raises ``TooLargeError`` before decoding anything that cannot fit, ``InputError`` for
    text that is not base64. Decoded a few MB at a time: no single step holds the interpreter
    long enough to stall the event loop's thread.
    """
    if isinstance(value, str):
        try:
            value = value.encode("ascii")
        except UnicodeEncodeError:
            raise InputError("fileContent is not valid base64") from None
    if not isinstance(value, bytes | memoryview) or not bytes(value[:_HEAD]).strip():
        raise InputError("fileContent is missing or empty")
    text = memoryview(value)
    head = bytes(text[:_HEAD])
    start = len(head) - len(head.lstrip())
    if head[start:].startswith(b"data:"):
        header, sep, _ = head[start:].partition(b",")
        if not sep or not header.endswith(b";base64"):
            raise InputError("fileContent must be a base64 data URL")
        start += len(header) + 1
    text = text[start:]
    # Clearly too large even if a tenth of it were line breaks: refuse before decoding.
    if len(text) * 3 // 4 > max_bytes * 1.1 + 2:
        raise TooLargeError(_too_large(len(text) * 3 // 4, max_bytes))
    parts: list[bytes] = []
    size, carry = 0, b""
    for offset in range(0, len(text), _CHUNK):
        piece = carry + bytes(text[offset : offset + _CHUNK]).translate(None, _SPACES)
        whole = len(piece) - len(piece) % 4
        piece, carry = piece[:whole], piece[whole:]
        size += _decode_into(parts, piece, max_bytes, size)
    if carry:
        _decode_into(parts, carry + b"=" * (-len(carry) % 4), max_bytes, size)
    data = b"".join(parts)
    if not data:
        raise InputError("fileContent is empty")
    return data


#: How far into fileContent a data URL header may reach.
_HEAD = 256
#: Base64 text decoded per step (a multiple of 4).
_CHUNK = 4 * 1024 * 1024
_SPACES = b" \t\r\n\f\v"
_BASE64 = re.compile(rb"[A-Za-z0-9+/]*={0,2}")


def _decode_into(parts: list[bytes], piece: bytes, max_bytes: int, size: int) -> int:
    if not _BASE64.fullmatch(piece):
        raise InputError("fileContent is not valid base64")
    try:
        data = binascii.a2b_base64(piece)
    except (binascii.Error, ValueError):
        raise InputError("fileContent is not valid base64") from None
    if size + len(data) > max_bytes:
        raise TooLargeError(_too_large(size + len(data), max_bytes))
    parts.append(data)
    return len(data)


def _too_large(size: int, max_bytes: int) -> str:
    return f"the PDF is {mib(size)}; this server accepts up to {mib(max_bytes)} (ZT_MAX_UPLOAD_MB)"

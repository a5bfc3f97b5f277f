"""How long and how much a client may take to send a request.

uvicorn (h11) times out only idle keep-alive connections, after a response: a client that sends
part of a request head, or a head and half a body, and then stalls would hold its connection
(a socket, a task, the buffered bytes) for ever. So:

* **head**: ``common.http_limits.TimedH11Protocol`` closes a connection whose request head is
  not complete ``ZT_REQUEST_READ_TIMEOUT_S`` after the connection opened, or after the first
  byte of the next request on a kept-alive connection; a head larger than 32 KiB is h11's 400;
* **body**: :func:`timed_chunks` (the body reader of the POST routes) ends a body that pauses
  longer than ``ZT_REQUEST_READ_TIMEOUT_S`` between chunks, or takes longer than
  ``ZT_REQUEST_BODY_TIMEOUT_S`` in all, with ``RequestTimeoutError`` (408, and the connection
  is closed);
* **idle**: a kept-alive connection with no request closes after a few seconds.

:func:`server_config` is the one uvicorn configuration ``serve`` uses (tests use it too).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from common.http_limits import uvicorn_config
from common.settings import Settings
from zotero_server.http_errors import RequestTimeoutError


def server_config(
    app: Any, settings: Settings, host: str, port: int, **extra: Any
) -> uvicorn.Config:
    """The uvicorn configuration of the Zotero-facing server; ``extra`` overrides (log level)."""
    return uvicorn_config(app, settings.request_read_timeout_s, host, port, **extra)


async def timed_chunks(
    chunks: AsyncIterator[bytes], pause_s: float, total_s: float
) -> AsyncIterator[bytes]:
    """``chunks`` (a request body), raising ``RequestTimeoutError`` when the next chunk takes
    longer than ``pause_s`` or the whole body longer than ``total_s``."""
    deadline = time.monotonic() + total_s
    iterator = aiter(chunks)
    while True:
        left = deadline - time.monotonic()
        wait = min(pause_s, left)
        try:
            if wait <= 0:
                raise TimeoutError
            chunk = await asyncio.wait_for(anext(iterator), wait)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise RequestTimeoutError(
                f"the request body did not arrive in time (a pause over {pause_s:g} s or over"
                f" {total_s:g} s in all: ZT_REQUEST_READ_TIMEOUT_S, ZT_REQUEST_BODY_TIMEOUT_S)"
            ) from None
        yield chunk

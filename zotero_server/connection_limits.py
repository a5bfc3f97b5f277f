"""How long and how much a client may take to send a request.

uvicorn (h11) times out only idle keep-alive connections, after a response: a client that sends
part of a request head, or a head and half a body, and then stalls would hold its connection
(a socket, a task, the buffered bytes) for ever. So:

* **head**: :class:`TimedH11Protocol` closes a connection whose request head is not complete
  ``ZT_REQUEST_READ_TIMEOUT_S`` after the connection opened, or after the first byte of the
  next request on a kept-alive connection; a head larger than :data:`MAX_HEAD_BYTES` is h11's
  400;
* **body**: :func:`timed_chunks` (the body reader of the POST routes) ends a body that pauses
  longer than ``ZT_REQUEST_READ_TIMEOUT_S`` between chunks, or takes longer than
  ``ZT_REQUEST_BODY_TIMEOUT_S`` in all, with ``RequestTimeoutError`` (408, and the connection
  is closed);
* **idle**: a kept-alive connection with no request closes after :data:`KEEP_ALIVE_S`.

:func:`server_config` is the one uvicorn configuration ``serve`` uses (tests use it too).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from common.settings import Settings
from zotero_server.http_errors import RequestTimeoutError

#: Largest request head (request line and headers) h11 buffers.
MAX_HEAD_BYTES = 32 * 1024
#: Seconds an idle kept-alive connection stays open.
KEEP_ALIVE_S = 5


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request head (module docstring)."""

    head_timeout_s: ClassVar[float] = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._between_requests():
            if self._head_timer is None:  # the first bytes of the next request's head
                self._arm_head_timer()
        else:
            self._disarm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._between_requests():
            return
        if self.conn.our_state != h11.ERROR:
            try:
                self.conn.send(h11.ConnectionClosed())
            except h11.LocalProtocolError:
                pass
        self.transport.close()


def protocol_class(head_timeout_s: float) -> type[TimedH11Protocol]:
    """:class:`TimedH11Protocol` with its head deadline set (uvicorn builds the instances)."""

    class Configured(TimedH11Protocol):
        pass

    Configured.head_timeout_s = head_timeout_s
    return Configured


def server_config(
    app: Any, settings: Settings, host: str, port: int, **extra: Any
) -> uvicorn.Config:
    """The uvicorn configuration of the Zotero-facing server; ``extra`` overrides (log level)."""
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "http": protocol_class(settings.request_read_timeout_s),
        "ws": "none",
        "lifespan": "on",
        "timeout_keep_alive": KEEP_ALIVE_S,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "log_level": "info",
    }
    options.update(extra)
    return uvicorn.Config(app, **options)


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

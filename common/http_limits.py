"""Connection limits every HTTP server of ours runs with (uvicorn's h11 protocol).

uvicorn (h11) times out only idle keep-alive connections, after a response: a client that sends
part of a request head and then stalls would hold its connection (a socket, a task, the
buffered bytes) for ever. :class:`TimedH11Protocol` closes a connection whose request head is
not complete a deadline after the connection opened, or after the first byte of the next request
on a kept-alive connection; a head larger than :data:`MAX_HEAD_BYTES` is h11's 400; a kept-alive
connection with no request closes after :data:`KEEP_ALIVE_S`. :func:`uvicorn_config` is what
both the Zotero-facing server (``zotero_server.connection_limits``) and the GPU status API
(``vllm_manager.gpu_api``) pass to uvicorn.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

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


def uvicorn_config(
    app: Any, head_timeout_s: float, host: str, port: int, **extra: Any
) -> uvicorn.Config:
    """The uvicorn configuration of one of our servers: the limits above (no websockets),
    the app's lifespan run, ``extra`` overriding (log level, graceful shutdown)."""
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "http": protocol_class(head_timeout_s),
        "ws": "none",
        "timeout_keep_alive": KEEP_ALIVE_S,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "lifespan": "on",
        "log_level": "info",
    }
    options.update(extra)
    return uvicorn.Config(app, **options)

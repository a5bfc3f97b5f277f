"""The plugin's request paths, fixed up before routing (an ASGI middleware)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit, urlunsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class PluginPaths:
    """Path fix-ups for what the plugin sends, before routing.

    1. ``//translate`` is ``/translate``: the plugin joins ``serverUrl + "/" + endpoint`` as is,
       and users type server URLs with a trailing slash.
    2. ``/t/<token>/translate`` is ``/translate`` with ``Authorization: Bearer <token>``: the
       plugin cannot send headers, but a server URL ``http://host:8890/t/<token>`` puts the
       ``ZT_API_TOKEN`` into every request it makes. A redirect the app answers (``/api/tasks/``
       -> ``/api/tasks``) keeps the ``/t/<token>`` prefix in its ``Location``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            if "//" in path:
                path = re.sub(r"/{2,}", "/", path)
            headers = scope["headers"]
            match = re.match(r"/t/([^/]+)(/.*)?$", path)
            if match:
                path = match.group(2) or "/"
                bearer = b"Bearer " + match.group(1).encode("latin-1", "replace")
                headers = [(k, v) for k, v in headers if k != b"authorization"]
                headers.append((b"authorization", bearer))
                send = _keep_prefix_in_redirects(send, "/t/" + quote(match.group(1), safe=""))
            if path != scope["path"]:
                raw = quote(path).encode()
                scope = dict(scope, path=path, raw_path=raw, headers=headers)
        await self.app(scope, receive, send)


def _keep_prefix_in_redirects(send: Send, prefix: str) -> Send:
    """``send`` with ``prefix`` put back in front of the path of any redirect's ``Location``."""

    def prefixed(location: bytes) -> bytes:
        parts = urlsplit(location.decode("latin-1"))
        if not parts.path.startswith("/") or parts.path.startswith(prefix + "/"):
            return location
        return urlunsplit(parts._replace(path=prefix + parts.path)).encode("latin-1")

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
            headers = [
                (k, prefixed(v) if k.lower() == b"location" else v) for k, v in message["headers"]
            ]
            message = {**message, "headers": headers}
        await send(message)

    return wrapped

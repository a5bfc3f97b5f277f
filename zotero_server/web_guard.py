"""What keeps web pages in the user's browser from driving the server.

Without a token (the default on 127.0.0.1) anything that can make the browser send a request
could otherwise queue jobs (a cross-site form POST), download and so delete outputs (a cross-site
navigation), or read the task list through DNS rebinding (``evil.example`` resolving to
127.0.0.1). :class:`WebGuard`, an ASGI middleware, answers before any route runs:

* **Host** (every request): an IP literal, a loopback name (``localhost``, ``*.localhost``), a
  single-label name (this machine's name, a cluster service name), the bind address or a name in
  ``ZT_ALLOWED_HOSTS`` (``*`` allows any). Anything else is 400: a rebinding attack needs a
  dotted DNS name the attacker controls, and never produces an IP literal or a single label.
* **Cross-site** (POSTs and ``/translatedFile``): 403 when ``Sec-Fetch-Site`` is ``cross-site``
  or ``same-site``, or an ``Origin`` is sent that is not this server's own (the Host the request
  was sent to, or a name in ``ZT_ALLOWED_HOSTS``), or, without an ``Origin``, a ``Referer``
  whose origin is not (browsers without Fetch Metadata send a navigation's Referer and no
  Origin). The Zotero plugin, running in Gecko's privileged context, sends none of these
  headers; the progress page sends its own origin. One foreign origin is accepted on the
  selection paths (:data:`TEXT_ORIGINS`): the DeepL browser extension's, which Translate for
  Zotero's "DeepLX" service sends from Zotero's privileged context. No web page can send it
  (a browser sets ``Origin`` itself), so it opens nothing to other sites.
* **JSON** (POSTs): a ``Content-Type`` other than ``application/json`` (or ``*+json``) is 415.
  Forms can send only ``text/plain``, urlencoded and multipart bodies without a CORS
  preflight; a body without any type comes from a script, which always sends ``Origin``.

:func:`check_bind` refuses to serve a non-loopback address without ``ZT_API_TOKEN`` unless
``ZT_ALLOW_OPEN_BIND`` says so.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from common.errors import ConfigError
from common.settings import Settings

#: Origins accepted on the selection paths (``zotero_server.reader_routes``); see above.
TEXT_ORIGINS = frozenset({"chrome-extension://cofdbpoegempjloogbagkncekinflcnj"})
_TEXT_PATHS = frozenset({"/translate", "/jsonrpc", "/deeplx/translate"})
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
_SIMPLE_REQUEST_SAFE = {"GET", "HEAD", "OPTIONS"}


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name stays on this machine."""
    host = host.strip().lower().rstrip(".")
    address = _ip(host)
    if address is not None:
        return address.is_loopback
    return host in _LOOPBACK_NAMES or host.endswith(".localhost")


def check_bind(settings: Settings, host: str) -> None:
    """Raise ``ConfigError`` for a non-loopback bind without a token (see the module doc)."""
    if is_loopback(host) or settings.api_token is not None or settings.allow_open_bind:
        return
    raise ConfigError(
        f"refusing to serve on {host} without ZT_API_TOKEN: anyone who can reach this address"
        " could translate and download papers. Set ZT_API_TOKEN (the plugin then uses"
        " http://HOST:8890/t/<token>), bind 127.0.0.1, or set ZT_ALLOW_OPEN_BIND=true"
    )


def _host_name(netloc: str) -> str:
    """``host`` of ``host:port`` or ``[v6]:port``, lower case, without a trailing dot."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):
        return netloc[1 : netloc.find("]")] if "]" in netloc else netloc
    return netloc.rsplit(":", 1)[0].rstrip(".") if netloc.count(":") == 1 else netloc.rstrip(".")


class HostPolicy:
    """Which ``Host`` values and ``Origin`` values the server accepts."""

    def __init__(self, bind_host: str, allowed: list[str]) -> None:
        self.any_host = "*" in allowed
        self.configured = {_host_name(name) for name in allowed if name != "*"} - {""}
        names = set(self.configured)
        names.add(_host_name(bind_host))
        try:
            names.add(socket.gethostname().lower())
        except OSError:
            pass
        self.names = names

    def host_allowed(self, netloc: str) -> bool:
        host = _host_name(netloc)
        if not host:
            return False
        if self.any_host or host in self.names or _ip(host) is not None or is_loopback(host):
            return True
        return "." not in host  # a single label: see the module docstring

    def origin_allowed(self, origin: str, netloc: str) -> bool:
        """An ``Origin`` is ours when it names the Host the request was sent to, port included
        (another port is another site), or a host ``ZT_ALLOWED_HOSTS`` names explicitly."""
        try:
            parts = urlsplit(origin.strip())
        except ValueError:  # "http://[" and the like
            return False
        if not parts.scheme or not parts.netloc:
            return False  # "null" (sandboxed frames, file://) and garbage
        if parts.netloc.lower() == netloc.strip().lower():
            return True
        return _host_name(parts.netloc) in self.configured


def _origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url``; ``""`` (never allowed) for anything else."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class WebGuard:
    """The ASGI middleware (see the module docstring). Runs after the plugin path fix-ups."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        netloc = headers.get("host", "")
        refusal = self._refusal(scope, headers, netloc)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message, error_type = refusal
        body = json.dumps(
            {"status": "error", "ok": False, "message": message, "errorType": error_type}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _refusal(
        self, scope: Scope, headers: dict[str, str], netloc: str
    ) -> tuple[int, str, str] | None:
        if not self.policy.host_allowed(netloc):
            shown = _host_name(netloc)[:80] or "(none)"
            return (
                400,
                f"this server does not answer to the host name {shown!r}"
                " (add it to ZT_ALLOWED_HOSTS)",
                "HostNotAllowed",
            )
        method = scope["method"].upper()
        path: str = scope["path"]
        unsafe = method not in _SIMPLE_REQUEST_SAFE
        if not unsafe and not path.startswith("/translatedFile/"):
            return None
        site = headers.get("sec-fetch-site", "").strip().lower()
        origin = headers.get("origin")
        referer = headers.get("referer")
        if origin is not None and origin.strip() in TEXT_ORIGINS and path in _TEXT_PATHS:
            origin = referer = None  # the DeepL extension's (see the module docstring)
        if origin is None and referer is not None:
            origin = _origin_of(referer)
        if site in ("cross-site", "same-site") or (
            origin is not None and not self.policy.origin_allowed(origin, netloc)
        ):
            return (
                403,
                "refused: a request from another web site (Origin/Referer/Sec-Fetch-Site) may not"
                " submit papers or download files",
                "CrossSiteRequest",
            )
        content_type = headers.get("content-type")
        if unsafe and content_type is not None and not _is_json(content_type):
            return (
                415,
                "the request body must be JSON (Content-Type: application/json)",
                "UnsupportedMediaType",
            )
        return None

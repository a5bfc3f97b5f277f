"""The ``ZT_API_TOKEN`` check every guarded route depends on (``routes``, ``reader_routes``).

Accepted as ``Authorization: Bearer <token>`` or ``?token=<token>`` (see ``routes``; the
``/t/<token>`` server URL becomes the header in ``plugin_paths``), compared in constant time.
"""

from __future__ import annotations

import secrets

from fastapi import Request

from zotero_server.http_errors import UnauthorizedError
from zotero_server.services import Services


def require_token(request: Request) -> None:
    """Enforce ``ZT_API_TOKEN`` when it is set (see the module docstring)."""
    services: Services = request.app.state.services
    token = services.settings.api_token
    if token is None:
        return
    given = request.query_params.get("token", "")
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer":
        given = value.strip()
    if not given or not secrets.compare_digest(given.encode(), token.get_secret_value().encode()):
        raise UnauthorizedError("this server needs an API token (Authorization: Bearer ...)")

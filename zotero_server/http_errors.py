"""The one place that maps the exception tree to HTTP: status, headers and the plugin's error JSON.

Every error the server answers has the body the zotero-pdf2zh plugin understands::

    {"status": "error", "ok": false, "message": "<short, human>", "errorType": "<stable name>"}

The plugin shows ``message`` in an alert, so it stays short. Status codes: 400 bad input, 401
missing token, 404 unknown file or route, 409 an operation the file has already had (or a file
another download is sending, or a task cancelled or already ended), 410 a file already downloaded
(each goes once; the message says when), 413 too large, 507 disk full in ZT_DATA_DIR, 502 the LLM
failed, 503 (with ``Retry-After``) the GPU or the LLM cannot be brought up now, or the server is
shutting down; anything unexpected is a 500 whose details go to the log only.

The few errors only the HTTP face raises are defined here, as a small branch of ``common.errors``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from common.errors import DiskFullError as DiskFullError  # its old home; files.py and tests
from common.errors import (
    GPUReadError,
    GPUUnavailableError,
    InputError,
    JupyterError,
    LLMError,
    TooLargeError,
    ZTError,
)
from common.redact import hide_secrets, redact_target

log = logging.getLogger(__name__)

#: Longest ``message`` we send; the plugin's progress popup shows only 80 characters anyway.
MAX_MESSAGE = 300


class NotFoundError(ZTError):
    """No such file waiting for download, or no such task."""

    error_type = "NotFound"


class AlreadyDownloadedError(NotFoundError):
    """The file was sent whole to a GET and then deleted (HTTP 410; the message says when)."""

    error_type = "AlreadyDownloaded"


class InvalidNameError(InputError):
    """A file name that is not a bare ``*.pdf`` name (separators, ``..``, control characters)."""

    error_type = "InvalidFileName"


class WrongFileTypeError(InputError):
    """The operation does not apply to this kind of file (translating ``x-mono.pdf``)."""

    error_type = "InvalidPDFOperation"


class AlreadyDoneError(InputError):
    """The file already is the result of the operation (compare on a compare file): HTTP 409."""

    error_type = "InvalidPDFOperation"


class DownloadInProgressError(ZTError):
    """Another GET is sending this file right now; it goes to exactly one client (HTTP 409)."""

    error_type = "DownloadInProgress"


class RequestTimeoutError(ZTError):
    """The client stalled while sending its request body (HTTP 408; the connection closes)."""

    error_type = "RequestTimeout"


class UnauthorizedError(ZTError):
    """``ZT_API_TOKEN`` is set and the request did not carry it."""

    error_type = "Unauthorized"


class ShuttingDownError(GPUUnavailableError):
    """The server is stopping; the job was not (or not completely) done."""

    error_type = "ShuttingDown"

    def __init__(self, message: str = "the server is shutting down; try again shortly") -> None:
        super().__init__(message, retry_after_s=10.0)


class JobCancelledError(ZTError):
    """The job was cancelled (``DELETE /api/tasks/{id}``, the page's Cancel button); a sync
    request waiting on it gets 409."""

    error_type = "Cancelled"

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message)


class TaskFinishedError(ZTError):
    """Cancelling a task that already ended (HTTP 409)."""

    error_type = "TaskFinished"


class TaskNotFinishedError(ZTError):
    """Dismissing a task that has not ended yet (HTTP 409: cancel it first)."""

    error_type = "TaskNotFinished"


class NotReadyError(ZTError):
    """A page preview or partial PDF asked for before there is one (HTTP 409): the page is not
    typeset yet, or the paper is still being read."""

    error_type = "NotReady"


class BusyError(GPUUnavailableError):
    """Too many uploads being read or jobs waiting (``ZT_MAX_UPLOADS``, ``ZT_MAX_QUEUED``):
    HTTP 503 with ``Retry-After``; nothing was kept."""

    error_type = "ServerBusy"


def status_for(exc: BaseException) -> int:
    """The HTTP status of an exception (first match wins: subclasses before their bases)."""
    if isinstance(exc, UnauthorizedError):
        return 401
    if isinstance(exc, AlreadyDownloadedError):
        return 410
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, RequestTimeoutError):
        return 408
    if isinstance(exc, AlreadyDoneError | DownloadInProgressError | TaskFinishedError):
        return 409
    if isinstance(exc, TaskNotFinishedError):
        return 409
    if isinstance(exc, JobCancelledError | NotReadyError):
        return 409
    if isinstance(exc, TooLargeError):
        return 413
    if isinstance(exc, DiskFullError):
        return 507
    if isinstance(exc, InputError):
        return 400
    if isinstance(exc, GPUUnavailableError | JupyterError | GPUReadError):
        return 503
    if isinstance(exc, LLMError):
        return 502
    return 500


def retry_after_for(exc: BaseException) -> int | None:
    """Seconds for ``Retry-After`` on a 503, else None."""
    if isinstance(exc, GPUUnavailableError):
        return max(1, math.ceil(exc.retry_after_s))
    if isinstance(exc, JupyterError | GPUReadError):
        return 60
    return None


def public_message(exc: BaseException) -> str:
    """What the user may see. Our own errors say it themselves; anything else stays in the log."""
    if isinstance(exc, ZTError):
        text = exc.message.strip() or exc.error_type
    else:
        text = "internal server error; see the server log"
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def error_type_of(exc: BaseException) -> str:
    return exc.error_type if isinstance(exc, ZTError) else "InternalError"


def error_payload(message: str, error_type: str) -> dict[str, Any]:
    return {"status": "error", "ok": False, "message": message, "errorType": error_type}


def error_response(exc: BaseException, secrets: Sequence[str] = ()) -> JSONResponse:
    """The JSON response for any exception, with ``Retry-After``/``WWW-Authenticate`` as needed;
    ``secrets`` (the API token) are masked in its message, which may quote the request."""
    status = status_for(exc)
    headers: dict[str, str] = {}
    retry = retry_after_for(exc) if status == 503 else None
    if retry is not None:
        headers["Retry-After"] = str(retry)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if status == 408:  # the rest of the body may still come: nothing more to read on this one
        headers["Connection"] = "close"
    return JSONResponse(
        error_payload(hide_secrets(public_message(exc), secrets), error_type_of(exc)),
        status_code=status,
        headers=headers,
    )


_HTTP_MESSAGES = {
    404: ("not found", "NotFound"),
    405: ("method not allowed", "MethodNotAllowed"),
}


def _secrets(request: Request) -> list[str]:
    """The app's ``ZT_API_TOKEN``, if any: never shown in a log line or an error message."""
    settings = getattr(request.app.state, "settings", None)
    token = getattr(settings, "api_token", None)
    return [token.get_secret_value()] if token is not None else []


def shown_path(request: Request) -> str:
    """The request's path as logs and error messages may show it: tokens masked (the
    configured ``ZT_API_TOKEN`` wherever it appears, ``/t/<token>`` in any case), at most 200
    characters."""
    return redact_target(request.url.path, _secrets(request))[:200]


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into the plugin's JSON."""

    async def on_zt_error(request: Request, exc: Exception) -> JSONResponse:
        if status_for(exc) >= 500 and not isinstance(exc, GPUUnavailableError | LLMError):
            log.error("%s %s failed: %s", request.method, shown_path(request), exc)
        return error_response(exc, _secrets(request))

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"invalid request: {where} {first.get('msg', '')}".strip()
        return JSONResponse(error_payload(message, "InvalidRequest"), status_code=400)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        message, kind = _HTTP_MESSAGES.get(exc.status_code, (str(exc.detail), "HTTPError"))
        if exc.status_code == 404:
            message = f"not found: {shown_path(request)}"
        return JSONResponse(
            error_payload(message, kind), status_code=exc.status_code, headers=exc.headers
        )

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, shown_path(request), exc_info=exc)
        return error_response(exc, _secrets(request))

    app.add_exception_handler(ZTError, on_zt_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)

"""Masking secrets in text that leaves the process: command lines, messages, logged URLs.

Pure functions, no I/O. Every boundary that shows a command line (the GPU API's ``/status``,
the dashboard, the server's SSE ``server`` events, ``gpu.message``, logs) passes it through
:func:`mask_secrets`; access-log lines pass through :func:`redact_target`. Masking is idempotent.

What counts as secret:

* the value of an option whose name contains ``key``, ``token``, ``password``, ``passwd``,
  ``secret`` or ``auth`` (any case, any number of leading dashes): ``--api-key=v``,
  ``--hf-token v``, ``-token v``. A single-letter option (``-p v``) names nothing, so its value
  stays: there is no way to tell a password from a port;
* the value of an environment-style ``NAME=value`` argument with such a name (``env
  HF_TOKEN=v vllm serve``) and of such a query parameter in a URL (``?token=v``);
* the user information of a URL (``https://user:pass@host``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

MASK = "***"

_SECRET_NAME = re.compile(r"key|token|password|passwd|secret|auth", re.IGNORECASE)
# An option: dashes, then a name of at least two characters (``-p`` says nothing).
_OPTION = re.compile(r"^(-{1,2}[A-Za-z0-9][\w.-]+)(=.*)?$", re.DOTALL)
_ENV_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.+)$", re.DOTALL)
_URL_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@")
_QUERY_SECRET = re.compile(
    r"([?&;][^=&;#\s]*(?:key|token|password|passwd|secret|auth)[^=&;#\s]*=)"
    r"[^&;#\s]*",
    re.IGNORECASE,
)
_PATH_TOKEN = re.compile(r"^(/*)t/[^/?#\s]+")


def is_secret_name(name: str) -> bool:
    """Whether an option or variable name looks like it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def mask_urls(text: str) -> str:
    """``text`` with URL credentials and secret query values replaced by ``***``."""
    if "://" in text:
        text = _URL_USERINFO.sub(rf"\1{MASK}@", text)
    if "=" in text:
        text = _QUERY_SECRET.sub(rf"\1{MASK}", text)
    return text


def mask_argv(args: Sequence[str]) -> list[str]:
    """An argument vector with secret values masked (see the module docstring)."""
    masked: list[str] = []
    value_follows = False
    for arg in args:
        if value_follows:
            value_follows = False
            if not arg.startswith("-"):  # ``--use-auth --port 1``: a flag, not a value
                masked.append(MASK)
                continue
        option = _OPTION.match(arg)
        if option and is_secret_name(option.group(1)):
            if option.group(2) is None:
                masked.append(arg)
                value_follows = True
            else:
                masked.append(f"{option.group(1)}={MASK}")
            continue
        assignment = None if arg.startswith("-") else _ENV_ASSIGNMENT.match(arg)
        if assignment and is_secret_name(assignment.group(1)):
            masked.append(f"{assignment.group(1)}={MASK}")
            continue
        masked.append(mask_urls(arg))
    return masked


def mask_secrets(text: str) -> str:
    """A command line (arguments joined by spaces) or a message quoting one, masked.

    Splits on single spaces and joins again the same way, so the text keeps its shape.
    """
    if not text:
        return text
    return " ".join(mask_argv(text.split(" ")))


def redact_target(target: str) -> str:
    """A request path (with its query) fit for a log: ``/t/<token>/`` and ``?token=`` masked."""
    return mask_urls(_PATH_TOKEN.sub(rf"\1t/{MASK}", target, count=1))


class AccessLogRedaction(logging.Filter):
    """Masks tokens in the request targets of access-log records (uvicorn's ``uvicorn.access``
    passes the target as an argument: ``'%s - "%s %s HTTP/%s" %d'``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_target(arg) if isinstance(arg, str) and arg.startswith("/") else arg
                for arg in record.args
            )
        return True


def redact_access_log(logger_name: str = "uvicorn.access") -> None:
    """Install :class:`AccessLogRedaction` on the access logger (once; idempotent)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, AccessLogRedaction) for f in logger.filters):
        logger.addFilter(AccessLogRedaction())

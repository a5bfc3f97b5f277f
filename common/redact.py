"""Masking secrets in text that leaves the process: command lines, messages, logged URLs.

Pure functions, no I/O. Every boundary that shows a command line (the GPU API's ``/status``,
the dashboard, the server's SSE ``server`` events, ``gpu.message``, logs) passes it through
:func:`mask_secrets`; access-log lines pass through :func:`redact_target`. Masking is idempotent.

What counts as secret:

* the value of an option whose name contains ``key``, ``token``, ``password``, ``passwd``,
  ``secret`` or ``auth`` (any case, any number of leading dashes): ``--api-key=v``,
  ``--apikey:v``, ``--hf-token v``, ``-token v``, also a value that starts with a dash
  (``--api-key -v3ry``): only ``--anything`` or a two-character ``-x`` after such an option
  counts as the next option. A single-letter option (``-p v``) names nothing, so its value
  stays: there is no way to tell a password from a port;
* the value of a header with such a name given as an argument (``-H "Authorization: Bearer
  v"``, ``X-Api-Key: v``; an auth scheme word such as ``Bearer`` stays);
* the value of such a key in JSON given as an argument (``--config '{"api_key": "v"}'``);
* the value of an environment-style ``NAME=value`` argument with such a name (``env
  HF_TOKEN=v vllm serve``) and of such a query parameter in a URL (``?token=v``);
* the user information of a URL (``https://user:pass@host``).

Request targets (:func:`redact_target`) are percent-decoded before they are looked at, so
``?%74oken=v`` and ``/T/v/`` are masked too, as is any known secret wherever it appears.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Sequence
from urllib.parse import quote, unquote, unquote_plus

MASK = "***"

_SECRET_NAME = re.compile(r"key|token|password|passwd|secret|auth", re.IGNORECASE)
# An option: dashes, then a name of at least two characters (``-p`` says nothing), then
# ``=value`` or ``:value`` (Windows style).
_OPTION = re.compile(r"^(-{1,2}[A-Za-z0-9][\w.-]+)([=:].*)?$", re.DOTALL)
# What ends a value after a secret option: ``--name`` or a short ``-x``.
_NEXT_OPTION = re.compile(r"^(--|-[A-Za-z0-9]$)")
# A header passed as an argument: ``Authorization: Bearer v`` (maybe opening a quote).
_HEADER = re.compile(r"^([\"']?)([A-Za-z][A-Za-z0-9-]*):(.*)$", re.DOTALL)
_AUTH_SCHEMES = {"bearer", "basic", "token", "digest", "apikey", "negotiate"}
_JSON_SECRET = re.compile(
    r"""(["'][^"'\s]*(?:key|token|password|passwd|secret|auth)[^"'\s]*["']\s*:\s*)"""
    r"""(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s,}\]]+)""",
    re.IGNORECASE,
)
_ENV_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.+)$", re.DOTALL)
_URL_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@")
_QUERY_SECRET = re.compile(
    r"([?&;][^=&;#\s]*(?:key|token|password|passwd|secret|auth)[^=&;#\s]*=)"
    r"[^&;#\s]*",
    re.IGNORECASE,
)
_PATH_TOKEN = re.compile(r"^(/*t/)[^/?#\s]+", re.IGNORECASE)
#: Characters a logged path keeps unencoded (``*`` for the mask).
_PATH_SAFE = "/:@!$&'()*+,;=~-._"


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
    value_follows = header_follows = False
    for arg in args:
        if value_follows:
            value_follows = False
            if not _NEXT_OPTION.match(arg):  # ``--use-auth --port 1``: a flag, not a value
                masked.append(MASK)
                continue
        if header_follows:
            word = arg.strip("\"'")
            if word.lower() in _AUTH_SCHEMES:
                masked.append(arg)
                continue
            header_follows = False
            if word:
                masked.append(_quoted_mask(arg))
                continue
        option = _OPTION.match(arg)
        if option and is_secret_name(option.group(1)):
            if option.group(2) is None:
                masked.append(arg)
                value_follows = True
            else:
                masked.append(f"{option.group(1)}{option.group(2)[0]}{MASK}")
            continue
        header = None if arg.startswith("-") else _HEADER.match(arg)
        if header and is_secret_name(header.group(2)):
            masked.append(_mask_header(header))
            header_follows = not header.group(3).strip(" \"'")
            continue
        assignment = None if arg.startswith("-") else _ENV_ASSIGNMENT.match(arg)
        if assignment and is_secret_name(assignment.group(1)):
            masked.append(f"{assignment.group(1)}={MASK}")
            continue
        masked.append(mask_urls(_JSON_SECRET.sub(rf'\1"{MASK}"', arg)))
    return masked


def _quoted_mask(arg: str) -> str:
    """``MASK`` keeping a closing quote of ``arg`` (``v"`` -> ``***"``)."""
    return MASK + arg[len(arg.rstrip("\"'")) :]


def _mask_header(header: re.Match[str]) -> str:
    """``Authorization: Bearer v`` -> ``Authorization: Bearer ***`` (one argument)."""
    quote_char, name, value = header.groups()
    words = value.split()
    if not words:
        return header.group(0)
    kept = words[:1] if len(words) > 1 and words[0].lower() in _AUTH_SCHEMES else []
    closing = value.rstrip()[len(value.rstrip().rstrip("\"'")) :]
    space = value[: len(value) - len(value.lstrip())]
    return f"{quote_char}{name}:{space}{' '.join([*kept, MASK])}{closing}"


def mask_secrets(text: str) -> str:
    """A command line (arguments joined by spaces) or a message quoting one, masked.

    Splits on single spaces and joins again the same way, so the text keeps its shape.
    """
    if not text:
        return text
    # JSON first, as a whole: ``{"api_key": "v"}`` spans two space-separated words.
    text = _JSON_SECRET.sub(rf'\1"{MASK}"', text)
    return " ".join(mask_argv(text.split(" ")))


def _decoded(text: str, plus: bool = False) -> str:
    """``text`` percent-decoded until it stops changing (at most three rounds)."""
    for _ in range(3):
        decoded = unquote_plus(text) if plus else unquote(text)
        if decoded == text:
            break
        text = decoded
    return text


def redact_target(target: str, secrets: Collection[str] = ()) -> str:
    """A request path (with its query) fit for a log or an error message: decoded, then
    ``/t/<token>/`` (any case) masked, every query value under a secret-looking key (``?token=``,
    ``?%74oken=``) masked, URL credentials masked, and any of ``secrets`` masked wherever it
    appears. The path comes back percent-encoded, the query as sent."""
    path, mark, query = target.partition("?")
    path = _PATH_TOKEN.sub(rf"\g<1>{MASK}", _decoded(path), count=1)
    path = quote(hide_secrets(mask_urls(path), secrets), safe=_PATH_SAFE)
    if not mark:
        return path
    parts = re.split(r"([&;])", query)
    for i, part in enumerate(parts):
        key, eq, value = part.partition("=")
        name, plain = _decoded(key, plus=True), _decoded(value, plus=True)
        if hide_secrets(name, secrets) != name:
            parts[i] = MASK
        elif eq and (is_secret_name(name) or hide_secrets(plain, secrets) != plain):
            parts[i] = f"{key}={MASK}"
        elif mask_urls(plain) != plain:
            parts[i] = f"{key}={quote(mask_urls(plain), safe=_PATH_SAFE)}"
    return f"{path}?{''.join(parts)}"


def hide_secrets(text: str, secrets: Collection[str]) -> str:
    """``text`` with every (non-empty) one of ``secrets`` replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text


class AccessLogRedaction(logging.Filter):
    """Masks tokens in the request targets of access-log records (uvicorn's ``uvicorn.access``
    passes the target as an argument: ``'%s - "%s %s HTTP/%s" %d'``), and ``secrets`` in them
    wherever they appear."""

    def __init__(self, secrets: Collection[str] = ()) -> None:
        super().__init__()
        self.secrets: set[str] = set(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_target(arg, self.secrets)
                if isinstance(arg, str) and arg.startswith("/")
                else arg
                for arg in record.args
            )
        return True


def redact_access_log(logger_name: str = "uvicorn.access", secrets: Collection[str] = ()) -> None:
    """Install :class:`AccessLogRedaction` on the access logger once; ``secrets`` (the API
    token) are added to what it masks."""
    logger = logging.getLogger(logger_name)
    for existing in logger.filters:
        if isinstance(existing, AccessLogRedaction):
            existing.secrets.update(s for s in secrets if s)
            return
    logger.addFilter(AccessLogRedaction([s for s in secrets if s]))

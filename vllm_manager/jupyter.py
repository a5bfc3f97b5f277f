"""A client of JupyterLab's terminals: run a shell script in a named terminal, get its output.

Knows nothing about vLLM. Uses the API of ``jupyter_server_terminals`` as JupyterLab serves it:

- REST ``GET/POST/DELETE {base}/api/terminals[/{name}]`` with ``Authorization: token T``
  (token-authenticated requests skip XSRF and origin checks).
- WebSocket ``{base}/terminals/websocket/{name}``: send ``["stdin", text]``, receive
  ``["stdout", text]`` (first the terminal's replay buffer), ``["disconnect", 1]`` when the shell
  exits. There is no REST endpoint for stdin.

How a script runs (:meth:`JupyterTerminals.run`): it is wrapped between two unique marker lines
(begin, and end with the exit status), base64-encoded, and typed as
``printf %s B64 | base64 -d | sh``. The encoding keeps quoting out of the terminal's login shell
(bash, zsh and fish all accept that line) and keeps the markers out of the shell's echo of the
typed line, so only the script's own output lies between them. Scripts run by ``/bin/sh``.

Errors: every failure is a ``common.errors.JupyterError`` with a message saying what to fix:
a wrong token, a Jupyter that refuses remote Host names (``allow_remote_access``), terminals
disabled, a Jupyter that does not answer, a script that does not finish in time.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus, WebSocketException

from common.errors import JupyterError

DEFAULT_TIMEOUT_S = 30.0
# Ctrl-U first: discard anything half-typed at the prompt by a human sharing the terminal.
_KILL_LINE = "\x15"


@dataclass(frozen=True)
class CommandResult:
    exit_code: int
    output: str  # the script's stdout and stderr, "\n" line ends


class JupyterTerminals:
    """Terminals of one Jupyter server. Borrows ``http_client`` (not closed) when given.

    Scripts sent through one object run one at a time (their output would interleave).
    """

    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        http_client: httpx.AsyncClient | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient()
        self.timeout_s = timeout_s
        self._run_lock = asyncio.Lock()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # --- REST --------------------------------------------------------------------------

    async def list_terminals(self) -> list[str]:
        """Names of the running terminals."""
        resp = await self._request("GET", "/api/terminals", what="list terminals")
        return [str(t["name"]) for t in resp.json()]

    async def ensure_terminal(self, name: str) -> None:
        """Make sure terminal ``name`` exists, creating it if needed.

        POSTing an existing name would replace its shell and orphan the old one, so look first.
        """
        resp = await self._request(
            "GET", f"/api/terminals/{quote(name)}", what=f"find terminal {name}", ok=(200, 404)
        )
        if resp.status_code == 404:
            await self._request(
                "POST", "/api/terminals", json={"name": name}, what=f"create terminal {name}"
            )

    async def delete_terminal(self, name: str) -> None:
        """Delete terminal ``name`` (its shell and foreground jobs die); absent is fine."""
        await self._request(
            "DELETE",
            f"/api/terminals/{quote(name)}",
            what=f"delete terminal {name}",
            ok=(200, 204, 404),
        )

    # --- running a script --------------------------------------------------------------

    async def run(self, name: str, script: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run ``script`` with ``/bin/sh`` in terminal ``name`` (created if missing).

        Returns its exit status and output once it finished. A terminal deleted since the last
        call is created again. Raises ``JupyterError`` when Jupyter refuses, or when the script
        gives no end marker within ``timeout_s`` (default: the client's).
        """
        timeout_s = self.timeout_s if timeout_s is None else timeout_s
        nonce = secrets.token_hex(8)
        begin, end = f"__ZT_BEGIN_{nonce}__", f"__ZT_END_{nonce}_"
        wrapped = f"echo {begin}\n(\n{script}\n) 2>&1\necho {end}$?__\n"
        encoded = base64.b64encode(wrapped.encode()).decode()
        line = f"{_KILL_LINE}printf %s {encoded} | base64 -d | sh\r"
        async with self._run_lock:
            await self.ensure_terminal(name)
            try:
                async with asyncio.timeout(timeout_s):
                    return await self._run_once(name, line, begin, end)
            except TimeoutError:
                raise JupyterError(
                    f"terminal {name} at {self.base_url} gave no answer within {timeout_s:g} s "
                    "(is the shell busy with another command?)"
                ) from None

    async def _run_once(self, name: str, line: str, begin: str, end: str) -> CommandResult:
        async with self._websocket(name) as ws:
            await ws.send(json.dumps(["stdin", line]))
            seen = ""
            try:
                async for message in ws:
                    kind, *rest = json.loads(message)
                    if kind == "disconnect":
                        raise JupyterError(
                            f"the shell of terminal {name} exited while running a command"
                        )
                    if kind != "stdout" or not rest:
                        continue
                    seen += str(rest[0])
                    result = _parse(seen, begin, end)
                    if result is not None:
                        return result
            except WebSocketException as exc:
                raise JupyterError(
                    f"terminal {name} at {self.base_url} closed the connection: {exc}"
                ) from exc
        raise JupyterError(f"terminal {name} at {self.base_url} closed the connection")

    @contextlib.asynccontextmanager
    async def _websocket(self, name: str) -> AsyncIterator[ClientConnection]:
        url = _ws_url(self.base_url) + f"/terminals/websocket/{quote(name)}"
        try:
            ws = await connect(
                url,
                additional_headers=self._headers(),
                open_timeout=self.timeout_s,
                max_size=None,
            )
        except InvalidStatus as exc:
            code = exc.response.status_code
            if code == 404:
                raise JupyterError(
                    f"terminal {name} is gone from {self.base_url} (deleted or culled meanwhile)"
                ) from exc
            raise await self._explain(code, f"open terminal {name}") from exc
        except (OSError, WebSocketException, TimeoutError) as exc:
            raise JupyterError(
                f"Jupyter at {self.base_url} is not answering ({type(exc).__name__}: {exc})"
            ) from exc
        try:
            yield ws
        finally:
            await ws.close()

    # --- helpers -----------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self._token}"} if self._token else {}

    async def _request(
        self,
        method: str,
        path: str,
        *,
        what: str,
        ok: tuple[int, ...] = (200, 201),
        json: object = None,
    ) -> httpx.Response:
        try:
            resp = await self._http.request(
                method,
                self.base_url + path,
                headers=self._headers(),
                json=json,
                timeout=self.timeout_s,
            )
        except httpx.HTTPError as exc:
            raise JupyterError(
                f"Jupyter at {self.base_url} is not answering ({type(exc).__name__}: {exc})"
            ) from exc
        if resp.status_code not in ok:
            raise await self._explain(resp.status_code, what)
        return resp

    async def _explain(self, status: int, what: str) -> JupyterError:
        """A JupyterError saying what to fix for an HTTP refusal."""
        where = f"Jupyter at {self.base_url}"
        if status in (401, 403):
            # Jupyter answers 403 both to a wrong token and to a request whose Host is not
            # local while allow_remote_access is off. GET /api needs no token, so it tells which.
            try:
                probe = await self._http.get(self.base_url + "/api", timeout=self.timeout_s)
                host_blocked = probe.status_code == 403
            except httpx.HTTPError:
                host_blocked = False
            if host_blocked:
                host = urlsplit(self.base_url).hostname
                return JupyterError(
                    f"{where} refuses requests for host {host}: remote access is not allowed. "
                    "Start Jupyter with --ServerApp.allow_remote_access=True "
                    f"(or add {host} to ServerApp.local_hostnames)"
                )
            token = "no token is set" if not self._token else "the token was rejected"
            return JupyterError(
                f"{where} refused to {what}: {token} (HTTP {status}); check ZT_JUPYTER_TOKEN"
            )
        if status == 404:
            return JupyterError(
                f"{where} has no terminals API (404 when trying to {what}): terminals are "
                "disabled (ServerApp.terminals_enabled) or jupyter_server_terminals is missing"
            )
        return JupyterError(f"{where} failed to {what} (HTTP {status})")


def _ws_url(base_url: str) -> str:
    if base_url.startswith("https://"):
        return "wss://" + base_url[len("https://") :]
    if base_url.startswith("http://"):
        return "ws://" + base_url[len("http://") :]
    return base_url


def _parse(seen: str, begin: str, end: str) -> CommandResult | None:
    """The result once both markers arrived as output lines, else None."""
    text = seen.replace("\r\n", "\n").replace("\r", "")
    start = text.find(begin + "\n")
    if start < 0:
        return None
    body_start = start + len(begin) + 1
    stop = text.find(end, body_start)
    if stop < 0:
        return None
    tail = text[stop + len(end) :]
    code, sep, _ = tail.partition("__")
    if not sep or not code.isdigit():
        return None
    return CommandResult(exit_code=int(code), output=text[body_start:stop])

"""Is vLLM ready? ``GET {base}/health`` 200 and the model listed in ``GET {base}/v1/models``.

vLLM refuses connections until fully loaded, then answers both at the same moment; ``/health``
503 means the engine died. With ``--api-key`` only ``/v1/*`` needs the key.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

#: Timeout of one /health or /v1/models request.
HEALTH_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Health:
    ok: bool
    detail: str  # "healthy", "connection refused", "it serves X, not Y", ...
    wrong_model: bool = False  # it answers, but does not serve the model asked for


async def check_health(
    http: httpx.AsyncClient, base_url: str, model: str, api_key: str | None = None
) -> Health:
    """One health check of the vLLM at ``base_url`` (no ``/v1``); never raises. Both requests
    go at once (a check is on the way of a paper's first request: two round trips on a busy
    machine were 50 ms); ``/health``'s answer is judged first, as when they went in turn."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    health, models = await asyncio.gather(
        _get(http, f"{base_url}/health", {}),
        _get(http, f"{base_url}/v1/models", headers),
    )
    for answer, path in ((health, "/health"), (models, "/v1/models")):
        if isinstance(answer, str):
            return Health(False, answer)
        if answer.status_code != 200:
            return Health(False, f"{path} answered {answer.status_code}")
    assert isinstance(models, httpx.Response)
    try:
        served = [str(m.get("id")) for m in models.json().get("data", [])]
    except (ValueError, AttributeError) as exc:
        return Health(False, f"bad answer: {type(exc).__name__}")
    if model not in served:
        return Health(False, f"it serves {', '.join(served) or 'no model'}, not {model}", True)
    return Health(True, "healthy")


async def _get(http: httpx.AsyncClient, url: str, headers: dict[str, str]) -> httpx.Response | str:
    """The answer to ``GET url``, or why there is none."""
    try:
        return await http.get(url, headers=headers, timeout=HEALTH_TIMEOUT_S)
    except httpx.ConnectError:
        return "connection refused"
    except httpx.TimeoutException:
        return "timed out"
    except httpx.HTTPError as exc:
        return f"bad answer: {type(exc).__name__}"

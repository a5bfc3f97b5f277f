"""Is vLLM ready? ``GET {base}/health`` 200 and the model listed in ``GET {base}/v1/models``.

vLLM refuses connections until fully loaded, then answers both at the same moment; ``/health``
503 means the engine died. With ``--api-key`` only ``/v1/*`` needs the key.
"""

from __future__ import annotations

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
    """One health check of the vLLM at ``base_url`` (no ``/v1``); never raises."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        resp = await http.get(f"{base_url}/health", timeout=HEALTH_TIMEOUT_S)
        if resp.status_code != 200:
            return Health(False, f"/health answered {resp.status_code}")
        resp = await http.get(f"{base_url}/v1/models", headers=headers, timeout=HEALTH_TIMEOUT_S)
        if resp.status_code != 200:
            return Health(False, f"/v1/models answered {resp.status_code}")
        served = [str(m.get("id")) for m in resp.json().get("data", [])]
    except httpx.ConnectError:
        return Health(False, "connection refused")
    except httpx.TimeoutException:
        return Health(False, "timed out")
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        return Health(False, f"bad answer: {type(exc).__name__}")
    if model not in served:
        return Health(False, f"it serves {', '.join(served) or 'no model'}, not {model}", True)
    return Health(True, "healthy")

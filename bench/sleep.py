"""Click to first translated paragraph with vLLM warm, asleep and stopped (issue 11).

The real manager and the fake vLLM (tests/fakes), launched for real, with the fake nvidia-smi.
The fake's load and wake times are the published figures divided by ``SCALE`` so the bench
takes seconds; the table gives what was measured and the same figure at real scale (measured,
less the fake's delay, plus the real one). Real figures: a cold start of a 4-bit 27B is about a
minute of loading (vLLM blog "sleep mode", 2025-10-26: 37.6 and 58.1 s cold reloads of models
far smaller); a level-1 wake of a 32B model about 4 s (vLLM issue #16663).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import httpx

from tests.helpers.manager import MODEL, Rig
from vllm_manager.manager import VLLMManager
from zotero_server.manager_factory import create_manager

SCALE = 20.0
REAL_LOAD_S = 60.0
REAL_WAKE_S = 4.0


async def _first_paragraph(manager: VLLMManager, rig: Rig) -> float:
    """Seconds from "a paper arrives" (ensure_ready) to its first translated paragraph."""
    started = time.perf_counter()
    async with manager.work():
        await manager.ensure_ready()
        part = {"type": "text", "text": "A first paragraph.", "source_lang_code": "en",
                "target_lang_code": "ko"}  # fmt: skip
        body = {"model": MODEL, "messages": [{"role": "user", "content": [part]}]}
        async with httpx.AsyncClient(timeout=60) as http:
            answer = await http.post(f"{rig.base_url}/v1/chat/completions", json=body)
            answer.raise_for_status()
    return time.perf_counter() - started


async def measure() -> dict[str, float]:
    """Measured seconds for ``stopped``, ``warm`` and ``asleep``, in that order of running."""
    with tempfile.TemporaryDirectory(prefix="zt-bench-sleep-") as tmp:
        rig = Rig(Path(tmp))
        rule = {"cmdline_contains": [rig.token, "serve"], "used_gpu_memory": 28000, "gpu": 0}
        rig.smi.set(discover=[rule])
        command = rig.vllm_command(
            "--fake-wake-s", f"{REAL_WAKE_S / SCALE:g}", load_s=REAL_LOAD_S / SCALE
        )
        settings = rig.settings(vllm_idle_action="sleep", vllm_command=command)
        manager = create_manager(settings)
        try:
            result = {"stopped": await _first_paragraph(manager, rig)}
            result["warm"] = await _first_paragraph(manager, rig)
            await manager.sleep_vllm()
            result["asleep"] = await _first_paragraph(manager, rig)
            await manager.stop_vllm()
        finally:
            await manager.aclose()
            rig.reap()
    return result


def run() -> str:
    measured = asyncio.run(measure())
    fake = {"warm": 0.0, "asleep": REAL_WAKE_S / SCALE, "stopped": REAL_LOAD_S / SCALE}
    real = {"warm": 0.0, "asleep": REAL_WAKE_S, "stopped": REAL_LOAD_S}
    lines = [
        "click to first translated paragraph (fake vLLM; load "
        f"{REAL_LOAD_S:g} s and level-1 wake {REAL_WAKE_S:g} s, scaled 1/{SCALE:g})",
        f"{'vLLM':<9}{'measured':>10}{'at real scale':>16}",
    ]
    for state in ("warm", "asleep", "stopped"):
        at_scale = measured[state] - fake[state] + real[state]
        lines.append(f"{state:<9}{measured[state]:>9.2f}s{at_scale:>15.1f}s")
    return "\n".join(lines)


if __name__ == "__main__":
    print(run())

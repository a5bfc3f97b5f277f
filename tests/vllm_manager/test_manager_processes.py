"""Single flight across processes: parallel commands sharing one data dir launch vLLM once."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pytest

from tests.helpers.manager import Rig
from tests.helpers.paths import REPO_ROOT

REPO = REPO_ROOT
ENSURE_READY = """
import asyncio
from common.settings import load_settings
from zotero_server.manager_factory import create_manager

async def main():
    manager = create_manager(load_settings())
    try:
        await manager.ensure_ready()
        print("ready", manager.launches_here)
    finally:
        await manager.aclose()

asyncio.run(main())
"""


@pytest.fixture
def rig(tmp_path) -> Iterator[Rig]:
    r = Rig(tmp_path)
    yield r
    r.reap()


async def run_ensure_ready(env: dict[str, str]) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        ENSURE_READY,
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode()


async def test_parallel_processes_launch_vllm_once(rig) -> None:
    """Three `translate` commands at once, each its own process: one vLLM, all served.

    The probe watches nothing, so the GPU looks idle to all three: only the file lock and
    the lease on disk keep the later ones from launching.
    """
    settings = rig.settings(
        vllm_command=rig.vllm_command(load_s=1.0), gpu_watch_keywords="nothing-matches-this"
    )
    results = await asyncio.gather(*(run_ensure_ready(rig.env(settings)) for _ in range(3)))

    assert [code for code, _ in results] == [0, 0, 0], results
    assert sorted(out.split()[-1] for _, out in results) == ["0", "0", "1"]
    assert rig.launch_count() == 1

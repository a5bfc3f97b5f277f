"""The pure GPU decision: literals in, decision and message out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vllm_manager.decision import GPUDecision, LeaseInfo, decide, describe, is_vllm
from vllm_manager.gpu_model import GPUProcess, GPUStatus

KEYWORDS = ["vllm", "VLLM::", "translategemma"]
NOW = 1_000_000.0
COMFY = GPUProcess(pid=4242, command="python ComfyUI/main.py --listen", memory_mib=20275)
ENGINE = GPUProcess(pid=77, command="VLLM::EngineCore", memory_mib=28000)


def status(*procs: GPUProcess, used: int = 300) -> GPUStatus:
    return GPUStatus(
        is_idle=not procs and used < 1024,
        memory_used_mib=used + sum(p.memory_mib for p in procs),
        memory_total_mib=32607,
        utilization_pct=0,
        temperature_c=40,
        processes=list(procs),
        checked_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def lease(expires_at: float = NOW + 60) -> LeaseInfo:
    return LeaseInfo(owner_pid=1, started_at=NOW - 1, expires_at=expires_at)


def test_no_status_is_unknown_even_with_a_lease() -> None:
    assert decide(None, lease(), KEYWORDS, 1024, NOW) is GPUDecision.UNKNOWN


def test_idle_gpu_without_lease_allows_a_start() -> None:
    assert decide(status(), None, KEYWORDS, 1024, NOW) is GPUDecision.IDLE


def test_idle_gpu_inside_a_lease_counts_as_loading() -> None:
    """The seeds' double-start bug: vLLM still importing holds no VRAM yet."""
    assert decide(status(), lease(), KEYWORDS, 1024, NOW) is GPUDecision.VLLM_LOADING


def test_expired_lease_no_longer_counts() -> None:
    assert decide(status(), lease(expires_at=NOW - 1), KEYWORDS, 1024, NOW) is GPUDecision.IDLE


@pytest.mark.parametrize(
    "command",
    [
        "VLLM::EngineCore",
        "/home/u/vllm/.venv/bin/python /home/u/vllm/.venv/bin/vllm serve x",
        "python -m something /models/TranslateGemma-27b",
    ],
)
def test_vllm_process_means_loading(command: str) -> None:
    proc = GPUProcess(pid=5, command=command, memory_mib=900)
    assert decide(status(proc), None, KEYWORDS, 1024, NOW) is GPUDecision.VLLM_LOADING


def test_vllm_watched_but_not_yet_on_gpu_means_loading() -> None:
    proc = GPUProcess(pid=5, command="vllm serve m", memory_mib=0, on_gpu=False)
    assert decide(status(proc), None, KEYWORDS, 1024, NOW) is GPUDecision.VLLM_LOADING


@pytest.mark.parametrize("command", ["tail -f /home/u/vllm/vllm.log", "vim start_vllm.sh"])
def test_vllm_named_tool_off_the_gpu_is_not_a_loading_vllm(command: str) -> None:
    proc = GPUProcess(pid=5, command=command, memory_mib=0, on_gpu=False)
    assert decide(status(proc), None, KEYWORDS, 1024, NOW) is GPUDecision.IDLE


def test_foreign_process_is_busy_even_inside_a_lease() -> None:
    assert decide(status(COMFY), lease(), KEYWORDS, 1024, NOW) is GPUDecision.BUSY


def test_watched_python_service_not_yet_on_gpu_is_busy() -> None:
    """A ComfyUI still importing torch takes VRAM in seconds: starting vLLM now would collide."""
    starting_comfy = COMFY.model_copy(update={"on_gpu": False, "memory_mib": 0})
    assert decide(status(starting_comfy), None, KEYWORDS, 1024, NOW) is GPUDecision.BUSY
    message = describe(GPUDecision.BUSY, status(starting_comfy), "", KEYWORDS)
    assert "ComfyUI/main.py" in message


@pytest.mark.parametrize("command", ["tail -f /home/u/ComfyUI/comfyui.log", "vim ComfyUI/main.py"])
def test_tools_naming_a_watched_service_do_not_block(command: str) -> None:
    proc = GPUProcess(pid=5, command=command, memory_mib=0, on_gpu=False)
    assert decide(status(proc), None, KEYWORDS, 1024, NOW) is GPUDecision.IDLE


def test_memory_in_use_without_processes_is_busy() -> None:
    """WSL2: nvidia-smi lists no process, only the memory."""
    assert decide(status(used=20000), None, KEYWORDS, 1024, NOW) is GPUDecision.BUSY


def test_keywords_are_configurable() -> None:
    proc = GPUProcess(pid=5, command="llama-server -m x.gguf", memory_mib=9000)
    assert decide(status(proc), None, ["llama-server"], 1024, NOW) is GPUDecision.VLLM_LOADING
    assert decide(status(proc), None, KEYWORDS, 1024, NOW) is GPUDecision.BUSY


def test_is_vllm_is_case_insensitive_and_ignores_empty_keywords() -> None:
    assert is_vllm("/opt/VLLM/bin/serve", ["vllm"])
    assert not is_vllm("python main.py", ["", "vllm"])


def test_busy_message_names_who_holds_the_gpu() -> None:
    text = describe(GPUDecision.BUSY, status(COMFY), "", KEYWORDS)
    assert text == "GPU busy: python ComfyUI/main.py --listen (pid 4242, 19.8 GiB)"


def test_processes_holding_no_memory_are_not_named_as_the_holder() -> None:
    """Issue 39: a process at 0 GiB was named as the GPU's holder."""
    idle = GPUProcess(pid=5, command="python probe.py", memory_mib=0)
    text = describe(GPUDecision.BUSY, status(idle, COMFY), "", KEYWORDS)
    assert text == (
        "GPU busy: python ComfyUI/main.py --listen (pid 4242, 19.8 GiB)"
        " (and 1 more process holding no memory)"
    )
    alone = describe(GPUDecision.BUSY, status(idle), "", KEYWORDS)
    assert alone == "GPU busy: python probe.py (pid 5, 0.0 GiB)"  # nobody else to name


def test_busy_message_without_processes_explains() -> None:
    text = describe(GPUDecision.BUSY, status(used=20000), "", KEYWORDS)
    assert "19.5 GiB in use" in text and "WSL2" in text


def test_unknown_message_carries_the_reason() -> None:
    text = describe(GPUDecision.UNKNOWN, None, "nvidia-smi not found", KEYWORDS)
    assert text == "GPU status unknown: nvidia-smi not found"


def test_long_command_lines_keep_the_script_name() -> None:
    proc = GPUProcess(
        pid=9,
        command="/home/u/.venv/bin/python3 /home/u/apps/ComfyUI/main.py --listen 0.0.0.0",
        memory_mib=1024,
    )
    text = describe(GPUDecision.BUSY, status(proc), "", KEYWORDS)
    assert text == "GPU busy: python3 …/ComfyUI/main.py --listen 0.0.0.0 (pid 9, 1.0 GiB)"


def test_loading_message_also_names_who_else_holds_the_gpu() -> None:
    """Regression (QA): a loading vLLM beside a 20 GiB holder named only the vLLM."""
    loading = GPUProcess(pid=5, command="vllm serve m", memory_mib=0, on_gpu=False)
    snapshot = status(loading, COMFY)
    assert decide(snapshot, None, KEYWORDS, 1024, NOW) is GPUDecision.VLLM_LOADING
    text = describe(GPUDecision.VLLM_LOADING, snapshot, "", KEYWORDS)
    assert text.startswith("vLLM loading: vllm serve m (pid 5, not on the GPU yet)")
    assert "also on the GPU: python …/ComfyUI/main.py" not in text  # short paths stay whole
    assert "ComfyUI/main.py --listen (pid 4242, 19.8 GiB)" in text


def test_a_vllm_serving_another_port_is_someone_elses_and_holds_the_gpu() -> None:
    """Issue 39: a colleague's vLLM on port 8001 was taken for ours (port 8000), so a paper
    waited for it to answer at our URL until the wait ran out, never saying who held the GPU."""
    from common.settings import load_settings

    settings = load_settings(vllm_command="vllm serve google/translategemma-27b-it --port 8000")
    keywords = settings.vllm_keywords
    assert keywords.port == 8000
    theirs = GPUProcess(
        pid=77, command="vllm serve Qwen/Qwen3-8B --port=8001", memory_mib=20000, on_gpu=True
    )
    ours = GPUProcess(
        pid=78, command="vllm serve google/translategemma-27b-it --port 8000", memory_mib=900
    )
    engine = GPUProcess(pid=79, command="VLLM::EngineCore", memory_mib=20000, on_gpu=True)
    assert decide(status(theirs, used=20000), None, keywords, 1024, NOW) is GPUDecision.BUSY
    text = describe(GPUDecision.BUSY, status(theirs, used=20000), "", keywords)
    assert text.startswith("GPU busy: vllm serve Qwen/Qwen3-8B --port=8001 (pid 77, 19.5 GiB)")
    # Ours (same port), and an engine process naming no port, are still ours to wait for.
    assert decide(status(ours), None, keywords, 1024, NOW) is GPUDecision.VLLM_LOADING
    assert decide(status(engine, used=20000), None, keywords, 1024, NOW) is (
        GPUDecision.VLLM_LOADING
    )
    # Without a port in our own command there is no port rule.
    plain = load_settings(vllm_command="vllm serve google/translategemma-27b-it").vllm_keywords
    assert decide(status(theirs, used=20000), None, plain, 1024, NOW) is GPUDecision.VLLM_LOADING

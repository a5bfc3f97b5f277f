"""nvidia-smi: the CSV parsers (literals as real nvidia-smi prints them), finding the binary,
and running it (through the fake) with failures, hangs and garbage."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from common.errors import GPUReadError
from tests.helpers.gpu import FAKE_SMI_SCRIPT, GPU_UUID, FakeSmi, gpu
from vllm_manager import smi
from vllm_manager.smi import SmiApp, SmiGPU

RTX_5090 = (
    "0, GPU-5f3c8a1e-2b7d-4c19-9e8f-0a1b2c3d4e5f, NVIDIA GeForce RTX 5090, 97, 29875, 32607, 71\n"
)


def test_parse_gpu_line_as_nvidia_smi_prints_it() -> None:
    assert smi.parse_gpu_csv(RTX_5090) == [
        SmiGPU(
            index=0,
            uuid=GPU_UUID,
            name="NVIDIA GeForce RTX 5090",
            utilization_pct=97,
            memory_used_mib=29875,
            memory_total_mib=32607,
            temperature_c=71,
        )
    ]


def test_parse_two_gpus_and_unavailable_fields() -> None:
    text = (
        "0, GPU-aaa, NVIDIA GeForce RTX 4090, [N/A], 1024, 24564, [Not Supported]\n"
        "1, GPU-bbb, NVIDIA A100-SXM4-80GB, 0, 4, 81920, 33\n"
    )
    first, second = smi.parse_gpu_csv(text)
    assert (first.utilization_pct, first.temperature_c, first.memory_used_mib) == (None, None, 1024)
    assert (second.index, second.uuid, second.memory_total_mib) == (1, "GPU-bbb", 81920)


def test_gpu_name_containing_the_separator() -> None:
    (only,) = smi.parse_gpu_csv("0, GPU-x, Weird, Inc. Board, 1, 2, 3, 4\n")
    assert only.name == "Weird, Inc. Board"
    assert (only.utilization_pct, only.memory_used_mib, only.temperature_c) == (1, 2, 4)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "<html>502 Bad Gateway</html>\n",
        "0, GPU-x, RTX, 1, lots, 32607, 40\n",
        "zero, GPU-x, RTX, 1, 2, 3, 4\n",
    ],
)
def test_gpu_garbage_is_an_error_never_a_guess(text: str) -> None:
    with pytest.raises(GPUReadError):
        smi.parse_gpu_csv(text)


def test_parse_compute_apps() -> None:
    text = (
        "4242, VLLM::EngineCore, 28034, GPU-aaa\n"
        "777, /usr/bin/python3, [N/A], GPU-aaa\n"
        "9, my, odd, title, 12, [N/A]\n"
    )
    assert smi.parse_apps_csv(text) == [
        SmiApp(
            pid=4242, process_name="VLLM::EngineCore", used_memory_mib=28034, gpu_uuid="GPU-aaa"
        ),
        SmiApp(pid=777, process_name="/usr/bin/python3", used_memory_mib=None, gpu_uuid="GPU-aaa"),
        SmiApp(pid=9, process_name="my, odd, title", used_memory_mib=12, gpu_uuid=None),
    ]


def test_no_compute_apps() -> None:
    assert smi.parse_apps_csv("") == []
    assert smi.parse_apps_csv("No running processes found\n") == []


@pytest.mark.parametrize(
    "text", ["[N/A], python3, 100, GPU-a\n", "-1, x, 1, GPU-a\n", "garbage\n", "12, x, y\n"]
)
def test_unreadable_process_rows_are_errors(text: str) -> None:
    """A row we cannot read may be a process holding the GPU: refuse rather than skip it."""
    with pytest.raises(GPUReadError):
        smi.parse_apps_csv(text)


def test_unavailable_markers() -> None:
    for value in ("[N/A]", "[Not Supported]", "[Insufficient Permissions]", "N/A", " "):
        assert smi.is_unavailable(value)
    assert not smi.is_unavailable("0")


# --- finding and running it -----------------------------------------------------------------


def test_configured_path_wins(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path)
    assert smi.find_nvidia_smi(fake.path, search_path="") == fake.path


def test_configured_path_must_be_executable(tmp_path: Path) -> None:
    with pytest.raises(GPUReadError, match="ZT_NVIDIA_SMI=.*not an executable"):
        smi.find_nvidia_smi(tmp_path / "nope", search_path=str(FAKE_SMI_SCRIPT.parent))


def test_path_then_fallbacks(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path / "bin")
    assert smi.find_nvidia_smi(None, search_path=str(fake.path.parent)) == fake.path
    # A systemd unit has no WSL PATH: the fixed locations are tried next.
    other = FakeSmi(tmp_path / "wsl")
    found = smi.find_nvidia_smi(None, search_path="", fallbacks=[tmp_path / "missing", other.path])
    assert found == other.path


def test_not_found_names_every_place(tmp_path: Path) -> None:
    with pytest.raises(GPUReadError) as info:
        smi.find_nvidia_smi(
            None, search_path=str(tmp_path), fallbacks=[tmp_path / "a", tmp_path / "b"]
        )
    assert "nvidia-smi not found" in str(info.value)
    assert str(tmp_path / "b") in str(info.value)
    assert "ZT_NVIDIA_SMI" in str(info.value)


def test_query_through_the_fake(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path)
    fake.set(gpus=[gpu(utilization_gpu=12, memory_used=2048, temperature_gpu=55)])
    (card,) = smi.query_gpus(fake.path, timeout_s=10)
    assert (card.uuid, card.utilization_pct, card.memory_used_mib, card.temperature_c) == (
        GPU_UUID,
        12,
        2048,
        55,
    )
    assert smi.query_apps(fake.path, timeout_s=10) == []


def test_fake_accepts_the_real_argument_forms(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path)
    with_units = smi.run_smi(
        fake.path, ["--query-gpu", "name,memory.used,power.draw", "--format=csv"], 10
    )
    assert with_units.splitlines() == [
        "name, memory.used [MiB], power.draw [W]",
        "NVIDIA GeForce RTX 5090, 300 MiB, 21.50 W",
    ]
    with pytest.raises(GPUReadError, match="exit code 2"):
        smi.run_smi(fake.path, ["--query-gpu=bogus", "--format=csv"], 10)


def test_driver_missing(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path)
    fake.set(mode="missing")
    with pytest.raises(GPUReadError) as info:
        smi.query_gpus(fake.path, timeout_s=10)
    assert "exit code 9" in str(info.value)
    assert "couldn't communicate with the NVIDIA driver" in str(info.value)


def test_garbage_output(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path)
    fake.set(mode="garbage")
    with pytest.raises(GPUReadError, match="unexpected nvidia-smi output"):
        smi.query_gpus(fake.path, timeout_s=10)
    with pytest.raises(GPUReadError, match="unexpected nvidia-smi output"):
        smi.query_apps(fake.path, timeout_s=10)


def _fake_processes_with_state(state_path: Path) -> list[int]:
    """Live fake nvidia-smi processes started with this state file (any test's are ignored)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if str(FAKE_SMI_SCRIPT).encode() in cmdline and str(state_path).encode() in environ:
            found.append(int(name))
    return found


def test_hang_times_out_and_leaves_no_process(tmp_path: Path) -> None:
    fake = FakeSmi(tmp_path)
    fake.set(mode="hang")
    with pytest.raises(GPUReadError, match=r"did not answer within 0\.3 s"):
        smi.query_gpus(fake.path, timeout_s=0.3)
    assert _fake_processes_with_state(fake.state_path) == []


def test_unrunnable_binary(tmp_path: Path) -> None:
    broken = tmp_path / "nvidia-smi"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    with pytest.raises(GPUReadError, match="cannot run"):
        smi.query_gpus(broken, timeout_s=5)


def test_repo_wrapper_reads_the_state_named_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tests/fakes/nvidia-smi`` (for demos and other tools) with FAKE_NVIDIA_SMI_STATE."""
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"gpus": [gpu(memory_used=1234, name="Env GPU")], "discover": []}))
    monkeypatch.setenv("FAKE_NVIDIA_SMI_STATE", str(state))
    wrapper = FAKE_SMI_SCRIPT.parent / "nvidia-smi"
    (card,) = smi.query_gpus(smi.find_nvidia_smi(wrapper), timeout_s=30)
    assert (card.name, card.memory_used_mib) == ("Env GPU", 1234)
    assert smi.query_apps(wrapper, timeout_s=30) == []

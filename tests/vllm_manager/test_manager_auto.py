"""ZT_MANAGER=auto: local when this machine has an NVIDIA GPU, vLLM and the model; else none.

The GPU is the fake nvidia-smi on PATH (tests/fakes), vLLM the fake ``vllm`` executable, the model
a folder; a launch profile of deploy/vllm is asked for its command line as the real one would be.
What the user sees is checked where they see it: ``zotero-translate status`` and ``/health``.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from common.settings import ManagerKind, Settings, load_settings
from tests.helpers.gpu import FakeSmi
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import run_app
from tests.helpers.vllm import FAKE_VLLM
from vllm_manager.choice import ManagerChoice, choose_manager, parse_vllm_command
from zotero_server import cli

REPO = REPO_ROOT
PROFILE_24GB = REPO / "deploy" / "vllm" / "translategemma-27b-24gb.sh"
GPU_NAME = "NVIDIA GeForce RTX 5090"  # the fake's default card


class Machine:
    """A pretend GPU machine in ``tmp_path``: a fake nvidia-smi, a ``bin`` folder and a home."""

    def __init__(self, tmp_path: Path) -> None:
        self.smi = FakeSmi(tmp_path / "smi")
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        self.home = tmp_path / "home"
        self.model = self.home / "models" / "infomaniak-translategemma-27b-it-W4A16"

    def install_vllm(self) -> Path:
        vllm = self.bin / "vllm"
        vllm.symlink_to(FAKE_VLLM)
        return vllm

    def download_model(self) -> None:
        self.model.mkdir(parents=True)
        (self.model / "config.json").write_text("{}")

    def environ(self, *, gpu: bool = True, **extra: str) -> dict[str, str]:
        dirs = [str(self.smi.path.parent)] if gpu else []
        path = ":".join([*dirs, str(self.bin), "/usr/bin", "/bin"])
        return {"PATH": path, "HOME": str(self.home), **extra}


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


def auto(tmp_path: Path, **overrides: str) -> Settings:
    return load_settings(data_dir=tmp_path / "data", manager="auto", **overrides)


# --- the command line, read as the shell would run it ---------------------------------------


def test_the_default_command_names_vllm_and_the_model_under_home() -> None:
    default = load_settings().vllm_command
    command = parse_vllm_command(default, {"HOME": "/home/me"})
    assert command is not None
    assert command.executable == "/home/me/vllm/.venv/bin/vllm"
    assert command.model == "/home/me/models/translategemma-27b-it-nvfp4a16"


def test_a_command_line_with_braces_quotes_and_a_repository_name() -> None:
    env = {"VENV": "/opt/v"}
    parsed = parse_vllm_command("'${VENV}/bin/vllm' serve google/translategemma-4b-it -tp 1", env)
    assert parsed is not None and parsed.executable == "/opt/v/bin/vllm"
    assert parsed.model == "google/translategemma-4b-it"
    assert parse_vllm_command("vllm serve --port 8000", {}) == parsed.__class__("vllm", None)
    assert parse_vllm_command("/x/deploy/vllm/translategemma-27b-32gb.sh", {}) is None
    assert parse_vllm_command("vllm 'unclosed", {}) is None


# --- the decision ------------------------------------------------------------------------------


def test_gpu_vllm_and_model_present_choose_local(tmp_path: Path, machine: Machine) -> None:
    vllm = machine.install_vllm()
    machine.download_model()
    settings = auto(tmp_path, vllm_command=f"$HOME/../bin/vllm serve {machine.model} --port 1")
    choice = choose_manager(settings, environ=machine.environ())
    assert choice.kind is ManagerKind.LOCAL and choice.auto
    assert GPU_NAME in choice.reason
    assert f"vLLM at {machine.home}/../bin/vllm" in choice.reason
    assert str(machine.model) in choice.reason
    # A bare `vllm` is found on PATH, as /bin/sh would find it; a repository name is vLLM's
    # to download.
    bare = choose_manager(
        auto(tmp_path, vllm_command="vllm serve google/translategemma-4b-it"),
        environ=machine.environ(),
    )
    assert bare.kind is ManagerKind.LOCAL
    assert f"vLLM at {vllm}" in bare.reason and "vLLM downloads it" in bare.reason


def test_no_nvidia_smi_means_none(tmp_path: Path, machine: Machine) -> None:
    machine.install_vllm()
    machine.download_model()
    settings = auto(tmp_path, vllm_command=f"vllm serve {machine.model}")
    choice = choose_manager(settings, environ=machine.environ(gpu=False), smi_fallbacks=())
    assert choice.kind is ManagerKind.NONE and choice.auto
    assert choice.reason.startswith("no NVIDIA GPU here (nvidia-smi not found")


def test_an_nvidia_smi_that_fails_or_lists_no_gpu_means_none(
    tmp_path: Path, machine: Machine
) -> None:
    machine.install_vllm()
    machine.download_model()
    settings = auto(tmp_path, vllm_command=f"vllm serve {machine.model}")
    machine.smi.set(mode="missing")  # what nvidia-smi does without a driver
    failed = choose_manager(settings, environ=machine.environ())
    assert failed.kind is ManagerKind.NONE and "no NVIDIA GPU here" in failed.reason
    machine.smi.set(gpus=[])
    empty = choose_manager(settings, environ=machine.environ())
    assert empty.kind is ManagerKind.NONE and "listed no GPU" in empty.reason


def test_a_gpu_without_vllm_or_without_the_model_means_none(
    tmp_path: Path, machine: Machine
) -> None:
    settings = auto(tmp_path, vllm_command=f"$HOME/vllm/bin/vllm serve {machine.model}")
    no_vllm = choose_manager(settings, environ=machine.environ())
    assert no_vllm.kind is ManagerKind.NONE
    assert no_vllm.reason == (
        f"{GPU_NAME} found, but no vLLM executable at {machine.home}/vllm/bin/vllm"
    )
    machine.install_vllm()
    no_model = choose_manager(
        auto(tmp_path, vllm_command=f"vllm serve {machine.model}"), environ=machine.environ()
    )
    assert no_model.kind is ManagerKind.NONE
    assert no_model.reason == f"{GPU_NAME} and vLLM found, but no model at {machine.model}"


def test_a_launch_profile_is_asked_for_its_command_line(tmp_path: Path, machine: Machine) -> None:
    vllm = machine.install_vllm()
    env_file = tmp_path / "vllm.env"
    env_file.write_text(f"VLLM_BIN={vllm}\n")
    settings = auto(tmp_path, vllm_command=str(PROFILE_24GB))
    environ = machine.environ(ZT_VLLM_ENV=str(env_file))
    # The profile's default model folder ($HOME/models/infomaniak-...-W4A16) is missing.
    missing = choose_manager(settings, environ=environ)
    assert missing.kind is ManagerKind.NONE
    assert missing.reason.endswith(f"no model at {machine.model}")
    machine.download_model()
    found = choose_manager(settings, environ=environ)
    assert found.kind is ManagerKind.LOCAL
    assert f"vLLM at {vllm}" in found.reason and str(machine.model) in found.reason
    # A profile that is not there is named.
    gone = choose_manager(auto(tmp_path, vllm_command="/nowhere/profile.sh"), environ=environ)
    assert gone.kind is ManagerKind.NONE and "'/nowhere/profile.sh' does not exist" in gone.reason


def test_an_explicit_manager_is_taken_as_it_is(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path / "data", manager="none")
    choice = choose_manager(settings, environ={"PATH": ""})
    assert choice == ManagerChoice(ManagerKind.NONE, "ZT_MANAGER=none", auto=False)
    assert choice.describe() == "none (ZT_MANAGER=none)"


def test_a_jupyter_url_means_remote_without_looking_at_this_machine(tmp_path: Path) -> None:
    settings = auto(tmp_path, jupyter_url="http://gpu-box:8888")
    choice = choose_manager(settings, environ={"PATH": ""}, smi_fallbacks=())
    assert choice.kind is ManagerKind.REMOTE and choice.auto
    assert "ZT_JUPYTER_URL" in choice.reason and "http://gpu-box:8888" in choice.reason


# --- where the user sees it --------------------------------------------------------------------


def use_machine(monkeypatch: pytest.MonkeyPatch, machine: Machine, *, vllm: bool) -> None:
    """This process (the server, the CLI) runs on ``machine``: its PATH and home."""
    if vllm:
        machine.install_vllm()
    machine.download_model()
    environ = machine.environ()
    monkeypatch.setenv("PATH", environ["PATH"] + os.pathsep + os.environ.get("PATH", ""))


def test_status_says_which_manager_auto_chose_and_why(
    tmp_path: Path,
    machine: Machine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_machine(monkeypatch, machine, vllm=True)
    monkeypatch.setenv("ZT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ZT_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("ZT_VLLM_COMMAND", f"vllm serve {machine.model}")
    assert cli.main(["status"]) == 3  # vLLM is down: status says so in its exit code too
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"manager  local (auto: {GPU_NAME} found by nvidia-smi, vLLM at {machine.bin}/vllm, "
        f"model at {machine.model})"
    )


def test_health_says_which_manager_auto_chose_and_why(
    tmp_path: Path, machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_machine(monkeypatch, machine, vllm=False)
    settings = auto(
        tmp_path,
        llm_base_url="http://127.0.0.1:9/v1",
        vllm_command=f"{machine.bin}/vllm serve {machine.model}",
    )
    with run_app(settings) as srv:
        vllm = httpx.get(srv.url + "/health", timeout=30).json()["vllm"]
    assert vllm["manager"] == "none"
    assert vllm["managerReason"] == (
        f"none (auto: {GPU_NAME} found, but no vLLM executable at {machine.bin}/vllm)"
    )
    machine.install_vllm()
    with run_app(settings) as srv:
        vllm = httpx.get(srv.url + "/health", timeout=30).json()["vllm"]
    assert vllm["manager"] == "local"
    assert vllm["managerReason"].startswith(f"local (auto: {GPU_NAME} found by nvidia-smi")

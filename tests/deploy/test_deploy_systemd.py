"""deploy/systemd: the install script and the user units it installs."""

from __future__ import annotations

import configparser
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from common.settings import ENV_PREFIX, Settings, load_settings
from tests.helpers.deploy import (
    REPO_ROOT,
    SYSTEMD,
    clean_env,
    parse_environment_file,
    run,
    verify_units,
)
from tests.helpers.net import free_port, wait_for_port

VENV = Path(sys.executable).parent.parent
ZT_UNITS = ["zotero-translate-serve.service", "zotero-translate-gpu-api.service"]
ALL_UNITS = [*ZT_UNITS, "jupyterlab.service"]


class Install:
    """One run of install.sh into a private HOME."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.unit_dir = home / ".config" / "systemd" / "user"
        self.config_dir = home / ".config" / "zotero-translate"

    def __call__(self, *args: str | Path):
        return run(
            ["bash", SYSTEMD / "install.sh", "--venv", VENV, "--no-reload", *args],
            env=clean_env(self.home),
        )


@pytest.fixture
def install(tmp_path: Path) -> Install:
    home = tmp_path / "home"
    home.mkdir()
    return Install(home)


def _unit(path: Path) -> configparser.ConfigParser:
    # systemd allows repeated keys (Environment=); keep the last, which is enough here.
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text())
    return parser


def _path_of(unit: Path) -> list[str]:
    [line] = [ln for ln in unit.read_text().splitlines() if ln.startswith("Environment=PATH=")]
    return line.removeprefix("Environment=PATH=").split(":")


def test_installed_units_pass_systemd_analyze_verify(install: Install, tmp_path: Path) -> None:
    result = install("--jupyter", VENV / "bin" / "jupyter")
    assert result.returncode == 0, result.stderr
    units = [install.unit_dir / name for name in ALL_UNITS]
    verified = verify_units(units, tmp_path / "runtime")
    # Unknown keys and bad values are only warnings ("ignoring"): silence is the pass mark.
    assert verified.returncode == 0, verified.stderr
    assert verified.stderr.strip() == ""
    assert verified.stdout.strip() == ""


def test_verify_would_catch_a_broken_unit(install: Install, tmp_path: Path) -> None:
    """Guards the check above: the same call flags a typo and a missing executable."""
    assert install().returncode == 0
    unit = install.unit_dir / "zotero-translate-serve.service"
    broken = tmp_path / "broken.service"
    broken.write_text(
        unit.read_text()
        .replace("NoNewPrivileges=yes", "NoNewPrivilege=yes")
        .replace(str(VENV), "/nonexistent/venv")
    )
    verified = verify_units([broken], tmp_path / "runtime")
    assert "Unknown key 'NoNewPrivilege'" in verified.stderr
    assert "/nonexistent/venv/bin/zotero-translate is not executable" in verified.stderr


def test_units_point_at_this_checkout_and_see_nvidia_smi_under_wsl(install: Install) -> None:
    assert install("--jupyter", VENV / "bin" / "jupyter").returncode == 0
    for name in ZT_UNITS:
        service = _unit(install.unit_dir / name)["Service"]
        command = service["ExecStart"].split()
        assert command[0] == str(VENV / "bin" / "zotero-translate")
        path = _path_of(install.unit_dir / name)
        assert "/usr/lib/wsl/lib" in path
        assert str(VENV / "bin") in path
        assert service["EnvironmentFile"] == str(install.config_dir / "env")
        assert service["Restart"] == "on-failure"
        assert service["RestartPreventExitStatus"] == "2"
    jupyter = _unit(install.unit_dir / "jupyterlab.service")["Service"]
    assert jupyter["ExecStart"].startswith(str(VENV / "bin" / "jupyter") + " lab ")
    assert "--ServerApp.allow_remote_access=True" in jupyter["ExecStart"]
    assert "--ServerApp.ip=127.0.0.1" in jupyter["ExecStart"]


@pytest.mark.parametrize("name", ALL_UNITS)
def test_hardening_leaves_the_gpu_reachable(name: str) -> None:
    service = _unit(SYSTEMD / name)["Service"]
    assert service["NoNewPrivileges"] == "yes"
    # These hide /dev/nvidia* and /dev/dxg, or the processes the GPU API must read.
    for key in ("PrivateDevices", "DevicePolicy", "ProtectProc", "PrivateUsers"):
        assert key not in service, f"{name}: {key}= would break GPU access"
    assert service.get("MemoryDenyWriteExecute", "no") == "no"


def test_install_creates_private_settings_with_fresh_tokens_the_server_accepts(
    install: Install, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert install("--jupyter", VENV / "bin" / "jupyter").returncode == 0
    env_file = install.config_dir / "env"
    jupyter_env = install.config_dir / "jupyter.env"
    for path in (env_file, jupyter_env):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(install.config_dir.stat().st_mode) == 0o700
    values = parse_environment_file(env_file)
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields}
    assert set(values) <= known, f"not settings: {set(values) - known}"
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    assert settings.gpu_api_token is not None
    assert len(settings.gpu_api_token.get_secret_value()) >= 32
    assert settings.jupyter_token is not None
    # JupyterLab and the manager must agree on the token.
    jupyter_token = parse_environment_file(jupyter_env)["JUPYTER_TOKEN"]
    assert settings.jupyter_token.get_secret_value() == jupyter_token
    assert settings.vllm_command == str(REPO_ROOT / "deploy/vllm/translategemma-27b-32gb.sh")
    assert Path(settings.vllm_command).is_file()


def test_each_install_draws_new_tokens(tmp_path: Path) -> None:
    tokens = set()
    for home in ("a", "b"):
        install = Install(tmp_path / home)
        install.home.mkdir()
        assert install().returncode == 0
        tokens.add(parse_environment_file(install.config_dir / "env")["ZT_GPU_API_TOKEN"])
    assert len(tokens) == 2


def test_without_jupyterlab_the_manager_is_not_pointed_at_it(install: Install) -> None:
    result = install()
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in install.unit_dir.iterdir()) == sorted(ZT_UNITS)
    values = parse_environment_file(install.config_dir / "env")
    assert "ZT_JUPYTER_URL" not in values
    assert not (install.config_dir / "jupyter.env").exists()


def test_install_is_idempotent_and_never_overwrites_settings(install: Install) -> None:
    assert install().returncode == 0
    env_file = install.config_dir / "env"
    env_file.write_text(env_file.read_text() + "ZT_TARGET_LANG=de\n")
    units_before = {p.name: p.read_text() for p in install.unit_dir.iterdir()}

    again = install()
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("unchanged") == len(ZT_UNITS)
    assert "never overwritten" in again.stdout
    assert env_file.read_text().endswith("ZT_TARGET_LANG=de\n")
    assert {p.name: p.read_text() for p in install.unit_dir.iterdir()} == units_before


def test_adding_jupyterlab_later_reuses_the_servers_jupyter_token(install: Install) -> None:
    assert install().returncode == 0
    env_file = install.config_dir / "env"
    env_file.write_text(env_file.read_text().replace("#ZT_JUPYTER_TOKEN=", "ZT_JUPYTER_TOKEN="))
    server_token = parse_environment_file(env_file)["ZT_JUPYTER_TOKEN"]
    assert install("--jupyter", VENV / "bin" / "jupyter").returncode == 0
    jupyter_env = parse_environment_file(install.config_dir / "jupyter.env")
    assert jupyter_env["JUPYTER_TOKEN"] == server_token


def test_a_moved_checkout_updates_the_units(install: Install, tmp_path: Path) -> None:
    assert install().returncode == 0
    other_venv = tmp_path / "venv2"
    (other_venv / "bin").mkdir(parents=True)
    shutil.copy(VENV / "bin" / "zotero-translate", other_venv / "bin" / "zotero-translate")
    result = install("--venv", other_venv)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("updated") == len(ZT_UNITS)
    unit = (install.unit_dir / "zotero-translate-serve.service").read_text()
    assert f"ExecStart={other_venv}/bin/zotero-translate serve" in unit


def test_dry_run_writes_nothing(install: Install) -> None:
    result = install("--dry-run", "--with-jupyter", "--jupyter", VENV / "bin" / "jupyter")
    assert result.returncode == 0, result.stderr
    assert "would be installed" in result.stdout
    assert not install.home.joinpath(".config").exists()


def test_a_missing_venv_is_a_clear_error(install: Install, tmp_path: Path) -> None:
    result = install("--venv", tmp_path / "nowhere")
    assert result.returncode == 1
    assert "create the environment first" in result.stderr
    assert not install.unit_dir.exists()


def test_install_script_passes_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("needs shellcheck (Debian package shellcheck)")
    result = run([shellcheck, "-x", "deploy/systemd/install.sh"])
    assert result.returncode == 0, result.stdout


def _get_from_unit(
    unit: Path, home: Path, port_key: str, path: str, **edits: str
) -> httpx.Response:
    """Start a unit's ExecStart the way systemd would (only its Environment= and
    EnvironmentFile= variables, nothing from this test's environment, plus ``edits``), GET
    ``path``, stop."""
    service = _unit(unit)["Service"]
    env = {"HOME": str(home), "LANG": "C.UTF-8", "PATH": ":".join(_path_of(unit))}
    env.update(parse_environment_file(Path(service["EnvironmentFile"])))
    env.update(edits)
    port = free_port()
    env[port_key] = str(port)  # what a user edits; the default port may be taken here
    process = subprocess.Popen(
        shlex.split(service["ExecStart"]),
        env=env,
        cwd=home,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, timeout=30)
        return httpx.get(f"http://127.0.0.1:{port}{path}", timeout=10)
    except (TimeoutError, httpx.HTTPError) as exc:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"{unit.name} did not answer {path}: {exc}\n{output}")
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def test_the_installed_serve_unit_starts_a_server_that_answers_health(install: Install) -> None:
    assert install().returncode == 0
    unit = install.unit_dir / "zotero-translate-serve.service"
    response = _get_from_unit(unit, install.home, "ZT_PORT", "/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_the_installed_gpu_api_unit_starts_an_api_that_answers_healthz(install: Install) -> None:
    help_text = run([VENV / "bin" / "zotero-translate", "--help"]).stdout
    if "gpu-api" not in help_text:
        pytest.skip("the CLI has no `gpu-api` subcommand yet")
    assert install().returncode == 0
    unit = install.unit_dir / "zotero-translate-gpu-api.service"
    response = _get_from_unit(unit, install.home, "ZT_GPU_API_PORT", "/healthz")
    assert response.status_code == 200


# --- a GPU host without the server (the second host of a two-host homelab) -----------------


def test_a_gpu_host_gets_only_the_gpu_api_and_jupyterlab_and_they_verify(
    install: Install, tmp_path: Path
) -> None:
    result = install("--gpu-host", "--jupyter", VENV / "bin" / "jupyter")
    assert result.returncode == 0, result.stderr
    installed = sorted(p.name for p in install.unit_dir.iterdir())
    assert installed == ["jupyterlab.service", "zotero-translate-gpu-api.service"]
    verified = verify_units([install.unit_dir / name for name in installed], tmp_path / "rt")
    assert verified.returncode == 0, verified.stderr
    assert verified.stderr.strip() == verified.stdout.strip() == ""
    assert "systemctl --user enable --now zotero-translate-gpu-api.service jupyterlab.service" in (
        result.stdout
    )


def test_a_gpu_host_serves_its_status_to_the_lan_with_a_fresh_token(
    install: Install, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = install("--gpu-host", "--jupyter", VENV / "bin" / "jupyter")
    assert result.returncode == 0, result.stderr
    env_file = install.config_dir / "env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    values = parse_environment_file(env_file)
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields}
    assert set(values) <= known, f"not settings: {set(values) - known}"
    # Nothing of a server here: the one on the other machine manages this host's vLLM.
    assert not {"ZT_MANAGER", "ZT_HOST", "ZT_VLLM_COMMAND", "ZT_JUPYTER_URL"} & set(values)
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    assert settings.gpu_api_host == "0.0.0.0"
    assert settings.gpu_api_token is not None
    token = settings.gpu_api_token.get_secret_value()
    assert len(token) >= 32
    jupyter_token = parse_environment_file(install.config_dir / "jupyter.env")["JUPYTER_TOKEN"]
    assert len(jupyter_token) >= 32 and jupyter_token != token
    # The user is told which values the server's [[hosts]] table needs, and where they are.
    assert f"gpu_api_token = ZT_GPU_API_TOKEN of {env_file}" in result.stdout
    assert f"jupyter_token = JUPYTER_TOKEN of {install.config_dir / 'jupyter.env'}" in (
        result.stdout
    )
    assert "vllm_command = " in result.stdout


def test_the_gpu_host_unit_starts_an_api_that_wants_its_token(install: Install) -> None:
    help_text = run([VENV / "bin" / "zotero-translate", "--help"]).stdout
    if "gpu-api" not in help_text:
        pytest.skip("the CLI has no `gpu-api` subcommand yet")
    assert install("--gpu-host").returncode == 0
    unit = install.unit_dir / "zotero-translate-gpu-api.service"
    # Loopback in the test; the installed 0.0.0.0 is what the LAN needs.
    response = _get_from_unit(
        unit, install.home, "ZT_GPU_API_PORT", "/status", ZT_GPU_API_HOST="127.0.0.1"
    )
    assert response.status_code == 401

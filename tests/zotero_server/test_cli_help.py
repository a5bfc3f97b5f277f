"""Issue 39: what a newcomer's first commands print (`--version`, `--help`, `status` with no model).

The CLI runs as a process, as a user would run it, with a vLLM URL where nothing listens.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.net import free_port
from zotero_server import __version__


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_version() -> None:
    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"zotero-translate {__version__}"


def test_vllm_and_serve_do_not_share_a_flag_for_different_things() -> None:
    vllm = cli("vllm", "--help").stdout
    assert "--gpu-host NAME" in vllm and "--host" not in vllm.replace("--gpu-host", "")
    assert "--host HOST" in cli("serve", "--help").stdout
    refused = cli("vllm", "status", "--host", "attic")
    assert refused.returncode == 2 and "unrecognized arguments: --host" in refused.stderr


def _no_model(tmp_path: Path) -> dict[str, str]:
    return {
        "ZT_MANAGER": "none",
        "ZT_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
        "ZT_DATA_DIR": str(tmp_path / "data"),
        "ZT_NVIDIA_SMI": str(tmp_path / "no-smi"),
    }


def test_status_exits_3_and_says_what_to_do_when_no_model_answers(tmp_path: Path) -> None:
    env = _no_model(tmp_path)
    done = cli("status", env=env)
    assert done.returncode == 3, done.stderr
    url = env["ZT_LLM_BASE_URL"].removesuffix("/v1")
    assert f"No translation model answers at {url}" in done.stdout
    assert "1. Start vLLM yourself" in done.stdout and "2. Or let this server start" in done.stdout
    assert done.stderr == ""
    told = " ".join(cli("status", "--help").stdout.split())
    assert "Exit 0 when vLLM serves (or sleeps), 3 when it is down" in told


def test_status_into_a_closed_pipe_prints_no_traceback(tmp_path: Path) -> None:
    # `zotero-translate status | head -0`: the reader is gone before the first line.
    with subprocess.Popen(
        [sys.executable, "-m", "zotero_server.cli", "status"],
        env={**os.environ, **_no_model(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code == 141


def test_a_broken_default_config_file_stops_with_its_name(tmp_path: Path) -> None:
    toml = tmp_path / "xdg-config" / "zotero-translate" / "config.toml"
    toml.parent.mkdir(parents=True, exist_ok=True)
    toml.write_text("llm_base_url = \n")
    done = cli("status", env={"ZT_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2
    assert f"zotero-translate: invalid config file {toml}" in done.stderr
    assert "Traceback" not in done.stderr
    # Listing the settings still works: it is how a user finds the bad key.
    listed = cli("settings")
    assert listed.returncode == 0 and f"{toml} (found)" in listed.stdout

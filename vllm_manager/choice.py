"""ManagerChoice: which manager ``ZT_MANAGER`` means, and why; ``auto`` decided on this machine.

``ZT_MANAGER=auto`` (the default) becomes ``remote`` when ``ZT_JUPYTER_URL`` is set (the GPU is
behind that JupyterLab), else ``local`` when this machine can run the configured vLLM, and ``none``
otherwise:

1. an NVIDIA GPU: nvidia-smi (``ZT_NVIDIA_SMI``, else PATH, else the WSL and ``/usr/bin``
   places) answers and lists at least one GPU;
2. the vLLM executable of ``ZT_VLLM_COMMAND`` exists (a launch profile is asked for its command
   line with ``--print``, so its per-host overrides count);
3. the model that command serves is present, when it names a folder (an absolute path); a
   Hugging Face repository name is left to vLLM to download.

The first check that fails is the reason given for ``none``; with all three the reason names
what was found. ``local``, ``remote`` and ``none`` set explicitly are taken as they are.
:func:`parse_vllm_command` is pure; :func:`choose_manager` runs nvidia-smi and looks at files
(blocking, a few seconds at most), once, where the manager is built.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from common.errors import GPUReadError
from common.settings import ManagerKind, Settings
from vllm_manager import smi

#: How long a launch profile may take to print its command line.
PRINT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class ManagerChoice:
    """The manager in use: ``kind`` (never ``auto``), why, and whether ``auto`` chose it."""

    kind: ManagerKind
    reason: str
    auto: bool = False

    @classmethod
    def explicit(cls, kind: ManagerKind) -> ManagerChoice:
        """A kind set by the user (``ZT_MANAGER`` or a host's ``manager``)."""
        return cls(kind, f"ZT_MANAGER={kind.value}")

    def describe(self) -> str:
        """One line for status output: ``local (auto: NVIDIA ... found, ...)``."""
        if self.auto:
            return f"{self.kind.value} (auto: {self.reason})"
        return f"{self.kind.value} ({self.reason})"


@dataclass(frozen=True)
class VLLMCommand:
    """The two words of a ``vllm serve MODEL ...`` command line that ``auto`` checks."""

    executable: str
    model: str | None


def parse_vllm_command(command: str, environ: Mapping[str, str]) -> VLLMCommand | None:
    """The executable and model of ``command`` as the shell would run it; None if it is not a
    ``... serve MODEL`` command line (a launch profile, say). ``$VAR`` and ``~`` are expanded
    from ``environ`` and its ``HOME``, as ``/bin/sh`` would. Pure."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    words = [_expand(word, environ) for word in words]
    if "serve" not in words[1:]:
        return None
    after = words[words.index("serve", 1) + 1 :]
    model = after[0] if after and not after[0].startswith("-") else None
    return VLLMCommand(words[0], model)


def choose_manager(
    settings: Settings,
    *,
    environ: Mapping[str, str] | None = None,
    smi_fallbacks: Sequence[Path] = smi.FALLBACK_PATHS,
) -> ManagerChoice:
    """The manager ``settings.manager`` stands for (see the module docstring). Never raises.

    ``environ`` is the environment the vLLM command would run in (default: this process's),
    whose PATH is searched for nvidia-smi and ``vllm``; ``smi_fallbacks`` are the places tried
    after PATH.
    """
    if settings.manager is not ManagerKind.AUTO:
        return ManagerChoice.explicit(settings.manager)
    if settings.jupyter_url:  # the GPU is on the machine behind that JupyterLab, not here
        reason = f"ZT_JUPYTER_URL is set: vLLM is started through {settings.jupyter_url}"
        return ManagerChoice(ManagerKind.REMOTE, reason, auto=True)
    env = os.environ if environ is None else environ
    search_path = env.get("PATH", "")
    try:
        exe = smi.find_nvidia_smi(settings.nvidia_smi, search_path, smi_fallbacks)
        gpus = smi.query_gpus(exe, settings.smi_timeout_s)
    except GPUReadError as exc:  # an empty list is one too: "nvidia-smi listed no GPU"
        return _none(f"no NVIDIA GPU here ({exc})")
    gpu = gpus[0].name or "an NVIDIA GPU"
    command = parse_vllm_command(settings.vllm_command, env)
    if command is None:
        command, problem = _profile_command(settings.vllm_command, env)
        if command is None:
            return _none(f"{gpu} found, but {problem}")
    vllm = _executable(command.executable, search_path)
    if vllm is None:
        return _none(f"{gpu} found, but no vLLM executable at {command.executable}")
    if command.model is None:
        return _none(f"{gpu} found, but ZT_VLLM_COMMAND names no model after 'serve'")
    if command.model.startswith("/"):
        if not Path(command.model).exists():
            return _none(f"{gpu} and vLLM found, but no model at {command.model}")
        model = f"model at {command.model}"
    else:
        model = f"model {command.model} (vLLM downloads it)"
    return ManagerChoice(
        ManagerKind.LOCAL, f"{gpu} found by nvidia-smi, vLLM at {vllm}, {model}", auto=True
    )


def _none(reason: str) -> ManagerChoice:
    return ManagerChoice(ManagerKind.NONE, reason, auto=True)


_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def _expand(word: str, environ: Mapping[str, str]) -> str:
    home = environ.get("HOME", "")
    if home and (word == "~" or word.startswith("~/")):
        word = home + word[1:]
    return _VARIABLE.sub(lambda m: environ.get(m.group(1) or m.group(2), ""), word)


def _executable(name: str, search_path: str) -> str | None:
    """``name`` as an executable file: a path as given, a bare name searched on PATH."""
    if "/" in name:
        path = Path(name)
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(name, path=search_path)


def _profile_command(command: str, environ: Mapping[str, str]) -> tuple[VLLMCommand | None, str]:
    """Ask a launch profile (``deploy/vllm/*.sh``) for its command line: ``PROFILE --print``.

    The profile reads its per-host overrides (VLLM_BIN, MODEL) itself, so what it prints is what
    it would run. Returns the parsed line, or None and what went wrong.
    """
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return None, f"ZT_VLLM_COMMAND cannot be read ({exc})"
    script = _executable(_expand(words[0], environ), environ.get("PATH", "")) if words else None
    if script is None:
        return None, f"ZT_VLLM_COMMAND's program {words[0] if words else ''!r} does not exist"
    try:
        done = subprocess.run(
            [script, "--print"],
            capture_output=True,
            text=True,
            timeout=PRINT_TIMEOUT_S,
            env=dict(environ),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{script} --print failed ({exc})"
    parsed = parse_vllm_command(done.stdout.strip(), environ) if done.returncode == 0 else None
    if parsed is None:
        return None, f"{script} --print gives no 'vllm serve MODEL' command line"
    return parsed, ""

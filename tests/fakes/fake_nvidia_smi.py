#!/usr/bin/env python3
"""A fake ``nvidia-smi`` for tests: the real CSV query formats, driven by a JSON state file.

Standard library only (it runs under whatever ``python3`` is found). Run it through the
``nvidia-smi`` wrapper beside it, or as ``python3 fake_nvidia_smi.py ARGS``.

State file: ``$FAKE_NVIDIA_SMI_STATE``, else ``fake_nvidia_smi.json`` beside this file, else
the built-in default (one idle RTX 5090 with the discover rules below). Read on every call,
so a test changes the GPU by rewriting the file. Keys (all optional)::

    {
      "mode": "normal" | "missing" | "hang" | "garbage" | "wsl",
      "gpus": [{"index": 0, "uuid": "GPU-...", "name": "...", "utilization.gpu": 3,
                "memory.used": 512, "memory.total": 32607, "temperature.gpu": 41,
                "power.draw": 31.5}],
      "processes": [{"pid": 123, "used_gpu_memory": 20480, "gpu": 0,
                     "process_name": "python3", "foreign": false, "kill_after_report": false}],
      "discover": [{"cmdline_contains": "VLLM::EngineCore", "used_gpu_memory": 28000, "gpu": 0}],
      "call_log": "/path/to/calls.log"
    }

* ``memory.used`` of a GPU is its baseline; the memory of its processes is added to it (as on
  a real card). Any GPU field may be a string such as ``"[N/A]"`` or ``"[Not Supported]"``.
* ``processes`` are real PIDs; one is listed only while ``/proc/PID`` exists, unless
  ``foreign`` (a process of another PID namespace: listed although ``/proc`` lacks it).
  ``kill_after_report`` SIGKILLs it after printing the row and waits until it has left
  ``/proc``: the process vanishes between nvidia-smi's answer and the caller's look.
* ``discover``: every live process whose ``/proc/PID/cmdline`` contains the string (all of
  them, if a list) is listed with that memory, so a launched fake vLLM appears by itself.
  This process and its ancestors are never discovered.
* A fake vLLM asleep (tests/fakes/fake_vllm.py, sleep mode) keeps a marker file; while it
  does, that process and its children (the engine core) are listed at the rule's or entry's
  ``asleep_mib`` (default 1024: the CUDA context a sleeping vLLM leaves on the card).
* ``process_name`` defaults to the process's argv[0], as nvidia-smi shows it.
* ``call_log``: each call appends its arguments as one line there (tests count calls).

Modes: ``missing`` fails like nvidia-smi without a driver (exit code 9), ``hang`` never
answers, ``garbage`` prints something that is not CSV, ``wsl`` lists no process rows while
the memory of the processes still counts (WSL2 reports no per-process use).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STATE_ENV = "FAKE_NVIDIA_SMI_STATE"
DEFAULT_STATE: dict[str, Any] = {
    "mode": "normal",
    "gpus": [
        {
            "index": 0,
            "uuid": "GPU-5f3c8a1e-2b7d-4c19-9e8f-0a1b2c3d4e5f",
            "name": "NVIDIA GeForce RTX 5090",
            "utilization.gpu": 0,
            "memory.used": 300,
            "memory.total": 32607,
            "temperature.gpu": 38,
            "power.draw": 21.5,
        }
    ],
    "processes": [],
    "discover": [
        {"cmdline_contains": "VLLM::EngineCore", "used_gpu_memory": 28000, "gpu": 0},
        {"cmdline_contains": "ComfyUI/main.py", "used_gpu_memory": 20480, "gpu": 0},
    ],
}

NO_DRIVER = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running.\n"
)
GARBAGE = "<html><body>502 Bad Gateway</body></html>\n\x00\x01 totally, not, csv\n"

# field -> (aliases, unit printed without "nounits", header label)
GPU_FIELDS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "index": ((), "", "index"),
    "uuid": (("gpu_uuid",), "", "uuid"),
    "name": (("gpu_name",), "", "name"),
    "utilization.gpu": (("utilization.gpu",), "%", "utilization.gpu [%]"),
    "memory.used": ((), "MiB", "memory.used [MiB]"),
    "memory.total": ((), "MiB", "memory.total [MiB]"),
    "memory.free": ((), "MiB", "memory.free [MiB]"),
    "temperature.gpu": ((), "", "temperature.gpu"),
    "power.draw": ((), "W", "power.draw [W]"),
    "pci.bus_id": (("gpu_bus_id",), "", "pci.bus_id"),
    "driver_version": ((), "", "driver_version"),
}
APP_FIELDS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "pid": ((), "", "pid"),
    "process_name": (("name",), "", "process_name"),
    "used_gpu_memory": (("used_memory",), "MiB", "used_gpu_memory [MiB]"),
    "gpu_uuid": ((), "", "gpu_uuid"),
    "gpu_name": ((), "", "gpu_name"),
    "gpu_bus_id": ((), "", "gpu_bus_id"),
}


def load_state() -> dict[str, Any]:
    path = os.environ.get(STATE_ENV)
    candidate = Path(path) if path else HERE / "fake_nvidia_smi.json"
    if candidate.is_file():
        state = dict(DEFAULT_STATE)
        state.update(json.loads(candidate.read_text()))
        return state
    return DEFAULT_STATE


def cmdline(pid: int) -> str | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return " ".join(p.decode(errors="replace") for p in raw.split(b"\0") if p) or None


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def ancestors() -> set[int]:
    pids, pid = set(), os.getpid()
    while pid > 0 and pid not in pids:
        pids.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat[stat.rfind(")") + 1 :].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _stat_fields(pid: int) -> list[str]:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return stat[stat.rfind(")") + 2 :].split()


def asleep(pid: int) -> bool:
    """Whether ``pid``, or its parent, is a fake vLLM asleep (its marker names its start time)."""
    fields = _stat_fields(pid)
    candidates = [pid] + ([int(fields[1])] if len(fields) > 1 else [])
    for candidate in candidates:
        marker = Path(tempfile.gettempdir()) / "fake-vllm-asleep" / str(candidate)
        try:
            started = marker.read_text().strip()
        except OSError:
            continue
        own = _stat_fields(candidate)
        if len(own) > 19 and own[19] == started:
            return True
    return False


def gpu_of(state: dict[str, Any], ref: Any) -> dict[str, Any]:
    gpus = state["gpus"]
    for gpu in gpus:
        if ref in (gpu.get("index"), gpu.get("uuid")):
            return dict(gpu)
    return dict(gpus[0])


def processes(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The compute apps now: explicit ones still alive (or foreign), then discovered ones."""
    rows: list[dict[str, Any]] = []
    seen: set[int] = set()
    for entry in state.get("processes", []):
        pid = int(entry["pid"])
        if pid in seen or not (entry.get("foreign") or alive(pid)):
            continue
        seen.add(pid)
        rows.append(dict(entry))
    rules = state.get("discover", [])
    if rules:
        skip = ancestors()
        for name in sorted(os.listdir("/proc"), key=lambda n: (len(n), n)):
            if not name.isdigit() or int(name) in seen or int(name) in skip:
                continue
            line = cmdline(int(name))
            if not line:
                continue
            for rule in rules:
                needles = rule["cmdline_contains"]
                needles = [needles] if isinstance(needles, str) else needles
                if all(n in line for n in needles):
                    seen.add(int(name))
                    rows.append({**rule, "pid": int(name)})
                    break
    for row in rows:
        row.setdefault("used_gpu_memory", 0)
        if isinstance(row["used_gpu_memory"], int) and asleep(int(row["pid"])):
            row["used_gpu_memory"] = min(row["used_gpu_memory"], int(row.get("asleep_mib", 1024)))
        if "process_name" not in row:
            line = cmdline(int(row["pid"]))
            row["process_name"] = line.split(" ")[0] if line else "[N/A]"
    return rows


def gpu_rows(state: dict[str, Any], apps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for gpu in state["gpus"]:
        row = dict(gpu)
        mine = [a for a in apps if gpu_of(state, a.get("gpu", 0)).get("uuid") == gpu.get("uuid")]
        used = row.get("memory.used", 0)
        if isinstance(used, (int, float)):
            used += sum(a["used_gpu_memory"] for a in mine if isinstance(a["used_gpu_memory"], int))
            row["memory.used"] = used
            total = row.get("memory.total")
            if isinstance(total, (int, float)) and "memory.free" not in gpu:
                row["memory.free"] = max(total - used, 0)
        row.setdefault("memory.free", "[N/A]")
        row.setdefault("pci.bus_id", f"00000000:{row.get('index', 0) + 1:02X}:00.0")
        row.setdefault("driver_version", "575.64")
        rows.append(row)
    return rows


def app_rows(state: dict[str, Any], apps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for app in apps:
        gpu = gpu_of(state, app.get("gpu", 0))
        rows.append(
            {
                "pid": app["pid"],
                "process_name": app["process_name"],
                "used_gpu_memory": app["used_gpu_memory"],
                "gpu_uuid": gpu.get("uuid", "[N/A]"),
                "gpu_name": gpu.get("name", "[N/A]"),
                "gpu_bus_id": f"00000000:{gpu.get('index', 0) + 1:02X}:00.0",
            }
        )
    return rows


def render(
    fields: list[str],
    table: dict[str, tuple[tuple[str, ...], str, str]],
    rows: list[dict[str, Any]],
    fmt: set[str],
) -> str:
    canonical = []
    for field in fields:
        for name, (aliases, _unit, _label) in table.items():
            if field == name or field in aliases:
                canonical.append(name)
                break
        else:
            sys.stdout.write(f'Field "{field}" is not a valid field to query.\n\n')
            sys.exit(2)
    out = []
    if "noheader" not in fmt:
        out.append(", ".join(table[name][2] for name in canonical))
    for row in rows:
        values = []
        for name in canonical:
            value = row.get(name, "[N/A]")
            text = f"{value:.2f}" if isinstance(value, float) else str(value)
            unit = table[name][1]
            if unit and "nounits" not in fmt and not text.startswith("["):
                text = f"{text} {unit}"
            values.append(text)
        out.append(", ".join(values))
    return "".join(line + "\n" for line in out)


def parse_args(argv: list[str]) -> dict[str, str]:
    opts: dict[str, str] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--") and "=" in arg:
            key, value = arg.split("=", 1)
            opts[key] = value
        elif arg in ("--query-gpu", "--query-compute-apps", "--format") and i + 1 < len(argv):
            opts[arg] = argv[i + 1]
            i += 1
        else:
            opts[arg] = ""
        i += 1
    return opts


def kill_reported(apps: list[dict[str, Any]]) -> None:
    for app in apps:
        if not app.get("kill_after_report"):
            continue
        pid = int(app["pid"])
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + 5.0
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)


def main(argv: list[str]) -> int:
    state = load_state()
    if state.get("call_log"):
        with open(state["call_log"], "a") as log:
            log.write(" ".join(argv) + "\n")
    mode = state.get("mode", "normal")
    if mode == "hang":
        while True:
            time.sleep(3600)
    if mode == "missing":
        sys.stdout.write(NO_DRIVER)
        return 9
    if mode == "garbage":
        sys.stdout.write(GARBAGE)
        return 0
    opts = parse_args(argv)
    fmt = set(opts.get("--format", "csv").split(","))
    apps = processes(state)
    if "--query-gpu" in opts:
        fields = opts["--query-gpu"].split(",")
        sys.stdout.write(render(fields, GPU_FIELDS, gpu_rows(state, apps), fmt))
    elif "--query-compute-apps" in opts:
        fields = opts["--query-compute-apps"].split(",")
        listed = [] if mode == "wsl" else apps
        sys.stdout.write(render(fields, APP_FIELDS, app_rows(state, listed), fmt))
        sys.stdout.flush()
        kill_reported(listed)
    elif "-L" in opts or "--list-gpus" in opts:
        for gpu in state["gpus"]:
            sys.stdout.write(f"GPU {gpu['index']}: {gpu['name']} (UUID: {gpu['uuid']})\n")
    else:
        sys.stdout.write("fake nvidia-smi: use --query-gpu=... or --query-compute-apps=...\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

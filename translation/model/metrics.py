"""Read vLLM's load from its Prometheus ``/metrics`` text. Pure: text in, numbers out.

What the adaptive limiter needs (vLLM exports Prometheus text; counters end in ``_total``):

- ``vllm:num_requests_running`` and ``vllm:num_requests_waiting``: gauges, matched by their FULL
  name, so the newer ``vllm:num_requests_waiting_by_reason{reason=...}`` series never counts
  twice;
- the KV-cache occupancy, 0..1: ``vllm:kv_cache_usage_perc`` (current name) or
  ``vllm:gpu_cache_usage_perc`` (before ~v0.10); a value above 1.5 is taken to be a percentage;
- ``vllm:num_preemptions_total`` (a counter; ``vllm:num_preemptions`` without the suffix is
  accepted too);
- ``vllm:cache_config_info``'s labels ``num_gpu_blocks`` and ``block_size`` when present: the
  size of the KV cache in tokens;
- ``vllm:prompt_tokens_total`` and ``vllm:generation_tokens_total`` (counters).

Every series carries ``model_name`` and ``engine`` labels; with several engines (data
parallel) the counts are added up and the KV occupancy is the highest engine's. Anything absent
is ``None``; text that holds no vLLM series at all parses to ``None`` (not a vLLM).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

RUNNING = "vllm:num_requests_running"
WAITING = "vllm:num_requests_waiting"
KV_USAGE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
PREEMPTIONS = ("vllm:num_preemptions_total", "vllm:num_preemptions")
CACHE_CONFIG = "vllm:cache_config_info"
PROMPT_TOKENS = "vllm:prompt_tokens_total"
GENERATION_TOKENS = "vllm:generation_tokens_total"


@dataclass(frozen=True)
class VLLMLoad:
    """One look at the server. ``None`` means the server did not report that figure."""

    running: int | None = None
    waiting: int | None = None
    kv_usage: float | None = None
    preemptions_total: int | None = None
    kv_capacity_tokens: int | None = None
    prompt_tokens_total: int | None = None
    generation_tokens_total: int | None = None


@dataclass(frozen=True)
class Series:
    name: str
    labels: dict[str, str]
    value: float


def parse_series(text: str) -> Iterator[Series]:
    """Every sample line of a Prometheus text exposition (comments and bad lines skipped)."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parsed = _parse_line(line)
        if parsed is not None:
            yield parsed


def parse_load(text: str) -> VLLMLoad | None:
    """vLLM's load from ``/metrics`` text; ``None`` when it holds no ``vllm:`` series at all."""
    sums: dict[str, float] = {}
    kv_by_name: dict[str, float] = {}
    capacity: int | None = None
    seen_vllm = False
    for series in parse_series(text):
        if not series.name.startswith("vllm:"):
            continue
        seen_vllm = True
        value = series.value
        if math.isnan(value) or math.isinf(value):
            continue
        if series.name in (RUNNING, WAITING, PROMPT_TOKENS, GENERATION_TOKENS, *PREEMPTIONS):
            sums[series.name] = sums.get(series.name, 0.0) + value
        elif series.name in KV_USAGE:
            kv_by_name[series.name] = max(kv_by_name.get(series.name, 0.0), value)
        elif series.name == CACHE_CONFIG:
            capacity = _kv_capacity(series.labels) or capacity
    if not seen_vllm:
        return None
    kv = next((kv_by_name[name] for name in KV_USAGE if name in kv_by_name), None)
    if kv is not None and kv > 1.5:  # a percentage, not a fraction
        kv /= 100.0
    preemptions = next((sums[name] for name in PREEMPTIONS if name in sums), None)
    return VLLMLoad(
        running=_count(sums.get(RUNNING)),
        waiting=_count(sums.get(WAITING)),
        kv_usage=None if kv is None else min(max(kv, 0.0), 1.0),
        preemptions_total=_count(preemptions),
        kv_capacity_tokens=capacity,
        prompt_tokens_total=_count(sums.get(PROMPT_TOKENS)),
        generation_tokens_total=_count(sums.get(GENERATION_TOKENS)),
    )


def _count(value: float | None) -> int | None:
    return None if value is None else max(0, round(value))


def _kv_capacity(labels: dict[str, str]) -> int | None:
    try:
        blocks = int(float(labels["num_gpu_blocks"]))
        size = int(float(labels["block_size"]))
    except (KeyError, ValueError):
        return None
    return blocks * size if blocks > 0 and size > 0 else None


def _parse_line(line: str) -> Series | None:
    """``name{a="x",b="y"} value [timestamp]``; label values may hold escaped quotes and '}'."""
    brace = line.find("{")
    space = _first_space(line)
    labels: dict[str, str] = {}
    if brace != -1 and (space == -1 or brace < space):
        name = line[:brace]
        parsed = _parse_labels(line, brace + 1)
        if parsed is None:
            return None
        labels, end = parsed
        rest = line[end:]
    elif space != -1:
        name, rest = line[:space], line[space:]
    else:
        return None
    fields = rest.split()
    if not name or not fields:
        return None
    try:
        value = float(fields[0])
    except ValueError:
        return None
    return Series(name, labels, value)


def _first_space(line: str) -> int:
    positions = [i for i in (line.find(" "), line.find("\t")) if i != -1]
    return min(positions) if positions else -1


def _parse_labels(line: str, start: int) -> tuple[dict[str, str], int] | None:
    """Labels from just after ``{``; returns them and the index just after ``}``."""
    labels: dict[str, str] = {}
    i, n = start, len(line)
    while i < n:
        while i < n and line[i] in " ,":
            i += 1
        if i < n and line[i] == "}":
            return labels, i + 1
        eq = line.find("=", i)
        if eq == -1 or eq + 1 >= n or line[eq + 1] != '"':
            return None
        key = line[i:eq].strip()
        i = eq + 2
        value: list[str] = []
        while i < n and line[i] != '"':
            if line[i] == "\\" and i + 1 < n:
                escaped = line[i + 1]
                value.append("\n" if escaped == "n" else escaped)
                i += 2
            else:
                value.append(line[i])
                i += 1
        if i >= n:
            return None
        labels[key] = "".join(value)
        i += 1
    return None

"""Throughput bench (issue 6): fixed 4, fixed 64 and adaptive concurrency on modelled GPUs.

Each run translates the same real paper (``../shared/corpus``; a synthetic PDF of paragraphs
with realistic lengths where the corpus is missing) through the real ``Translator`` and
``LLMClient`` against the fake vLLM as a real process, with its capacity model switched on
(``tests/fakes/fake_vllm.py`` documents the model). A fresh fake and a fresh cache per run.

Columns: ``wall`` is the translation phase (from the pipeline's first "translating" progress
event to its last, which follows the last answer; extraction and rendering are not LLM work);
``ideal`` is ``CapacityModel.ideal_s`` of the requests the fake actually served, a lower bound
(all the work at a full batch); ``peak wait``, ``mean wait`` (vLLM's waiting queue averaged over
the engine steps) and ``preempt`` are the fake's exact figures, not samples. ``limit`` is the
limiter's at the end.

A second table says where ``wall`` went, from the fake's stats: ``lead-in`` (the phase's start
to the engine's first step: the client starting its requests), ``busy`` (the modelled engine
time: ``ideal`` plus the loss of partial batches, ``tail`` the part after the last arrival, plus
recompute), ``lag`` (the engine's wall time over its model: CPU starvation), ``idle`` (the
engine had nothing to do) and ``pages`` (typesetting the pages that were still waiting for an
answer, after the last one; until issue 13's follow-up this was counted in ``wall``, so the old
ratio is (wall + pages) / ideal).

The fake's clock runs at ``TIME_SCALE`` of the modelled GPU's (faster), and the adaptive
limiter's clock (``poll_s``, ``settle_s``) is scaled the same way, so both sides see the same
number of engine steps per look as they would on the card. The client's own CPU time per
request is NOT scaled: here it weighs 1/TIME_SCALE times more than next to a real GPU, against
every mode alike.

Then the cache-hit path (the same paper again: no LLM call) and the time from "vLLM listens"
to the first translation request through the real manager with a local launcher (health
polling).
"""

from __future__ import annotations

import asyncio
import random
import shlex
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pymupdf

from common.language import Language
from common.progress import Progress, Stage
from common.settings import ConcurrencyMode, ManagerKind, Settings, load_settings
from tests.fakes.fake_vllm import CapacityModel
from tests.helpers.net import free_port
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess, fake_vllm_argv
from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.model.limiter import FixedLimiter, Limiter
from translation.model.llm import readiness_probe
from translation.pipeline import Translator
from translation.request import TranslationRequest
from vllm_manager.gpu_model import GPUStatus
from vllm_manager.local import LocalLauncher
from vllm_manager.manager import VLLMManager

REPO = Path(__file__).resolve().parent.parent
CORPUS_PAPER = REPO.parent / "shared" / "corpus" / "01_acl2020_specter_2col_math.pdf"
MODEL = "google/translategemma-27b-it"
#: The fake GPU runs this much faster than the card it models (and the limiter's clock too).
TIME_SCALE = 0.2
#: German: the fake's pseudo-translation keeps word lengths, so answers are about as long as
#: their sources, like real translations; its Korean pseudo-words are a third as long.
SOURCE, TARGET = Language("en"), Language("de")


@dataclass(frozen=True)
class Capacity:
    name: str
    model: CapacityModel
    max_model_len: int = 4096


def capacities() -> list[Capacity]:
    """The modelled cards. KV sizes follow deploy/vllm's budgets (FP8 KV, 16-token blocks).

    4 slots: a small setup where the slots bind. 32 slots: the 32 GB profile (~10 GB of KV,
    ample for 32 sequences). KV-bound: the 24 GB profile's ~4 GB of KV (16k tokens) with vLLM's
    default --max-num-seqs 256, so the KV cache binds, not the slots: the seeds' failure.
    """
    return [
        Capacity(
            "4 slots",
            CapacityModel(max_num_seqs=4, kv_tokens=8192, token_ms=22.0, time_scale=TIME_SCALE),
        ),
        Capacity(
            "32 slots",
            CapacityModel(
                max_num_seqs=32,
                kv_tokens=40960,
                max_batched_tokens=4096,
                token_ms=22.0,
                time_scale=TIME_SCALE,
            ),
        ),
        Capacity(
            "KV-bound",
            CapacityModel(
                max_num_seqs=256,
                kv_tokens=16384,
                max_batched_tokens=2048,
                token_ms=22.0,
                time_scale=TIME_SCALE,
            ),
            max_model_len=2048,
        ),
    ]


@dataclass
class Outcome:
    capacity: str
    mode: str
    wall_s: float
    ideal_s: float
    peak_waiting: int
    peak_waiting_why: str
    mean_waiting: float
    preemptions: int
    peak_running: int
    generated: int
    requests: int
    limit: int
    behind_s: float
    lead_s: float = 0.0
    busy_s: float = 0.0
    tail_loss_s: float = 0.0
    lag_s: float = 0.0
    idle_s: float = 0.0
    pages_s: float = 0.0

    @property
    def ratio(self) -> float:
        return self.wall_s / self.ideal_s if self.ideal_s else float("nan")


class _Phase:
    """Times the translating phase from the pipeline's progress events, in ``time.time()`` (the
    fake's stats use that clock too). The phase ends at the last "translating" event (sent once
    the last answer is in the cache), not at "rendering": that one waits for the pages still
    being typeset, which is PDF work, not LLM work (``pages_s``)."""

    def __init__(self) -> None:
        self.started: float | None = None
        self.last_answer: float | None = None
        self.rendering: float | None = None

    def __call__(self, event: Progress) -> None:
        now = time.time()
        if event.stage is Stage.TRANSLATING:
            if self.started is None:
                self.started = now
            self.last_answer = now
        elif event.stage is Stage.RENDERING and self.rendering is None:
            self.rendering = now

    @property
    def seconds(self) -> float:
        assert self.started is not None and self.last_answer is not None
        return self.last_answer - self.started

    @property
    def pages_s(self) -> float:
        assert self.last_answer is not None and self.rendering is not None
        return self.rendering - self.last_answer


async def _ready(_: Callable[[Progress], None]) -> None:
    return None


def _settings(workdir: Path, server: FakeVLLMProcess, **overrides: Any) -> Settings:
    # Every setting the runs depend on is given here, so ZT_* variables cannot change them.
    return load_settings(
        data_dir=workdir,
        llm_base_url=server.base_url,
        llm_model=MODEL,
        llm_api_key=None,
        prompt_format="translategemma",
        source_lang=SOURCE,
        target_lang=TARGET,
        llm_timeout_s=600.0,
        llm_retry_deadline_s=600.0,
        llm_max_attempts=6,
        **overrides,
    )


async def _translate_once(
    paper: bytes,
    workdir: Path,
    server: FakeVLLMProcess,
    make: Callable[[Settings, httpx.AsyncClient], Limiter],
    ensure_ready: Callable[[Callable[[Progress], None]], Awaitable[None]] = _ready,
    again: bool = False,
) -> tuple[_Phase, Limiter, float | None]:
    settings = _settings(workdir, server)
    async with httpx.AsyncClient(timeout=600) as http:
        limiter = make(settings, http)
        translator = Translator.from_settings(settings, ensure_ready, http, limiter)
        request = TranslationRequest(pdf=paper, source_lang=SOURCE, target_lang=TARGET)
        try:
            phase = _Phase()
            result = await translator.translate(request, phase)
            cached_s = None
            if again:
                second = await translator.translate(request)
                assert second.llm_calls == 0, "the second run should be all cache hits"
                cached_s = second.seconds
        finally:
            await translator.aclose()
            await limiter.aclose()
    assert result.llm_calls > 0
    return phase, limiter, cached_s


def _modes() -> list[tuple[str, Callable[[Settings, httpx.AsyncClient], Limiter]]]:
    def adaptive(settings: Settings, http: httpx.AsyncClient) -> Limiter:
        return AdaptiveLimiter.from_settings(
            settings, http, poll_s=1.0 * TIME_SCALE, settle_s=0.1 * TIME_SCALE
        )

    return [
        ("fixed 4", lambda s, h: FixedLimiter(4)),
        ("fixed 64", lambda s, h: FixedLimiter(64)),
        ("adaptive", adaptive),
    ]


async def _bench_capacity(
    paper: bytes, capacity: Capacity, root: Path, cache_hit: list[float]
) -> list[Outcome]:
    outcomes = []
    for mode, make in _modes():
        workdir = Path(tempfile.mkdtemp(dir=root))
        with FakeVLLMFactory(workdir) as factory:
            server = factory.start(
                *capacity.model.flags(),
                "--disable-uvicorn-access-log",
                max_model_len=capacity.max_model_len,
            )
            again = mode == "adaptive" and not cache_hit
            phase, limiter, cached_s = await _translate_once(
                paper, workdir, server, make, again=again
            )
            if cached_s is not None:
                cache_hit.append(cached_s)
            stats = httpx.get(f"{server.root_url}/fake/stats", timeout=10).json()
            served = server.requests(status=200)
        work = [(e["prompt_tokens"], e["completion_tokens"]) for e in served]
        assert phase.started is not None
        engine_wall = float(stats["last_step_end_at"]) - float(stats["first_step_at"])
        idle = float(stats["idle_wall_s"])
        outcomes.append(
            Outcome(
                capacity=capacity.name,
                mode=mode,
                wall_s=phase.seconds,
                ideal_s=capacity.model.ideal_s(work),
                peak_waiting=int(stats["peak_waiting"]),
                peak_waiting_why=str(stats["peak_waiting_why"]),
                mean_waiting=int(stats["waiting_steps"]) / max(1, int(stats["steps"])),
                preemptions=int(stats["preemptions"]),
                peak_running=int(stats["peak_running"]),
                generated=sum(g for _, g in work),
                requests=len(work),
                limit=limiter.limit,
                behind_s=float(stats["behind_s"]),
                lead_s=float(stats["first_step_at"]) - phase.started,
                busy_s=float(stats["busy_s"]),
                tail_loss_s=float(stats["tail_loss_s"]),
                lag_s=engine_wall - idle - float(stats["busy_s"]),
                idle_s=idle,
                pages_s=phase.pages_s,
            )
        )
    return outcomes


# --- "vLLM listens" -> first translation request ---------------------------------------------


class _IdleGPU:
    """A GPU status source that reports an idle card (the bench has no GPU)."""

    async def read(self) -> _Reading:
        status = GPUStatus(
            is_idle=True,
            memory_used_mib=0,
            memory_total_mib=32768,
            utilization_pct=0,
            temperature_c=30,
            checked_at=datetime.now(UTC),
        )
        return _Reading(status, "bench: idle")


@dataclass(frozen=True)
class _Reading:
    status: GPUStatus | None
    reason: str


async def _startup_gap(paper: bytes, root: Path, load_s: float = 1.0) -> float:
    """Seconds from the fake vLLM listening to its first completion request, when a job starts
    with vLLM down and the real manager (local launcher) launches it and polls its health."""
    workdir = Path(tempfile.mkdtemp(dir=root))
    port = free_port()
    argv = fake_vllm_argv(MODEL, port, "--fake-load-s", str(load_s))
    settings = load_settings(
        data_dir=workdir,
        llm_base_url=f"http://127.0.0.1:{port}/v1",
        llm_model=MODEL,
        source_lang=SOURCE,
        target_lang=TARGET,
        manager=ManagerKind.LOCAL,
        vllm_command=shlex.join(argv),
        vllm_idle_shutdown_s=0,
        vllm_stop_grace_s=2.0,
        vllm_workdir="",
        concurrency_mode=ConcurrencyMode.FIXED,
        concurrency=8,
    )
    async with httpx.AsyncClient(timeout=30) as http:
        manager = VLLMManager(
            settings,
            LocalLauncher(settings, http_client=http),
            probe=readiness_probe(settings, http),
            http_client=http,
            status_source=_IdleGPU(),
        )
        translator = Translator.from_settings(settings, manager.ensure_ready, http)
        try:
            request = TranslationRequest(pdf=paper, source_lang=SOURCE, target_lang=TARGET)
            await translator.translate(request)
            stats = (await http.get(f"http://127.0.0.1:{port}/fake/stats")).json()
        finally:
            await translator.aclose()
            await manager.stop_vllm()
            await manager.aclose()
    return float(stats["first_request_at"]) - float(stats["listening_at"])


# --- workload ----------------------------------------------------------------------------------


def _paper() -> tuple[bytes, str]:
    if CORPUS_PAPER.is_file():
        return CORPUS_PAPER.read_bytes(), CORPUS_PAPER.name
    return _synthetic_paper(), "synthetic paper (corpus not found)"


def _synthetic_paper(paragraphs: int = 160, seed: int = 6) -> bytes:
    """Paragraph lengths from a log-normal fit of real papers (median ~30 tokens, long tail)."""
    rng = random.Random(seed)
    words = (
        "the model attention representation citation graph document paper embedding we show "
        "results training data task performance method approach learning baseline evaluation "
        "scientific related work section figure table neural network transformer"
    ).split()
    doc = pymupdf.open()
    page = doc.new_page()
    y = 50.0
    for _ in range(paragraphs):
        n_words = max(4, min(300, int(rng.lognormvariate(3.2, 0.9))))
        text = " ".join(rng.choice(words) for _ in range(n_words)).capitalize() + "."
        height = 14.0 * (1 + len(text) // 90)
        if y + height > 790:
            page, y = doc.new_page(), 50.0
        page.insert_textbox(pymupdf.Rect(50, y, 545, y + height), text, fontsize=10)
        y += height + 10
    data: bytes = doc.tobytes()
    doc.close()
    return data


# --- report ------------------------------------------------------------------------------------


def _table(outcomes: list[Outcome]) -> list[str]:
    head = (
        f"{'capacity':<10} {'mode':<9} {'wall s':>7} {'ideal s':>7} {'ratio':>6} "
        f"{'peak wait':>9} {'mean wait':>9} {'preempt':>7} {'peak run':>8} {'tok/s':>7} "
        f"{'para/s':>7} {'limit':>5}"
    )
    lines = [head, "-" * len(head)]
    for o in outcomes:
        lines.append(
            f"{o.capacity:<10} {o.mode:<9} {o.wall_s:7.2f} {o.ideal_s:7.2f} {o.ratio:6.2f} "
            f"{o.peak_waiting:9d} {o.mean_waiting:9.2f} {o.preemptions:7d} {o.peak_running:8d} "
            f"{o.generated / o.wall_s:7.0f} {o.requests / o.wall_s:7.1f} {o.limit:5d}"
        )
    return lines


def _breakdown(outcomes: list[Outcome]) -> list[str]:
    head = (
        f"{'capacity':<10} {'mode':<9} {'wall s':>7} {'lead-in':>7} {'busy':>6} {'ideal':>6} "
        f"{'tail':>6} {'lag':>6} {'idle':>6} {'pages':>6} {'old ratio':>9}"
    )
    lines = [head, "-" * len(head)]
    for o in outcomes:
        old = (o.wall_s + o.pages_s) / o.ideal_s if o.ideal_s else float("nan")
        lines.append(
            f"{o.capacity:<10} {o.mode:<9} {o.wall_s:7.2f} {o.lead_s:7.2f} {o.busy_s:6.2f} "
            f"{o.ideal_s:6.2f} {o.tail_loss_s:6.2f} {o.lag_s:6.2f} {o.idle_s:6.2f} "
            f"{o.pages_s:6.2f} {old:9.2f}"
        )
    return lines


def _verdict(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for o in outcomes:
        if o.mode != "adaptive":
            continue
        ok = o.ratio <= 1.15 and o.peak_waiting <= 2 and o.preemptions == 0
        lines.append(
            f"  adaptive on {o.capacity}: ratio {o.ratio:.2f} (<= 1.15), peak waiting "
            f"{o.peak_waiting} (<= 2), preemptions {o.preemptions} (0): "
            f"{'MET' if ok else 'NOT MET'}"
        )
        if o.peak_waiting > 2:
            lines.append(
                f"    (at its peak the queue's head waited for: {o.peak_waiting_why}; 'budget' is "
                "a burst of arrivals beyond one engine step's prefill token budget, which vLLM "
                "admits over the next steps)"
            )
        if o.behind_s > 0:
            lines.append(f"    (the fake's clock fell {o.behind_s:.2f} s behind: CPU-starved)")
    return lines


async def _run() -> str:
    paper, name = _paper()
    started = time.monotonic()
    out = [f"throughput: {name}, {SOURCE}->{TARGET}, fake GPU clock x{TIME_SCALE:g}"]
    with tempfile.TemporaryDirectory(prefix="zt-bench-") as tmp:
        root = Path(tmp)
        outcomes: list[Outcome] = []
        cache_hit: list[float] = []
        for capacity in capacities():
            m = capacity.model
            out.append(
                f"  {capacity.name}: --max-num-seqs {m.max_num_seqs}, KV {m.kv_tokens} tokens, "
                f"t1 {m.token_ms:g} ms, alpha {m.batch_slowdown:g}, "
                f"prefill {m.prefill_ms_per_token:g} ms/token"
            )
            outcomes += await _bench_capacity(paper, capacity, root, cache_hit)
        gap = await _startup_gap(paper, root)
    out += [""] + _table(outcomes)
    out += ["", "where the wall time went (seconds; module docstring):"] + _breakdown(outcomes)
    out += ["", "targets:"] + _verdict(outcomes)
    out.append(f"cache-hit path (same paper again, no LLM call): {cache_hit[0]:.2f} s")
    out.append(
        f"vLLM listening -> first translation request (local launcher): {gap:.2f} s (target < 1 s)"
    )
    out.append(f"bench took {time.monotonic() - started:.0f} s")
    return "\n".join(out)


def run() -> str:
    """Run the bench; return its printed report."""
    return asyncio.run(_run())


if __name__ == "__main__":
    print(run())

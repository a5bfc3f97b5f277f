"""Fair-share bench (issue 13): two jobs on one modelled GPU, through one shared limiter.

A 51-page paper (the corpus's 37-page preprint, its 13-page SPECTER paper and one page of
TableFormer, joined) starts; 2 s into its translation an 8-page one (the NAACL paper) is
submitted, through the same ``Translator`` and adaptive limiter, as the server runs two jobs.
The same machinery as ``bench.throughput`` (real ``Translator`` and ``LLMClient``, the fake vLLM
with its capacity model as a real process, its clock and the limiter's at ``TIME_SCALE``).

Printed: the FAIRNESS figure, the short job's time (submission to its PDF) behind the long one
over its time alone on a fresh fake (target: within 1.5x + 2 s); and the whole-server
THROUGHPUT ratio with the two jobs, the translating wall time (the long job's first request to
the last answer of either) over ``CapacityModel.ideal_s`` of every request the fake served, as
``bench.throughput`` computes it for one job, next to the long job's own ratio alone.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.throughput import (
    SOURCE,
    TARGET,
    TIME_SCALE,
    Capacity,
    _Phase,
    _ready,
    _settings,
    capacities,
)
from tests.helpers.pdfgen import join_pages
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.pipeline import Translator
from translation.request import TranslationRequest

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
LONG_PARTS: list[tuple[str, list[int] | None]] = [
    ("05_arxiv2206.10883_multilexsum_1col_preprint_37p.pdf", None),
    ("01_acl2020_specter_2col_math.pdf", None),
    ("04_arxiv2203.00274_tableformer_2col_math_tables.pdf", [0]),
]
SHORT = "02_naacl2018_s2_literature_graph_2col_short.pdf"
#: The short job is submitted this long after the long one's first LLM request (not after its
#: submission: extracting 51 pages takes longer than that on a busy two-core machine).
DELAY_S = 2.0
#: The modelled card: the 32 GB profile.
CAPACITY = "32 slots"


@dataclass(frozen=True)
class Fairness:
    capacity: str
    alone_s: float  # the short job alone, submission to its PDF
    shared_s: float  # the same, while the long one translates
    wall_s: float  # both jobs' translating phase
    ideal_s: float
    requests: int
    long_ratio: float  # the long job's alone: what the two jobs' ratio compares with

    @property
    def fairness(self) -> float:
        return self.shared_s / self.alone_s

    @property
    def ratio(self) -> float:
        return self.wall_s / self.ideal_s if self.ideal_s else float("nan")

    @property
    def met(self) -> bool:
        return self.shared_s <= 1.5 * self.alone_s + 2.0


def _papers() -> tuple[bytes, bytes] | None:
    names = [name for name, _ in LONG_PARTS] + [SHORT]
    if not all((CORPUS / name).is_file() for name in names):
        return None
    long_pdf = join_pages(CORPUS, LONG_PARTS)
    return long_pdf, (CORPUS / SHORT).read_bytes()


@asynccontextmanager
async def _translator(
    workdir: Path,
    server: FakeVLLMProcess,
    *,
    launch_batch: int | None = None,
    **overrides: Any,
) -> AsyncIterator[Translator]:
    settings = _settings(workdir, server, **overrides)
    async with httpx.AsyncClient(timeout=600) as http:
        limiter = AdaptiveLimiter.from_settings(
            settings,
            http,
            poll_s=1.0 * TIME_SCALE,
            settle_s=0.1 * TIME_SCALE,
            launch_batch=launch_batch,
        )
        translator = Translator.from_settings(settings, _ready, http, limiter)
        try:
            yield translator
        finally:
            await translator.aclose()
            await limiter.aclose()


def _request(pdf: bytes, owner: str) -> TranslationRequest:
    return TranslationRequest(pdf=pdf, source_lang=SOURCE, target_lang=TARGET, owner=owner)


def _start(factory: FakeVLLMFactory, capacity: Capacity, *flags: str) -> FakeVLLMProcess:
    return factory.start(
        *capacity.model.flags(),
        "--disable-uvicorn-access-log",
        *flags,
        max_model_len=capacity.max_model_len,
    )


async def _alone(short_pdf: bytes, capacity: Capacity, root: Path) -> float:
    workdir = Path(tempfile.mkdtemp(dir=root))
    with FakeVLLMFactory(workdir) as factory:
        server = _start(factory, capacity)
        async with _translator(workdir, server) as translator:
            began = time.monotonic()
            await translator.translate(_request(short_pdf, "short"))
            return time.monotonic() - began


async def _long_alone(long_pdf: bytes, capacity: Capacity, root: Path) -> float:
    """The long job's translating wall time alone over its ideal."""
    workdir = Path(tempfile.mkdtemp(dir=root))
    with FakeVLLMFactory(workdir) as factory:
        server = _start(factory, capacity)
        async with _translator(workdir, server) as translator:
            phase = _Phase()
            await translator.translate(_request(long_pdf, "long"), phase)
        served = server.requests(status=200)
    work = [(e["prompt_tokens"], e["completion_tokens"]) for e in served]
    return phase.seconds / capacity.model.ideal_s(work)


async def _together(
    long_pdf: bytes, short_pdf: bytes, capacity: Capacity, root: Path
) -> tuple[float, float, float, int]:
    """The short job's time, the translating wall time, its ideal and the requests served."""
    workdir = Path(tempfile.mkdtemp(dir=root))
    with FakeVLLMFactory(workdir) as factory:
        server = _start(factory, capacity)
        async with _translator(workdir, server) as translator:
            long_phase, short_phase = _Phase(), _Phase()
            long_job = asyncio.create_task(
                translator.translate(_request(long_pdf, "long"), long_phase)
            )
            while long_phase.started is None and not long_job.done():
                await asyncio.sleep(0.02)
            await asyncio.sleep(DELAY_S)
            began = time.monotonic()
            await translator.translate(_request(short_pdf, "short"), short_phase)
            shared = time.monotonic() - began
            await long_job
        served = server.requests(status=200)
    assert long_phase.started is not None
    assert long_phase.last_answer is not None and short_phase.last_answer is not None
    wall = max(long_phase.last_answer, short_phase.last_answer) - long_phase.started
    work = [(e["prompt_tokens"], e["completion_tokens"]) for e in served]
    return shared, wall, capacity.model.ideal_s(work), len(work)


async def measure(root: Path) -> Fairness | None:
    """The two-job case on ``CAPACITY``; None where the corpus is missing."""
    papers = _papers()
    if papers is None:
        return None
    long_pdf, short_pdf = papers
    capacity = next(c for c in capacities() if c.name == CAPACITY)
    alone = await _alone(short_pdf, capacity, root)
    long_ratio = await _long_alone(long_pdf, capacity, root)
    shared, wall, ideal, requests = await _together(long_pdf, short_pdf, capacity, root)
    return Fairness(capacity.name, alone, shared, wall, ideal, requests, long_ratio)


def report(result: Fairness | None) -> list[str]:
    if result is None:
        return [f"fairness: corpus not found at {CORPUS}; skipped"]
    r = result
    return [
        f"fairness: a 51-page paper, then an 8-page one {DELAY_S:g} s into its translation, "
        f"{SOURCE}->{TARGET}, {r.capacity}, adaptive, fake GPU clock x{TIME_SCALE:g}",
        f"  short job alone {r.alone_s:.2f} s, behind the long one {r.shared_s:.2f} s: "
        f"fairness {r.fairness:.2f}x (target <= 1.5x + 2 s: {'MET' if r.met else 'NOT MET'})",
        f"  whole server, two jobs: wall {r.wall_s:.2f} s, ideal {r.ideal_s:.2f} s, "
        f"ratio {r.ratio:.2f} ({r.requests} requests; the long job alone: ratio "
        f"{r.long_ratio:.2f})",
    ]


async def _run() -> str:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="zt-bench-fair-") as tmp:
        result = await measure(Path(tmp))
    lines = report(result)
    lines.append(f"bench took {time.monotonic() - started:.0f} s")
    return "\n".join(lines)


def run() -> str:
    """Run the bench; return its printed report."""
    return asyncio.run(_run())


if __name__ == "__main__":
    print(run())

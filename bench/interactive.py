"""Interactive bench (issue 37): a reader's selections sent while a 51-page paper translates.

The paper of ``bench.fairness`` (51 pages, the corpus's preprint, SPECTER paper and a page of
TableFormer) translates through the real ``Translator`` and adaptive limiter against the fake
vLLM with its capacity model (the 32 GB profile, its clock at ``TIME_SCALE``). Before it, on the
same warm fake, lone selections are timed; then one selection is sent at each of ``AFTER_S``
seconds into the paper's translation through ``Translator.translate_snippet`` (the interactive
fair-share class, as the reader endpoints send it).

Printed for each: the WAIT from the call to the request's arrival at vLLM (the fake logs
``arrived_at``), the FIRST TOKEN from the call to the end of the engine step that made the
answer's first token (the fake's ``first_token_at``: the step that admitted it, prefill
included), the whole answer's time (longer beside the paper: every decode step of a full batch
is slower, as on a real card), and the fake's own record of its scheduling (``scheduled``): the
engine it found, the step it arrived in (which it waits out), the steps it waited in vLLM's
queue and why, and the step that admitted it with the prompt tokens that step prefilled. The
verdicts are on the MEDIANS (of the lone ones, and of those beside the paper): one selection's
first token depends on the step it lands in, and this machine is shared. The first token's
target is judged twice: from the call, and from the arrival at vLLM (vLLM's part alone: the
wait before it is our process's, noisy on a shared machine, and has a verdict of its own).
It runs four times (``RUNS``): as the 32 GB launch profile sets things up (vLLM's
``--scheduling-policy priority``: the paper's paragraphs carry priority 1, the selection none,
so it passes those waiting inside vLLM; ``ZT_CONCURRENCY_MAX`` equal to its ``--max-num-seqs``,
so the limit's reserve holds from the start); with the embedded defaults (``make run``: our
manager starts vLLM with the default ``ZT_VLLM_COMMAND``, whose ``--max-num-seqs`` the limit
takes for the batch size until it sees one, under the default ``ZT_CONCURRENCY_MAX`` of 64);
with a vLLM someone else started, priority scheduling on but nothing telling its batch size
(the limit learns it by overshooting it, and a selection in the second or so before that waits
for a paragraph to end); and under ``fcfs`` (the client leaves the priority out after the first
refusal, and the selection queues inside vLLM behind any paragraphs waiting there).
Targets: the shared wait is within one decode step of the lone one, i.e. the selection never
queues behind the paper's paragraphs in our server; and the shared first token is within one
decode step of the lone one on the bench's clock plus the step the selection joins (it cannot be
admitted in the middle of a running step: one step of a full batch, at most). The step is the
modelled card's (``token_ms``, 22 ms); the wait is our own process's time, which the fake's
clock does not scale (the scaled step is printed too; against it the server's event-loop work
beside a paper running at five times a real card's pace shows). The paper's translating time is
printed too: what the paper pays for the selections' precedence.

The five selections' verdicts are a sample; the fake's record of every engine step while the
paper translated (``/fake/steps``: its batch and the prompt tokens it prefilled) says how the
paper's prompts were spread over the steps: the prompt tokens per step (median, 90th and 99th
percentile, most) and, on the modelled clock, the MISS SHARE: the part of the engine's time
spent in steps beyond a full batch's decode step (the step a selection joins, in the
allowance). A selection that arrives at a random moment waits out more than that allowance
about that often, however the prompts are spread (one long step or a few shorter ones): it
is about the share of the card's time the paper's prefill takes, and the five medians are
met or not by chance around it.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.fairness import CAPACITY, DELAY_S, _papers, _request, _start, _translator
from bench.throughput import SOURCE, TARGET, TIME_SCALE, _Phase, capacities
from common.settings import DEFAULT_VLLM_COMMAND, Settings
from common.vllm_identity import command_batch
from tests.fakes.fake_vllm import CapacityModel
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from translation.pipeline import Translator

#: Selections as a reader makes them: sentences of the paper's kind (not in the paper: never
#: a cache hit). The lone ones are timed on the warm fake before the paper starts.
WARM_UP = "A first selection opens the connection to the model server."
LONE = (
    "The proposed encoder reduces the error on every benchmark we consider.",
    "Each document is represented by the average of its sentence embeddings.",
    "We release the code and the annotated summaries under an open licence.",
)
#: Those sent beside the paper, one at each of ``AFTER_S``.
SHARED = (
    "A second selection asks what the attention weights of the last layer mean.",
    "A third selection asks why the decoder is trained on the shorter summaries.",
    "A fourth selection asks how the citation graph was split for the evaluation.",
    "A fifth selection asks whether the baseline saw the same training documents.",
    "A sixth selection asks which of the tables reports the human judgements.",
)
#: When each is sent: seconds into the paper's translation, spaced through it (its first
#: seconds, while the limit may still learn vLLM's batch, to well after it settled). The
#: figure is their MEDIAN: one selection's first token depends on the engine step it lands in.
AFTER_S = (DELAY_S, 3.5, 5.0, 6.5, 8.0)


@dataclass(frozen=True)
class Run:
    """One set-up: vLLM's --scheduling-policy, ZT_CONCURRENCY_MAX (None: the profile's, its
    --max-num-seqs) and the batch size our launch command names (None: not ours)."""

    label: str
    policy: str
    concurrency_max: int | None
    launch_batch: int | None


DEFAULT_MAXIMUM = Settings.model_fields["concurrency_max"].default
RUNS: tuple[Run, ...] = (
    Run("the 32 GB launch profile", "priority", None, None),
    Run("the embedded defaults", "priority", DEFAULT_MAXIMUM, command_batch(DEFAULT_VLLM_COMMAND)),
    Run("someone else's vLLM, batch size not told", "priority", DEFAULT_MAXIMUM, None),
    Run("someone else's vLLM under fcfs", "fcfs", None, None),
)


@dataclass(frozen=True)
class Selection:
    """One selection's times (seconds from the call) and the fake's record of its scheduling."""

    after_s: float  # seconds into the paper's translation it was sent (0: lone)
    paper_in_flight: int  # the paper's requests in flight when it was sent
    wait_s: float  # to its arrival at vLLM
    first_s: float  # to the end of the engine step that made its first token
    admitted_s: float  # to the start of the engine step that admitted it
    answer_s: float  # to the whole answer
    #: The fake's ``scheduled`` record: the engine it found, the steps it waited and why,
    #: the step that admitted it.
    scheduled: dict[str, Any]

    @property
    def waited_steps(self) -> int:
        return int(self.scheduled.get("waited_steps", 0))

    @property
    def in_vllm_s(self) -> float:
        """From its arrival at vLLM to its first token: vLLM's part, without our process's."""
        return self.first_s - self.wait_s

    @property
    def to_step_s(self) -> float:
        """From its arrival at vLLM to the start of the step that admitted it."""
        return self.admitted_s - self.wait_s

    def why(self) -> str:
        r = self.scheduled
        if not r:
            return "no record"
        waited = ", ".join(f"{why} {n}" for why, n in sorted(r["waited"].items())) or "none"
        step_in = "between steps"
        if r["arrived_mid_step"]:
            step_in = (
                f"in a step of {r['arrived_step_batch']} prefilling"
                f" {r['arrived_step_prefill_tokens']} tokens ({r['arrived_step_s'] * 1000:.1f} ms)"
            )
        return (
            f"found {r['arrived_running']} running, {r['arrived_waiting']} waiting, "
            f"{r['arrived_free_blocks']} KV blocks free, {step_in}; waited"
            f" {r['waited_steps']} steps ({waited}) and {self.to_step_s * 1000:.1f} ms; admitted"
            f" in a step of {r['admitted_batch']} prefilling {r['admitted_prefill_tokens']} tokens"
            f" ({r['admitted_step_s'] * 1000:.1f} ms modelled,"
            f" {(self.first_s - self.admitted_s) * 1000:.1f} ms run)"
        )


@dataclass(frozen=True)
class Interactive:
    capacity: str
    run: str  # the set-up's label
    policy: str  # vLLM's --scheduling-policy
    concurrency_max: int  # ZT_CONCURRENCY_MAX
    launch_batch: int | None  # the --max-num-seqs of our launch command, if ours
    step_s: float  # one decode step of a lone sequence on the modelled card
    scaled_step_s: float  # the same on the bench's clock
    #: One engine step of a full batch (the fake's clock): what a request arriving mid-step
    #: waits at most before it can be admitted.
    joined_step_s: float
    lone: tuple[Selection, ...]
    shared: tuple[Selection, ...]
    paper_s: float  # the paper's translating phase (its first request to its last answer)
    #: The fake's engine steps while the paper translated: (sequences, prompt tokens prefilled).
    steps: tuple[tuple[int, int], ...] = ()
    #: What each takes on the bench's clock (``CapacityModel.step_s``).
    step_model: CapacityModel | None = None

    def prefill_percentile(self, share: float) -> int:
        """Prompt tokens prefilled per step of the paper's: that percentile (0..1)."""
        ordered = sorted(prefill for _, prefill in self.steps)
        if not ordered:
            return 0
        return ordered[min(len(ordered) - 1, math.floor(share * len(ordered)))]

    @property
    def miss_share(self) -> float:
        """The part of the paper's engine time beyond a full batch's decode step (module doc)."""
        if not self.steps or self.step_model is None:
            return 0.0
        times = [self.step_model.step_s(batch, prefill) for batch, prefill in self.steps]
        return sum(max(0.0, t - self.joined_step_s) for t in times) / sum(times)

    @property
    def lone_wait_s(self) -> float:
        return statistics.median(s.wait_s for s in self.lone)

    @property
    def lone_first_s(self) -> float:
        return statistics.median(s.first_s for s in self.lone)

    @property
    def shared_wait_s(self) -> float:
        return statistics.median(s.wait_s for s in self.shared)

    @property
    def shared_first_s(self) -> float:
        return statistics.median(s.first_s for s in self.shared)

    @property
    def lone_in_vllm_s(self) -> float:
        return statistics.median(s.in_vllm_s for s in self.lone)

    @property
    def shared_in_vllm_s(self) -> float:
        return statistics.median(s.in_vllm_s for s in self.shared)

    @property
    def allowance_s(self) -> float:
        """What the first token beside the paper may take over the lone one: a decode step on
        the bench's clock plus the step it joins."""
        return self.scaled_step_s + self.joined_step_s

    @property
    def met(self) -> bool:
        return self.shared_wait_s <= self.lone_wait_s + self.step_s

    @property
    def first_token_met(self) -> bool:
        return self.shared_first_s <= self.lone_first_s + self.allowance_s

    @property
    def in_vllm_met(self) -> bool:
        return self.shared_in_vllm_s <= self.lone_in_vllm_s + self.allowance_s


async def _select(
    translator: Translator, server: FakeVLLMProcess, text: str, after_s: float, in_flight: int
) -> Selection:
    sent = time.time()
    await translator.translate_snippet(text, SOURCE, TARGET)
    answered = time.time()
    (entry,) = [e for e in server.requests(status=200) if e["text"] == text]
    first = entry.get("first_token_at")
    first_s = float(first) - sent if first is not None else answered - sent
    scheduled = entry.get("scheduled") or {}
    admitted = scheduled.get("admitted_at")
    arrived_s = float(entry["arrived_at"]) - sent
    return Selection(
        after_s,
        in_flight,
        arrived_s,
        first_s,
        float(admitted) - sent if admitted is not None else arrived_s,
        answered - sent,
        dict(scheduled),
    )


async def measure(root: Path, run: Run = RUNS[0]) -> Interactive | None:
    """The lone selections, then one at each of ``AFTER_S`` into the paper, set up as ``run``."""
    papers = _papers()
    if papers is None:
        return None
    long_pdf, _ = papers
    capacity = next(c for c in capacities() if c.name == CAPACITY)
    workdir = Path(tempfile.mkdtemp(dir=root))
    maximum = capacity.model.max_num_seqs if run.concurrency_max is None else run.concurrency_max
    with FakeVLLMFactory(workdir) as factory:
        server = _start(factory, capacity, "--scheduling-policy", run.policy)
        translating = _translator(
            workdir, server, launch_batch=run.launch_batch, concurrency_max=maximum
        )
        async with translating as translator:
            await _select(translator, server, WARM_UP, 0.0, 0)  # the connection, 1st request
            lone = [await _select(translator, server, text, 0.0, 0) for text in LONE]
            phase = _Phase()
            paper = asyncio.create_task(translator.translate(_request(long_pdf, "long"), phase))
            while phase.started is None and not paper.done():
                await asyncio.sleep(0.02)
            started = time.monotonic()
            shared: list[Selection] = []
            for after_s, text in zip(AFTER_S, SHARED, strict=True):
                await asyncio.sleep(max(0.0, started + after_s - time.monotonic()))
                if paper.done():
                    break
                in_flight = translator.limiter.held("long")
                shared.append(await _select(translator, server, text, after_s, in_flight))
            await paper
        trace = httpx.get(f"{server.root_url}/fake/steps", timeout=10).json()
    if not shared:
        return None
    model = capacity.model
    step = model.token_ms / 1000
    return Interactive(
        capacity.name,
        run.label,
        run.policy,
        maximum,
        run.launch_batch,
        step,
        step * TIME_SCALE,
        model.step_s(model.max_num_seqs, 0),
        tuple(lone),
        tuple(shared),
        phase.seconds,
        _paper_steps(trace, phase),
        model,
    )


def _paper_steps(trace: list[list[float]], phase: _Phase) -> tuple[tuple[int, int], ...]:
    """The engine steps (sequences, prompt tokens prefilled) between the paper's first request
    and its last answer, with more than one sequence (not a selection alone)."""
    started, ended = phase.started or 0.0, phase.last_answer or 0.0
    return tuple(
        (int(row[1]), int(row[3]))
        for row in trace
        if started <= row[0] <= ended and row[1] > 1 and len(row) > 3
    )


def report(result: Interactive | None) -> list[str]:
    if result is None:
        return ["interactive: corpus not found (or the paper ended first); skipped"]
    r = result
    ms = 1000
    sent = ", ".join(f"{s.after_s:g}" for s in r.shared)
    lines = [
        f"interactive ({r.run}): {len(r.shared)} selections {sent} s into a 51-page paper's"
        f" translation, {SOURCE}->{TARGET}, {r.capacity}, adaptive,"
        f" fake GPU clock x{TIME_SCALE:g}, vLLM --scheduling-policy {r.policy},"
        f" ZT_CONCURRENCY_MAX={r.concurrency_max}, launch command's --max-num-seqs:"
        f" {r.launch_batch or 'none'}; the paper translated in {r.paper_s:.2f} s",
        f"  lone (median of {len(r.lone)}): at vLLM after {r.lone_wait_s * ms:.1f} ms, first"
        f" token {r.lone_first_s * ms:.1f} ms",
    ]
    for s in r.shared:
        lines.append(
            f"  at {s.after_s:g} s ({s.paper_in_flight} of the paper's in flight): at vLLM after"
            f" {s.wait_s * ms:.1f} ms, first token {s.first_s * ms:.1f} ms, answered in"
            f" {s.answer_s:.2f} s; {s.why()}"
        )
    lines += [
        f"  beside the paper (median): at vLLM after {r.shared_wait_s * ms:.1f} ms; target:"
        f" within one decode step ({r.step_s * ms:.0f} ms; {r.scaled_step_s * ms:.1f} ms on the"
        f" bench's clock) of the lone wait: {'MET' if r.met else 'NOT MET'}",
        f"  first token (median): lone {r.lone_first_s * ms:.1f} ms, beside the paper"
        f" {r.shared_first_s * ms:.1f} ms; target: within one step of the lone one plus the"
        f" step it joined ({r.joined_step_s * ms:.1f} ms): "
        f"{'MET' if r.first_token_met else 'NOT MET'}",
        f"  arrival at vLLM to first token (median; vLLM's part, without our process's wait):"
        f" lone {r.lone_in_vllm_s * ms:.1f} ms, beside the paper {r.shared_in_vllm_s * ms:.1f}"
        f" ms; the same target: {'MET' if r.in_vllm_met else 'NOT MET'}",
        f"  the paper's {len(r.steps)} engine steps (the fake's records): prompt tokens"
        f" prefilled per step median {r.prefill_percentile(0.5)}, 90th percentile"
        f" {r.prefill_percentile(0.9)}, 99th {r.prefill_percentile(0.99)}, most"
        f" {r.prefill_percentile(1.0)}; miss share {r.miss_share * 100:.0f} % (engine time"
        f" beyond a full batch's decode step: about how often a selection misses)",
    ]
    return lines


async def _run() -> str:
    started = time.monotonic()
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="zt-bench-interactive-") as tmp:
        for run in RUNS:
            lines += report(await measure(Path(tmp), run))
    lines.append(f"bench took {time.monotonic() - started:.0f} s")
    return "\n".join(lines)


def run() -> str:
    """Run the bench; return its printed report."""
    return asyncio.run(_run())


if __name__ == "__main__":
    print(run())

"""Interactive bench (issue 37): a reader's selection sent while a 51-page paper translates.

The paper of ``bench.fairness`` (51 pages, the corpus's preprint, SPECTER paper and a page of
TableFormer) translates through the real ``Translator`` and adaptive limiter against the fake
vLLM with its capacity model (the 32 GB profile, its clock at ``TIME_SCALE``). Before it, on the
same warm fake, a lone selection is timed; 2 s into the paper's translation the same kind of
selection is sent through ``Translator.translate_snippet`` (the interactive fair-share class, as
the reader endpoints send it).

Printed for both: the WAIT from the call to the request's arrival at vLLM (the fake logs
``arrived_at``), the FIRST TOKEN from the call to the end of the engine step that made the
answer's first token (the fake's ``first_token_at``: the step that admitted it, prefill
included), and the whole answer's time (longer beside the paper: every decode step of a full
batch is slower, as on a real card).
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
beside a paper running at five times a real card's pace shows).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.fairness import CAPACITY, DELAY_S, _papers, _request, _start, _translator
from bench.throughput import SOURCE, TARGET, TIME_SCALE, _Phase, capacities
from common.settings import DEFAULT_VLLM_COMMAND, Settings
from common.vllm_identity import command_batch
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from translation.pipeline import Translator

#: Selections as a reader makes them: a sentence of the paper's kind (not in the paper: never
#: a cache hit).
LONE = "The proposed encoder reduces the error on every benchmark we consider."
WARM_UP = "A first selection opens the connection to the model server."
SHARED = "A second selection asks what the attention weights of the last layer mean."
#: A third, once the paper's translation has settled (its limit learned vLLM's batch size).
SETTLED = "A third selection asks why the decoder is trained on the shorter summaries."
#: When the third is sent: seconds into the paper's translation.
SETTLED_S = 6.0


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
class Interactive:
    capacity: str
    run: str  # the set-up's label
    policy: str  # vLLM's --scheduling-policy
    concurrency_max: int  # ZT_CONCURRENCY_MAX
    launch_batch: int | None  # the --max-num-seqs of our launch command, if ours
    after_s: float  # seconds into the paper's translation the selection was sent
    step_s: float  # one decode step of a lone sequence on the modelled card
    scaled_step_s: float  # the same on the bench's clock
    lone_wait_s: float
    lone_answer_s: float
    shared_wait_s: float
    shared_answer_s: float
    paper_in_flight: int  # the paper's requests in flight when the selection was sent
    lone_first_s: float  # the call to the first token
    shared_first_s: float
    #: One engine step of the batch the selection joined (the fake's clock): what a request
    #: arriving mid-step waits at most before it can be admitted.
    joined_step_s: float

    @property
    def met(self) -> bool:
        return self.shared_wait_s <= self.lone_wait_s + self.step_s

    @property
    def first_token_met(self) -> bool:
        return self.shared_first_s <= self.lone_first_s + self.scaled_step_s + self.joined_step_s


async def _select(
    translator: Translator, server: FakeVLLMProcess, text: str
) -> tuple[float, float, float]:
    """(wait until vLLM had it, whole answer, first token) of one selection, in seconds."""
    sent = time.time()
    await translator.translate_snippet(text, SOURCE, TARGET)
    answered = time.time()
    (entry,) = [e for e in server.requests(status=200) if e["text"] == text]
    first = entry.get("first_token_at")
    first_s = float(first) - sent if first is not None else answered - sent
    return float(entry["arrived_at"]) - sent, answered - sent, first_s


async def measure(root: Path, run: Run = RUNS[0]) -> list[Interactive] | None:
    """The selections at ``DELAY_S`` (the paper's limit perhaps still learning vLLM's batch)
    and at ``SETTLED_S`` into the paper, set up as ``run``."""
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
            await _select(translator, server, WARM_UP)  # the connection and the first request
            lone_wait, lone_answer, lone_first = await _select(translator, server, LONE)
            phase = _Phase()
            paper = asyncio.create_task(translator.translate(_request(long_pdf, "long"), phase))
            while phase.started is None and not paper.done():
                await asyncio.sleep(0.02)
            started = time.monotonic()
            shared: list[tuple[float, int, tuple[float, float, float]]] = []
            for after_s, text in ((DELAY_S, SHARED), (SETTLED_S, SETTLED)):
                await asyncio.sleep(max(0.0, started + after_s - time.monotonic()))
                if paper.done():
                    break
                in_flight = translator.limiter.held("long")
                shared.append((after_s, in_flight, await _select(translator, server, text)))
            await paper
    step = capacity.model.token_ms / 1000
    model = capacity.model
    return [
        Interactive(
            capacity.name,
            run.label,
            run.policy,
            maximum,
            run.launch_batch,
            after_s,
            step,
            step * TIME_SCALE,
            lone_wait,
            lone_answer,
            wait,
            answer,
            in_flight,
            lone_first,
            first,
            model.step_s(min(in_flight + 1, model.max_num_seqs), 0),
        )
        for after_s, in_flight, (wait, answer, first) in shared
    ]


def report(results: list[Interactive] | None) -> list[str]:
    if results is None:
        return ["interactive: corpus not found; skipped"]
    lines: list[str] = []
    for r in results:
        lines += _report(r)
    return lines


def _report(r: Interactive) -> list[str]:
    return [
        f"interactive ({r.run}): a selection {r.after_s:g} s into a 51-page paper's "
        f"translation, {SOURCE}->{TARGET}, {r.capacity}, adaptive, fake GPU clock"
        f" x{TIME_SCALE:g}, vLLM --scheduling-policy {r.policy}, ZT_CONCURRENCY_MAX="
        f"{r.concurrency_max}, launch command's --max-num-seqs: {r.launch_batch or 'none'}",
        f"  lone: at vLLM after {r.lone_wait_s * 1000:.1f} ms, answered in {r.lone_answer_s:.2f} s",
        f"  beside the paper ({r.paper_in_flight} of its requests in flight): at vLLM after "
        f"{r.shared_wait_s * 1000:.1f} ms, answered in {r.shared_answer_s:.2f} s",
        f"  target: within one decode step ({r.step_s * 1000:.0f} ms; {r.scaled_step_s * 1000:.1f}"
        f" ms on the bench's clock) of the lone wait: {'MET' if r.met else 'NOT MET'}",
        f"  first token: lone {r.lone_first_s * 1000:.1f} ms, beside the paper"
        f" {r.shared_first_s * 1000:.1f} ms; target: within one step of the lone one plus the"
        f" step it joined ({r.joined_step_s * 1000:.1f} ms): "
        f"{'MET' if r.first_token_met else 'NOT MET'}",
    ]


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

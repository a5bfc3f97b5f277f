"""A fake ``vllm serve`` that speaks vLLM's OpenAI-compatible HTTP API without a GPU.

STANDARD LIBRARY ONLY: a Jupyter terminal's login shell runs it with whatever ``python3`` is on
PATH. Run it as ``tests/fakes/vllm serve MODEL --port P ...`` or
``python3 tests/fakes/fake_vllm.py serve MODEL --port P ...``.

Faithful to vLLM where clients can tell:
- While "loading" (``--fake-load-s``) the port is bound but not listening: connections are
  refused, as with real vLLM. Then it logs "Starting vLLM API server on http://HOST:PORT".
- ``/health`` (200, empty body), ``/v1/models`` (with ``max_model_len``), ``/v1/chat/completions``,
  ``/v1/completions``, ``/metrics`` (Prometheus text, labels ``model_name`` and ``engine="0"``).
  ``--api-key`` (or ``VLLM_API_KEY``) guards ``/v1/*`` only.
- TranslateGemma's chat template is strict: one user message whose content is a list of exactly
  one text part with ``source_lang_code``/``target_lang_code`` from its map; a system message or
  a plain string content is a 400 template error; so is an unknown code (``zh-CN`` included).
  A model whose name lacks "translategemma" uses a general chat template instead: system + user
  messages, translated into the language the system prompt names as "to NAME (code)".
- Errors use vLLM's wording: "The model `x` does not exist." (404) and "This model's maximum
  context length is N tokens. However, you requested M tokens (P in the messages, C in the
  completion). ..." (400). ``max_tokens`` truncates (finish_reason "length"); ``usage`` is filled.

Token counts are ESTIMATES: ceil(characters / 4) of the rendered prompt (the TranslateGemma
instruction included) and of the answer. Answers are ``pseudo_translate(text, target_code)``.

Fake-only flags (``--fake-*``) make it slow, flaky, crash, die, think or log; see ``--help``.
``GET /fake/requests`` lists the source texts translated so far; ``--fake-request-log PATH``
appends one JSON line per completion request (with its prompt and completion tokens), for tests
in other processes. ``GET /fake/stats`` gives the engine's exact peaks and counters, and when it
started listening and got its first completion request; ``GET /fake/steps`` (capacity model)
lists each engine step as ``[wall time, batch, waiting, prompt tokens prefilled]``.
``--fake-no-metrics``: /metrics is 404.
``--fake-hold-after N``: generations after the Nth run, their slots held, until
``POST /fake/release`` (without a capacity model); ``--fake-gather N``: the first N completion
requests wait until all N have come, then reach the engine together.

SLEEP MODE (issue 11). With ``--enable-sleep-mode``
AND ``VLLM_SERVER_DEV_MODE=1`` in the environment (either alone: the routes are 404, as in vLLM):
``POST /sleep?level=1|2``, ``POST /wake_up`` (optional ``?tags=weights`` / ``?tags=kv_cache``;
asleep until both are back), ``GET /is_sleeping`` -> ``{"is_sleeping": bool}``,
``POST /reset_prefix_cache``. ``--fake-sleep-s`` / ``--fake-wake-s`` are how long the offload and
the wake take. The hazards are modelled as the engine dying (``/health`` 503 from then on, every
completion a 500), which is what the reports describe (vLLM #15483, #45520): a completion that
arrives while asleep, or a ``/sleep`` while a request runs. ``GET /fake/stats`` counts
``sleeps``, ``wakes``, ``prefix_cache_resets``, ``completions_while_asleep`` and
``sleeps_under_load``; tests assert the last two stay 0. While asleep the process writes a
marker file, :func:`sleep_marker` (its pid and start time), and the fake nvidia-smi then reports
this process, and the engine core child, at the rule's ``asleep_mib`` (default 1024 MiB: the
CUDA context left on the card). ``/health`` stays 200 while asleep, as in vLLM.

CAPACITY MODEL (issue 6; off unless ``--fake-token-ms`` > 0). A model of vLLM V1's continuous
batching on one GPU, made to be argued with, not to flatter any client. A scheduler thread runs
engine steps back to back while there is work:

- Each step makes one token for every sequence in the batch. A step with b sequences that also
  prefills P prompt tokens takes ``t1 * (1 + alpha * (b - 1)) + tp * P`` (``--fake-token-ms``
  t1, ``--fake-batch-slowdown`` alpha, ``--fake-prefill-ms-per-token`` tp), all multiplied by
  ``--fake-time-scale``. Decoding is memory-bound, so a bigger batch costs a little more per
  step and yields much more per second; alpha says how much more.
- At most ``--max-num-seqs`` sequences run at once. KV lives in blocks of ``--fake-block-size``
  tokens (vLLM: 16) out of ``--fake-kv-tokens`` (default max-model-len x max-num-seqs, so only
  the slots bind). A sequence holds blocks for its prompt plus what it generated so far.
- Scheduling, as vLLM V1 does it: first the running sequences, oldest first, each getting room
  for the token it computes now; when no block is free the NEWEST running sequence is preempted
  (blocks freed, back to the head of the queue; on readmission its prompt and the tokens it had
  made are prefilled again: recompute). Then, unless the step preempted, waiting requests are
  admitted first come first served while a slot, blocks for their prompt and the step's token
  budget (``--max-num-batched-tokens``, default 2048) allow. A prompt is prefilled whole in the
  step that admits it (vLLM would chunk a long one over several steps at about the same cost).
  There is no reserve for the answers' growth: admission fills the cache, growth preempts.
- ``--scheduling-policy priority`` (vLLM's flag): the waiting queue is ordered by each request's
  ``priority`` (lower first), then arrival, and the running sequence preempted is the one of
  the highest (priority, arrival), not the newest, as in vLLM V1's scheduler. No running
  sequence is preempted to make a batch slot for a waiting one (vLLM does not either). Under
  the default ``fcfs`` a request whose ``priority`` is not 0 is refused with vLLM's 400 "Got
  priority N but Priority scheduling is not enabled." (logged with its status), whichever
  engine runs; without the capacity model priorities order nothing.
- A request's tokens come from the text (the estimates above); its answer is decided when it
  arrives and is sent when its last token is made. A client that disconnects does not abort it.
- /metrics tells the truth about the model: ``num_requests_running``/``num_requests_waiting``
  and ``kv_cache_usage_perc`` (blocks used / blocks) as they stand after each step's scheduling
  (when vLLM records them), ``num_preemptions_total``, token counters, and
  ``cache_config_info`` with ``num_gpu_blocks`` and ``block_size``.
- ``CapacityModel.ideal_s`` is the matching lower bound on the time of a set of requests.
- The stepped clock keeps absolute time (a late step shortens the next sleep); if the CPU
  cannot keep up for more than 0.25 s it drops the debt and counts it in ``behind_s``.
- Stats: where the modelled time went. ``busy_s`` (all steps) = ``prefill_s`` + every generated
  token at the full-batch rate (what ``ideal_s`` assumes) + the loss of steps run with fewer
  sequences than ``--max-num-seqs``: ``loss_underfed_s`` when nothing waited (the client sent
  too little) and ``loss_blocked_s`` when requests waited for KV or the prefill budget.
  ``tail_steps``/``tail_busy_s``/``tail_loss_s`` count from the last request's arrival. Wall
  clock (``time.time()``): ``first_step_at``, ``last_step_end_at`` and ``idle_wall_s`` (no work
  in between), so the engine's lag behind its model is (span - idle) - busy_s.
- Per request (``scheduled`` in its ``--fake-request-log`` line): the engine it found on arrival
  (running, waiting, free blocks, and the step then running, which it waits out: its batch,
  prefill tokens and modelled time), the steps it then waited before its first admission by
  why the admission stopped short of it (``slots``, ``kv``, ``budget``, ``preemption``: the step
  preempted, so it admitted none, as vLLM V1's scheduler skips its waiting queue after a
  preemption; ``queue``: others ahead of it took what there was), the step that admitted it
  (batch, prefill tokens, modelled time, wall start) and how often it was preempted. Per
  priority, /fake/stats has ``peak_waiting_by_priority`` and ``most_steps_waited_by_priority``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

if __package__ in (None, ""):  # run as a script: make ``tests.fakes`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fakes.pseudo import pseudo_translate

FAKE_VERSION = "0.11.0+fake"
DEFAULT_MAX_MODEL_LEN = 4096
DEFAULT_MAX_NUM_SEQS = 256  # vLLM's API-server default on GPUs under 70 GiB

# The codes TranslateGemma's template map accepts, as far as the fake models it: bare ISO-639-1
# codes, script-tagged Chinese and common BCP-47 region forms. Deliberately NOT "zh", "zh-CN" or
# "zh-TW": clients must map those first (common/language.py does).
_TG_NAMES = {
    "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan", "cs": "Czech",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish",
    "et": "Estonian", "fa": "Persian", "fi": "Finnish", "fil": "Filipino", "fr": "French",
    "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian",
    "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese", "kn": "Kannada",
    "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "ml": "Malayalam", "mr": "Marathi",
    "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi", "pl": "Polish", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian",
    "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zu": "Zulu",
    "zh-Hans": "Chinese (Simplified)", "zh-Hant": "Chinese (Traditional)",
}  # fmt: skip
_TG_REGIONS = (
    "ar-EG ar-SA cs-CZ de-DE en-GB en-US es-ES es-MX fr-CA fr-FR hi-IN it-IT ja-JP ko-KR "
    "nl-NL pl-PL pt-BR pt-PT ru-RU sv-SE sw-KE sw-TZ tr-TR uk-UA vi-VN"
).split()
TEMPLATE_LANGUAGES: dict[str, str] = dict(_TG_NAMES)
TEMPLATE_LANGUAGES.update({code: _TG_NAMES[code.split("-")[0]] for code in _TG_REGIONS})

_TG_PART_ERROR = (
    "User role must provide `content` as an iterable with exactly one item. That item must be a "
    "mapping(type:'text' | 'image', source_lang_code:string, target_lang_code:string, "
    "text:string | none, image:string | none)."
)


def estimate_tokens(text: str) -> int:
    """The fake's tokenizer: ceil(len / 4), at least 1 for non-empty text."""
    return math.ceil(len(text) / 4)


def render_translategemma(text: str, source_code: str, target_code: str) -> str:
    """The user turn TranslateGemma's chat template renders, without ``<bos>``."""
    src, tgt = TEMPLATE_LANGUAGES[source_code], TEMPLATE_LANGUAGES[target_code]
    return (
        "<start_of_turn>user\n"
        f"You are a professional {src} ({source_code}) to {tgt} ({target_code}) translator. "
        f"Your goal is to accurately convey the meaning and nuances of the original {src} "
        f"text while adhering to {tgt} grammar, vocabulary, and cultural sensitivities.\n"
        f"Produce only the {tgt} translation, without any additional explanations or "
        f"commentary. Please translate the following {src} text into {tgt}:\n\n\n"
        f"{text.strip()}<end_of_turn>\n<start_of_turn>model\n"
    )


_RENDERED = re.compile(
    r"^<start_of_turn>user\nYou are a professional (?P<sname>[^\n]+?) \((?P<src>[^()\s]+)\) to "
    r"(?P<tname>[^\n]+?) \((?P<tgt>[^()\s]+)\) translator\. [^\n]*\n[^\n]*:\n\n\n"
    r"(?P<text>.*)<end_of_turn>\n<start_of_turn>model\n$",
    re.DOTALL,
)
_CHAT_TARGET = re.compile(r"\bto\s+[^()\n]*?\(([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\)")


# --- configuration ---------------------------------------------------------------------------


@dataclass
class Config:
    model: str
    host: str
    port: int
    served_names: list[str]
    api_key: str | None
    max_model_len: int
    max_num_seqs: int
    template: str  # "translategemma" or "chat"
    access_log: bool
    load_s: float
    crash_during_load: bool
    latency_s: float
    fail_every: int
    fail_first: int
    fail_status: int
    die_after: int
    health_503: bool
    think: bool
    runaway: bool
    empty_first: int
    drop_lang_codes: bool
    ignore_sigterm: bool
    engine_child: bool
    request_log: Path | None
    capacity: CapacityModel | None = None  # issue 6's capacity model; None = the simple engine
    metrics: bool = True  # False: /metrics answers 404, like a server without Prometheus
    sleep_mode: bool = False  # --enable-sleep-mode and VLLM_SERVER_DEV_MODE=1: routes mounted
    sleep_s: float = 0.0  # how long /sleep takes (weights copied to host RAM)
    wake_s: float = 0.0  # how long /wake_up takes
    garbage_after_wake: bool = False  # woken engines answer health checks but write garbage
    hold_after: int = 0  # generations after the Nth wait for ``POST /fake/release`` (0: none)
    gather: int = 0  # the first N completions wait for each other, then go on together (0: none)
    #: vLLM's --scheduling-policy: "fcfs" (its default) or "priority" (requests' ``priority``).
    scheduling_policy: str = "fcfs"


def _int_with_suffix(value: str) -> int:
    """vLLM accepts ``4096``, ``4k`` or ``4K`` for --max-model-len."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", value)
    if not match:
        raise argparse.ArgumentTypeError(f"invalid length {value!r}")
    scale = {"": 1, "k": 1000, "K": 1024, "m": 1_000_000, "M": 1024 * 1024}[match.group(2)]
    return int(float(match.group(1)) * scale)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vllm", description="Fake vLLM (tests only).")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve MODEL over the OpenAI-compatible API")
    serve.add_argument("model", help="model path or name")
    serve.add_argument("--host", default="127.0.0.1")  # real default: all interfaces
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--served-model-name", nargs="+", default=None)
    serve.add_argument("--api-key", default=None)
    serve.add_argument("--max-model-len", type=_int_with_suffix, default=DEFAULT_MAX_MODEL_LEN)
    serve.add_argument("--max-num-seqs", type=int, default=DEFAULT_MAX_NUM_SEQS)
    serve.add_argument("--disable-uvicorn-access-log", action="store_true")
    serve.add_argument("--scheduling-policy", choices=["fcfs", "priority"], default="fcfs")
    # Used by the capacity model only (prompt tokens admitted per engine step).
    serve.add_argument("--max-num-batched-tokens", type=_int_with_suffix, default=None)
    # Real flags that change nothing here; declared so their values never shift positionals.
    for flag in (
        "--gpu-memory-utilization", "--limit-mm-per-prompt",
        "--chat-template-content-format", "--generation-config", "--kv-cache-dtype",
        "--tensor-parallel-size", "--dtype", "--quantization", "--download-dir",
        "--kv-cache-memory-bytes", "--load-format", "--chat-template", "--tokenizer", "--seed",
        "--swap-space", "--uvicorn-log-level", "--sleep-idle-ttl", "--revision",
        "--pipeline-parallel-size", "--data-parallel-size", "--max-logprobs",
        "--compilation-config", "--speculative-config", "--hf-overrides",
    ):  # fmt: skip
        serve.add_argument(flag)
    for flag in ("-tp", "-pp", "-dp", "-q", "-O"):
        serve.add_argument(flag)
    for flag in (
        "--enforce-eager", "--enable-prefix-caching", "--no-enable-prefix-caching",
        "--trust-remote-code", "--enable-sleep-mode", "--disable-log-requests",
        "--disable-log-stats", "--enable-chunked-prefill", "--enable-log-requests",
    ):  # fmt: skip
        serve.add_argument(flag, action="store_true")
    fake = serve.add_argument_group("fake-only knobs")
    fake.add_argument("--fake-load-s", type=float, default=0.0, help="loading time (refusing)")
    fake.add_argument("--fake-crash-during-load", action="store_true", help="exit 1 when loaded")
    fake.add_argument("--fake-latency-ms", type=float, default=0.0, help="per completion")
    fake.add_argument("--fake-fail-every", type=int, default=0, help="every Nth completion fails")
    fake.add_argument("--fake-fail-first", type=int, default=0, help="first N completions fail")
    fake.add_argument("--fake-fail-status", type=int, default=500, help="status of a failure")
    fake.add_argument("--fake-die-after", type=int, default=0, help="SIGKILL self after N answers")
    fake.add_argument("--fake-health-503", action="store_true", help="/health answers 503")
    fake.add_argument("--fake-think", action="store_true", help="prefix <think>..</think>")
    fake.add_argument("--fake-empty-first", type=int, default=0, help="first N answers empty")
    fake.add_argument("--fake-runaway", action="store_true", help="answers never stop early")
    fake.add_argument(
        "--fake-drop-lang-codes",
        action="store_true",
        help="behave like vLLM before PR #41599: language keys of content parts are dropped",
    )
    fake.add_argument("--fake-template", choices=["translategemma", "chat"], default=None)
    fake.add_argument("--fake-ignore-sigterm", action="store_true")
    fake.add_argument("--fake-engine-child", action="store_true", help="spawn VLLM::EngineCore")
    fake.add_argument("--fake-request-log", type=Path, default=None, help="JSON lines file")
    fake.add_argument("--fake-no-metrics", action="store_true", help="/metrics answers 404")
    fake.add_argument("--fake-sleep-s", type=float, default=0.0, help="time /sleep takes")
    fake.add_argument("--fake-wake-s", type=float, default=0.0, help="time /wake_up takes")
    fake.add_argument(
        "--fake-hold-after",
        type=int,
        default=0,
        help="generations after the Nth hold their slot until POST /fake/release",
    )
    fake.add_argument(
        "--fake-gather",
        type=int,
        default=0,
        help="the first N completions wait for each other, then go on at once",
    )
    fake.add_argument(
        "--fake-garbage-after-wake",
        action="store_true",
        help="after a wake every answer is garbage (health and the one-token probe still pass)",
    )
    model = serve.add_argument_group("fake capacity model (off unless --fake-token-ms > 0)")
    model.add_argument(
        "--fake-token-ms", type=float, default=0.0, help="t1: decode step time of a lone sequence"
    )
    model.add_argument(
        "--fake-batch-slowdown",
        type=float,
        default=CapacityModel.batch_slowdown,
        help="alpha: a step with b sequences takes t1 * (1 + alpha * (b - 1))",
    )
    model.add_argument(
        "--fake-prefill-ms-per-token",
        type=float,
        default=CapacityModel.prefill_ms_per_token,
        help="added to a step per prompt token it prefills",
    )
    model.add_argument(
        "--fake-kv-tokens",
        type=_int_with_suffix,
        default=None,
        help="KV-cache budget in tokens (default: max-model-len x max-num-seqs)",
    )
    model.add_argument("--fake-block-size", type=int, default=CapacityModel.block_size)
    model.add_argument(
        "--fake-time-scale", type=float, default=1.0, help="multiplies every modelled time"
    )
    return parser


def parse_config(argv: list[str]) -> Config:
    args, unknown = build_parser().parse_known_args(argv)
    if unknown:
        _log("WARNING", "arg_utils.py:1842", f"ignoring flags the fake does not know: {unknown}")
    names = args.served_model_name or [args.model]
    template = args.fake_template or (
        "translategemma" if "translategemma" in (args.model + " ".join(names)).lower() else "chat"
    )
    return Config(
        model=args.model,
        host=args.host,
        port=args.port,
        served_names=names,
        api_key=args.api_key or os.environ.get("VLLM_API_KEY") or None,
        max_model_len=args.max_model_len,
        max_num_seqs=max(1, args.max_num_seqs),
        template=template,
        access_log=not args.disable_uvicorn_access_log,
        load_s=args.fake_load_s,
        crash_during_load=args.fake_crash_during_load,
        latency_s=args.fake_latency_ms / 1000,
        fail_every=args.fake_fail_every,
        fail_first=args.fake_fail_first,
        fail_status=args.fake_fail_status,
        die_after=args.fake_die_after,
        health_503=args.fake_health_503,
        think=args.fake_think,
        runaway=args.fake_runaway,
        empty_first=args.fake_empty_first,
        drop_lang_codes=args.fake_drop_lang_codes,
        ignore_sigterm=args.fake_ignore_sigterm,
        engine_child=args.fake_engine_child,
        request_log=args.fake_request_log,
        capacity=_capacity_from_args(args),
        metrics=not args.fake_no_metrics,
        sleep_mode=args.enable_sleep_mode and os.environ.get("VLLM_SERVER_DEV_MODE") == "1",
        sleep_s=args.fake_sleep_s,
        wake_s=args.fake_wake_s,
        garbage_after_wake=args.fake_garbage_after_wake,
        hold_after=args.fake_hold_after,
        gather=args.fake_gather,
        scheduling_policy=args.scheduling_policy,
    )


def _capacity_from_args(args: argparse.Namespace) -> CapacityModel | None:
    if args.fake_token_ms <= 0:
        return None
    max_num_seqs = max(1, args.max_num_seqs)
    return CapacityModel(
        max_num_seqs=max_num_seqs,
        kv_tokens=args.fake_kv_tokens or args.max_model_len * max_num_seqs,
        token_ms=args.fake_token_ms,
        batch_slowdown=args.fake_batch_slowdown,
        prefill_ms_per_token=args.fake_prefill_ms_per_token,
        block_size=max(1, args.fake_block_size),
        max_batched_tokens=args.max_num_batched_tokens or CapacityModel.max_batched_tokens,
        time_scale=args.fake_time_scale,
    )


# --- logging ---------------------------------------------------------------------------------


def _log(level: str, where: str, message: str) -> None:
    stamp = time.strftime("%m-%d %H:%M:%S")
    print(f"{level} {stamp} [{where}] {message}", flush=True)


# --- the engine: admission, generation time, metrics -----------------------------------------


class APIError(Exception):
    """An error answer in vLLM's JSON shape."""

    def __init__(self, status: int, message: str, kind: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.kind, self.param = status, message, kind, param

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.status,
            }
        }


def bad_request(message: str, param: str | None = None) -> APIError:
    return APIError(400, message, "BadRequestError", param)


@dataclass
class Job:
    """One parsed completion request, whatever endpoint it came through."""

    endpoint: str
    model: str
    text: str
    source_lang: str | None
    target_lang: str
    prompt_tokens: int
    max_tokens: int | None
    temperature: float | None
    stream: bool = False
    priority: int = 0  # lower is served earlier (--scheduling-policy priority)
    arrived_at: float = field(default_factory=time.time)  # wall time the request was parsed
    #: Wall time of its first token (the capacity model's engine step; None without it).
    first_token_at: float | None = None
    #: The capacity model's record of how it was scheduled (``_Sequence.record``; {} without).
    scheduled: dict[str, Any] = field(default_factory=dict)


@dataclass
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


@dataclass(frozen=True)
class CapacityModel:
    """Issue 6's model of one GPU running vLLM's continuous batching (module docstring).

    Times are in milliseconds of the modelled GPU; ``time_scale`` multiplies them all (0.1 runs
    the model ten times faster than the GPU it describes). The defaults are rough guesses for a
    4-bit TranslateGemma 27B on one RTX 5090, stated so they can be argued with: ``token_ms``
    22 (about 45 tokens/s for one sequence), ``batch_slowdown`` 0.035 (a 32-sequence step takes
    2.1 times as long as a lone one: about 690 tokens/s in all), ``prefill_ms_per_token`` 0.3
    (about 3,300 prompt tokens/s), vLLM's 16-token KV blocks and a 2,048-token step budget.
    """

    max_num_seqs: int
    kv_tokens: int
    token_ms: float
    batch_slowdown: float = 0.035
    prefill_ms_per_token: float = 0.3
    block_size: int = 16
    max_batched_tokens: int = 2048
    time_scale: float = 1.0

    @property
    def kv_blocks(self) -> int:
        return self.kv_tokens // self.block_size

    def blocks_for(self, tokens: int) -> int:
        return -(-tokens // self.block_size)

    def step_s(self, batch: int, prefill_tokens: int) -> float:
        """Seconds one engine step takes with ``batch`` sequences and that many prompt tokens."""
        decode = self.token_ms * (1.0 + self.batch_slowdown * max(0, batch - 1))
        return self.time_scale * (decode + self.prefill_ms_per_token * prefill_tokens) / 1000.0

    def ideal_s(self, work: list[tuple[int, int]]) -> float:
        """A lower bound on the time to serve ``work`` ((prompt, generated) tokens per request).

        Every step makes one token for each sequence in its batch. So with G tokens to make,
        S steps cost t1 * ((1 - alpha) * S + alpha * G) (for alpha < 1), which is least when S
        is least, and S can be no less than: G / max_num_seqs (a full batch every step); the
        longest answer (its tokens come one step at a time); and C / kv_tokens, where C adds up
        each request's KV held per step, g * p + g * (g + 1) / 2 (the KV cache full every step).
        Every prompt token is prefilled once: plus prefill_ms_per_token * P. Client overheads,
        queueing, block rounding and recomputation are not in it: no schedule beats it.
        """
        if not work:
            return 0.0
        generated = sum(g for _, g in work)
        prompts = sum(p for p, _ in work)
        kv_steps = sum(g * p + g * (g + 1) / 2 for p, g in work)
        steps = max(
            generated / self.max_num_seqs, max(g for _, g in work), kv_steps / self.kv_tokens
        )
        decode = self.token_ms * (
            (1.0 - self.batch_slowdown) * steps + self.batch_slowdown * generated
        )
        return self.time_scale * (decode + self.prefill_ms_per_token * prompts) / 1000.0

    def flags(self) -> list[str]:
        """The ``vllm serve`` flags that start the fake with this model."""
        return [
            "--max-num-seqs", str(self.max_num_seqs),
            "--max-num-batched-tokens", str(self.max_batched_tokens),
            "--fake-kv-tokens", str(self.kv_tokens),
            "--fake-token-ms", repr(self.token_ms),
            "--fake-batch-slowdown", repr(self.batch_slowdown),
            "--fake-prefill-ms-per-token", repr(self.prefill_ms_per_token),
            "--fake-block-size", str(self.block_size),
            "--fake-time-scale", repr(self.time_scale),
        ]  # fmt: skip


@dataclass(eq=False)
class _Sequence:
    """A request inside the stepped engine."""

    prompt_tokens: int
    target_tokens: int  # what the answer needs: one token per step in the batch
    priority: int = 0  # lower first, under --scheduling-policy priority
    order: int = 0  # arrival order: the tie-break (vLLM: arrival time)
    generated: int = 0
    blocks: int = 0  # KV blocks held; 0 while waiting (a preempted sequence keeps `generated`)
    admitted_before: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    first_token_at: float | None = None  # wall time the step that made its first token ended
    #: The engine as the request found it: (running, waiting, free KV blocks).
    arrival: tuple[int, int, int] = (0, 0, 0)
    #: The step running when it arrived, which it waits out: (sequences, prompt tokens
    #: prefilled, modelled seconds); None when it arrived between steps or to an idle engine.
    arrived_in: tuple[int, int, float] | None = None
    #: Steps it waited before its first admission, by why the queue's admission stopped
    #: short of it: slots, kv, budget, preemption (the step preempted: none admitted) or queue
    #: (requests ahead of it in the queue took what there was).
    waited: dict[str, int] = field(default_factory=dict)
    #: The step that first admitted it: (sequences in the batch, prompt tokens prefilled in it,
    #: its modelled seconds): its first token comes at that step's end.
    admitted: tuple[int, int, float] | None = None
    admitted_at: float | None = None  # wall time that step began
    preempted: int = 0  # times it was preempted (and recomputed on readmission)

    def record(self) -> dict[str, Any]:
        """What ``--fake-request-log`` logs of its scheduling (its line's ``scheduled``)."""
        running, waiting, free = self.arrival
        batch, prefill, step_s = self.admitted or (0, 0, 0.0)
        in_batch, in_prefill, in_step_s = self.arrived_in or (0, 0, 0.0)
        return {
            "arrived_running": running,
            "arrived_waiting": waiting,
            "arrived_free_blocks": free,
            "arrived_mid_step": self.arrived_in is not None,
            "arrived_step_batch": in_batch,
            "arrived_step_prefill_tokens": in_prefill,
            "arrived_step_s": in_step_s,
            "waited_steps": sum(self.waited.values()),
            "waited": dict(self.waited),
            "admitted_batch": batch,
            "admitted_prefill_tokens": prefill,
            "admitted_step_s": step_s,
            "admitted_at": self.admitted_at,
            "preempted": self.preempted,
        }


def _rank(sequence: _Sequence) -> tuple[int, int]:
    """Who goes first under ``--scheduling-policy priority``: the lowest (priority, arrival);
    the preempted one is the highest."""
    return sequence.priority, sequence.order


#: The stepped clock may fall this far behind the model (a busy CPU) before it gives up catching
#: up; the steps lost are counted in ``behind_s``.
_MAX_CLOCK_DEBT_S = 0.25


@dataclass
class Engine:
    """Admission and generation: the ONE place requests wait for and hold a batch slot.

    Without a capacity model: at most ``max_num_seqs`` run at once (the rest wait, counted as
    waiting), a fixed ``--fake-latency-ms`` per request and a KV estimate for /metrics. With one
    (``--fake-token-ms``): a scheduler thread runs engine steps as the module docstring says,
    and the /metrics gauges are its figures after each step's scheduling, as in vLLM.
    """

    config: Config
    lock: threading.Lock = field(default_factory=threading.Lock)
    running: int = 0
    waiting: int = 0
    kv_tokens: int = 0
    kv_blocks_used: int = 0
    preemptions: int = 0
    prompt_tokens_total: int = 0
    generation_tokens_total: int = 0
    garbled: bool = False  # set by a wake under --fake-garbage-after-wake
    generated: int = 0
    peak_running: int = 0
    peak_waiting: int = 0
    peak_waiting_why: str = ""  # at the peak: slots, kv, budget (prefill tokens) or preemption
    waiting_steps: int = 0  # requests waiting, added up over the steps (mean = this / steps)
    steps: int = 0
    busy_s: float = 0.0
    behind_s: float = 0.0
    # Where the modelled time went (seconds of the fake's clock; module docstring, "stats").
    prefill_s: float = 0.0
    loss_underfed_s: float = 0.0
    loss_blocked_s: float = 0.0
    tail_loss_s: float = 0.0
    tail_busy_s: float = 0.0
    tail_steps: int = 0
    # Wall clock (time.time()) of the stepped engine, to set against the modelled busy_s.
    first_step_at: float | None = None
    last_step_end_at: float | None = None
    idle_wall_s: float = 0.0
    #: One row per engine step: (wall time it began, sequences in it, sequences left waiting,
    #: prompt tokens it prefilled).
    trace: deque[tuple[float, int, int, int]] = field(
        init=False, default_factory=lambda: deque(maxlen=200_000)
    )
    slots: threading.Semaphore = field(init=False)
    _ready: threading.Condition = field(init=False)
    _queue: deque[_Sequence] = field(init=False, default_factory=deque)
    _batch: list[_Sequence] = field(init=False, default_factory=list)
    _free_blocks: int = field(init=False, default=0)
    #: The step running now (scheduled, not finished): (sequences, prefill tokens, seconds).
    _stepping: tuple[int, int, float] | None = field(init=False, default=None)
    #: Per request priority: the most requests of it waiting at once after a step's scheduling,
    #: and the most steps one of them waited before its first admission (``GET /fake/stats``).
    peak_waiting_by_priority: dict[int, int] = field(init=False, default_factory=dict)
    most_steps_waited_by_priority: dict[int, int] = field(init=False, default_factory=dict)
    #: Set by ``POST /fake/release``: generations past ``--fake-hold-after`` go on.
    released: threading.Event = field(init=False, default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.slots = threading.Semaphore(self.config.max_num_seqs)
        self._ready = threading.Condition(self.lock)
        model = self.config.capacity
        if model is not None:
            self._free_blocks = model.kv_blocks
            threading.Thread(
                target=self._run_steps, args=(model,), name="engine", daemon=True
            ).start()

    @property
    def kv_capacity(self) -> int:
        if self.config.capacity is not None:
            return self.config.capacity.kv_blocks * self.config.capacity.block_size
        return self.config.max_model_len * self.config.max_num_seqs

    def generate(self, job: Job) -> Generation:
        if self.config.capacity is not None:
            return self._generate_stepped(job)
        with self.lock:
            self.waiting += 1
            self.peak_waiting = max(self.peak_waiting, self.waiting)
        self.slots.acquire()
        cost = job.prompt_tokens
        with self.lock:
            self.waiting -= 1
            self.running += 1
            self.peak_running = max(self.peak_running, self.running)
            self.kv_tokens += cost
            self.generated += 1
            number = self.generated
        try:
            if 0 < self.config.hold_after < number:
                self.released.wait()  # running, its slot held, until POST /fake/release
            if self.config.latency_s > 0:
                time.sleep(self.config.latency_s)
            result = self._answer(job, number)
            with self.lock:
                self.prompt_tokens_total += result.prompt_tokens
                self.generation_tokens_total += result.completion_tokens
            return result
        finally:
            with self.lock:
                self.running -= 1
                self.kv_tokens -= cost
            self.slots.release()

    # --- the capacity model: continuous batching in engine steps -----------------------------

    def _generate_stepped(self, job: Job) -> Generation:
        with self.lock:
            self.generated += 1
            number = self.generated
        result = self._answer(job, number)  # decided up front; the steps decide WHEN it is sent
        sequence = _Sequence(
            job.prompt_tokens, max(1, result.completion_tokens), job.priority, number
        )
        with self._ready:
            sequence.arrival = (len(self._batch), len(self._queue), self._free_blocks)
            sequence.arrived_in = self._stepping
            self._queue.append(sequence)
            self.tail_loss_s, self.tail_busy_s, self.tail_steps = 0.0, 0.0, 0
            self._ready.notify()
        sequence.done.wait()
        job.first_token_at = sequence.first_token_at
        job.scheduled = sequence.record()
        return result

    def _run_steps(self, model: CapacityModel) -> None:
        clock: float | None = None
        # What one token costs at a full batch: the rate CapacityModel.ideal_s assumes.
        full_token_s = model.step_s(model.max_num_seqs, 0) / model.max_num_seqs
        while True:
            with self._ready:
                idle_since = time.time() if not self._batch and not self._queue else None
                while not self._batch and not self._queue:
                    clock = None  # idle: the next step starts when work arrives
                    self._ready.wait()
                if self.first_step_at is None:
                    self.first_step_at = time.time()
                elif idle_since is not None:
                    self.idle_wall_s += time.time() - idle_since
                prefill, admitted = self._schedule(model)
                underfed = not self._queue  # else a request waits for KV or the prefill budget
                batch = len(self._batch)
                step = model.step_s(batch, prefill)
                began = time.time()
                for sequence in admitted:
                    sequence.admitted, sequence.admitted_at = (batch, prefill, step), began
                self._stepping = (batch, prefill, step)
                self.trace.append((time.time(), batch, len(self._queue), prefill))
                self.steps += 1
                self.busy_s += step
                self.prefill_s += step - model.step_s(batch, 0)
                loss = model.step_s(batch, 0) - batch * full_token_s
                if underfed:
                    self.loss_underfed_s += loss
                else:
                    self.loss_blocked_s += loss
                self.tail_loss_s += loss
                self.tail_busy_s += step
                self.tail_steps += 1
            now = time.monotonic()
            clock = (now if clock is None else clock) + step
            if clock > now:
                time.sleep(clock - now)
            elif now - clock > _MAX_CLOCK_DEBT_S:
                self.behind_s += now - clock
                clock = now
            with self._ready:
                self._finish_step()
                self._stepping = None
                self.last_step_end_at = time.time()

    def _schedule(self, model: CapacityModel) -> tuple[int, list[_Sequence]]:
        """One scheduling pass as in vLLM V1; returns the prompt tokens prefilled in this step
        and the sequences it admitted for the first time.

        Running sequences first, oldest first: each needs KV room for the token it computes now;
        when no block is free the NEWEST running sequence is preempted (its blocks freed, back to
        the head of the queue, to be recomputed). Then, unless this step preempted, waiting
        sequences are admitted first come first served while a batch slot, KV blocks for their
        prompt (plus what they had generated) and the step's token budget allow.
        """
        by_priority = self.config.scheduling_policy == "priority"
        if by_priority:  # vLLM keeps its waiting requests in a heap by (priority, arrival)
            self._queue = deque(sorted(self._queue, key=_rank))
        preempted = False
        index = 0
        while index < len(self._batch):
            sequence = self._batch[index]
            need = model.blocks_for(sequence.prompt_tokens + sequence.generated + 1)
            while need - sequence.blocks > self._free_blocks:
                at = max(range(len(self._batch)), key=lambda i: _rank(self._batch[i]))
                victim = self._batch.pop(at if by_priority else -1)
                if by_priority and at < index:
                    index -= 1  # an already scheduled one: its blocks come back too
                self._free_blocks += victim.blocks
                victim.blocks = 0
                victim.preempted += 1
                if by_priority:
                    self._queue = deque(sorted([*self._queue, victim], key=_rank))
                else:
                    self._queue.appendleft(victim)
                self.preemptions += 1
                preempted = True
                if victim is sequence:
                    break
            else:
                self._free_blocks -= need - sequence.blocks
                sequence.blocks = need
                index += 1
        budget = model.max_batched_tokens - len(self._batch)
        prefill = 0
        first: list[_Sequence] = []
        blocked = "preemption" if preempted else "slots"
        while not preempted and self._queue and len(self._batch) < model.max_num_seqs:
            sequence = self._queue[0]
            tokens = sequence.prompt_tokens + sequence.generated
            need = model.blocks_for(tokens + 1)
            # A prompt over the budget is prefilled alone (vLLM would chunk it over steps).
            if need > self._free_blocks:
                blocked = "kv"
                break
            if prefill and prefill + tokens > budget:
                blocked = "budget"
                break
            self._queue.popleft()
            self._free_blocks -= need
            sequence.blocks = need
            self._batch.append(sequence)
            prefill += tokens
            if not sequence.admitted_before:
                sequence.admitted_before = True
                self.prompt_tokens_total += sequence.prompt_tokens
                first.append(sequence)
        self._note_waiting(blocked)
        self.running, self.waiting = len(self._batch), len(self._queue)
        self.kv_blocks_used = model.kv_blocks - self._free_blocks
        self.kv_tokens = self.kv_blocks_used * model.block_size
        self.peak_running = max(self.peak_running, self.running)
        self.waiting_steps += self.waiting
        if self.waiting > self.peak_waiting:
            self.peak_waiting, self.peak_waiting_why = self.waiting, blocked
        return prefill, first

    def _note_waiting(self, blocked: str) -> None:
        """Charge this step to every request still waiting: the head of the queue to what
        stopped the admission, the rest to the queue ahead of them (a readmission to none)."""
        count: dict[int, int] = {}
        for place, sequence in enumerate(self._queue):
            count[sequence.priority] = count.get(sequence.priority, 0) + 1
            if sequence.admitted_before:
                continue
            why = blocked if place == 0 or blocked in ("slots", "preemption") else "queue"
            sequence.waited[why] = sequence.waited.get(why, 0) + 1
            waited = sum(sequence.waited.values())
            most = self.most_steps_waited_by_priority
            most[sequence.priority] = max(most.get(sequence.priority, 0), waited)
        for priority, waiting in count.items():
            peak = self.peak_waiting_by_priority
            peak[priority] = max(peak.get(priority, 0), waiting)

    def _finish_step(self) -> None:
        """Every sequence in the batch made one token; the finished ones leave it."""
        still: list[_Sequence] = []
        now = time.time()
        for sequence in self._batch:
            sequence.generated += 1
            if sequence.first_token_at is None:
                sequence.first_token_at = now
            if sequence.generated >= sequence.target_tokens:
                self._free_blocks += sequence.blocks
                sequence.blocks = 0
                sequence.done.set()
            else:
                still.append(sequence)
        self.generation_tokens_total += len(self._batch)
        self._batch = still

    def stats(self) -> dict[str, Any]:
        """The engine's own record (``GET /fake/stats``): peaks are exact, not sampled."""
        with self.lock:
            return {
                "running": self.running,
                "waiting": self.waiting,
                "peak_running": self.peak_running,
                "peak_waiting": self.peak_waiting,
                "peak_waiting_why": self.peak_waiting_why,
                "waiting_steps": self.waiting_steps,
                "preemptions": self.preemptions,
                "steps": self.steps,
                "busy_s": self.busy_s,
                "behind_s": self.behind_s,
                "prefill_s": self.prefill_s,
                "loss_underfed_s": self.loss_underfed_s,
                "loss_blocked_s": self.loss_blocked_s,
                "tail_loss_s": self.tail_loss_s,
                "tail_busy_s": self.tail_busy_s,
                "tail_steps": self.tail_steps,
                "first_step_at": self.first_step_at,
                "last_step_end_at": self.last_step_end_at,
                "idle_wall_s": self.idle_wall_s,
                "prompt_tokens_total": self.prompt_tokens_total,
                "generation_tokens_total": self.generation_tokens_total,
                "kv_capacity_tokens": self.kv_capacity,
                "peak_waiting_by_priority": {
                    str(p): n for p, n in sorted(self.peak_waiting_by_priority.items())
                },
                "most_steps_waited_by_priority": {
                    str(p): n for p, n in sorted(self.most_steps_waited_by_priority.items())
                },
            }

    def _answer(self, job: Job, number: int) -> Generation:
        answer = pseudo_translate(job.text, job.target_lang)
        if self.garbled:
            answer = "<unused42>" * max(1, len(job.text) // 8)
        if number <= self.config.empty_first:
            answer = ""
        if self.config.think:
            answer = (
                "<think>\nThe user wants a translation into "
                f"{job.target_lang}. I will translate it faithfully.\n</think>\n\n{answer}"
            )
        limit = job.max_tokens
        if limit is None:
            limit = max(1, self.config.max_model_len - job.prompt_tokens)
        if self.config.runaway:  # a repetition loop: the answer only ends at max_tokens
            while estimate_tokens(answer) <= limit:
                answer = f"{answer} {answer}"
        if estimate_tokens(answer) > limit:
            return Generation(answer[: limit * 4], job.prompt_tokens, limit, "length")
        return Generation(answer, job.prompt_tokens, estimate_tokens(answer), "stop")

    def metrics(self) -> str:
        label = f'engine="0",model_name="{self.config.served_names[0]}"'
        with self.lock:
            kv = min(1.0, self.kv_tokens / self.kv_capacity) if self.kv_capacity else 0.0
            rows = [
                ("vllm:num_requests_running", "gauge",
                 "Number of requests in model execution batches.", "", self.running),
                ("vllm:num_requests_waiting", "gauge",
                 "Number of requests waiting to be processed.", "", self.waiting),
                ("vllm:num_requests_waiting_by_reason", "gauge",
                 "Number of requests waiting, by reason.", ',reason="capacity"', self.waiting),
                ("vllm:num_requests_waiting_by_reason", "gauge",
                 "Number of requests waiting, by reason.", ',reason="deferred"', 0),
                ("vllm:kv_cache_usage_perc", "gauge",
                 "KV-cache usage. 1 means 100 percent usage.", "", kv),
                ("vllm:num_preemptions_total", "counter",
                 "Cumulative number of preemption from the engine.", "", self.preemptions),
                ("vllm:prompt_tokens_total", "counter",
                 "Number of prefill tokens processed.", "", self.prompt_tokens_total),
                ("vllm:generation_tokens_total", "counter",
                 "Number of generation tokens processed.", "", self.generation_tokens_total),
            ]  # fmt: skip
            model = self.config.capacity
            if model is not None:  # the labels that size the KV cache, as vLLM reports them
                info = f',block_size="{model.block_size}",num_gpu_blocks="{model.kv_blocks}"'
                rows.append(("vllm:cache_config_info", "gauge",
                             "Information of the LLMEngine CacheConfig", info, 1))  # fmt: skip
        lines: list[str] = []
        seen: set[str] = set()
        for name, kind, help_text, extra, value in rows:
            if name not in seen:
                seen.add(name)
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
            lines.append(f"{name}{{{label}{extra}}} {float(value)}")
        return "\n".join(lines) + "\n"


# --- sleep mode ------------------------------------------------------------------------------


def sleep_marker(pid: int) -> Path:
    """The file a fake vLLM with pid ``pid`` keeps while asleep (read by fake_nvidia_smi.py)."""
    return Path(tempfile.gettempdir()) / "fake-vllm-asleep" / str(pid)


def process_start_time(pid: int) -> str:
    """Field 22 of /proc/PID/stat (start time in clock ticks): tells a recycled pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


class SleepState:
    """Sleep mode as the API server sees it: what is offloaded, and whether the engine died.

    The engine dies (and stays dead) on the two hazards of the module docstring; a dead engine
    answers 503 on /health and 500 on completions, as vLLM's EngineDeadError does.
    """

    TAGS = ("weights", "kv_cache")

    def __init__(self, config: Config) -> None:
        self.config = config
        self.lock = threading.Lock()
        self.offloaded: set[str] = set()
        self.level = 0
        self.dead: str | None = None
        self.in_flight = 0
        self.sleeps = 0
        self.wakes = 0
        self.prefix_cache_resets = 0
        self.completions_while_asleep = 0
        self.sleeps_under_load = 0
        self.last_wake_s = 0.0

    @property
    def asleep(self) -> bool:
        return bool(self.offloaded)

    def die(self, why: str) -> None:
        self.dead = why
        _log("ERROR", "core_client.py:564", f"Engine core proc EngineCore_DP0 died: {why}")

    def sleep(self, level: int) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if self.in_flight:
                self.sleeps_under_load += 1
                self.die(
                    f"CUDA error: an illegal memory access was encountered (/sleep with "
                    f"{self.in_flight} request(s) running)"
                )
                return 500, {"error": "EngineDeadError: " + (self.dead or "")}
            if self.asleep:
                return 200, {}
            self.sleeps += 1
            self.level = level
        if self.config.sleep_s > 0:
            time.sleep(self.config.sleep_s)
        with self.lock:
            self.offloaded = set(self.TAGS)
            pid = os.getpid()
            marker = sleep_marker(pid)
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(process_start_time(pid))
        _log("INFO", "gpu_worker.py:120", f"Sleep mode freed 26.35 GiB memory (level {level})")
        return 200, {}

    def wake(self, tags: list[str]) -> tuple[int, dict[str, Any]]:
        started = time.monotonic()
        if self.config.wake_s > 0 and self.asleep:
            time.sleep(self.config.wake_s)
        with self.lock:
            was_asleep = self.asleep
            self.offloaded -= set(tags or self.TAGS)
            if was_asleep and not self.asleep:
                self.wakes += 1
                self.last_wake_s = time.monotonic() - started
                sleep_marker(os.getpid()).unlink(missing_ok=True)
        return 200, {}

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "sleep_mode": self.config.sleep_mode,
                "is_sleeping": self.asleep,
                "sleep_level": self.level if self.asleep else 0,
                "engine_dead": self.dead,
                "sleeps": self.sleeps,
                "wakes": self.wakes,
                "last_wake_s": self.last_wake_s,
                "prefix_cache_resets": self.prefix_cache_resets,
                "completions_while_asleep": self.completions_while_asleep,
                "sleeps_under_load": self.sleeps_under_load,
            }

    def forget(self) -> None:
        """At exit: no marker outlives the process."""
        sleep_marker(os.getpid()).unlink(missing_ok=True)


# --- the server ------------------------------------------------------------------------------


class FakeVLLM:
    """Request parsing, fault injection and bookkeeping shared by the handler threads."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.engine = Engine(config)
        self.sleep = SleepState(config)
        self.lock = threading.Lock()
        self.requests_seen = 0
        self.answers_sent = 0
        self.translated: list[str] = []
        self.created = int(time.time())
        self.listening_at: float | None = None
        self.first_request_at: float | None = None
        self.arrivals = 0
        self.gathered = threading.Barrier(max(1, config.gather))  # --fake-gather

    # parsing -----------------------------------------------------------------------------

    def check_model(self, body: dict[str, Any]) -> str:
        model = body.get("model")
        if model is None and len(self.config.served_names) == 1:
            return self.config.served_names[0]
        if model not in self.config.served_names:
            raise APIError(404, f"The model `{model}` does not exist.", "NotFoundError", "model")
        return str(model)

    def parse_chat(self, body: dict[str, Any]) -> Job:
        model = self.check_model(body)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise bad_request("messages: a non-empty list is required", "messages")
        src: str | None
        if self.config.template == "translategemma":
            text, src, tgt, prompt = self._translategemma_turn(messages)
        else:
            text, src, tgt, prompt = self._chat_turn(messages)
        return self._job("/v1/chat/completions", body, model, text, src, tgt, prompt)

    def _translategemma_turn(self, messages: list[Any]) -> tuple[str, str, str, str]:
        user = None
        for message in messages:
            role = message.get("role") if isinstance(message, dict) else None
            if role not in ("user", "assistant"):
                raise bad_request(
                    "Error in applying chat template from request: TranslateGemma's chat "
                    f"template supports only 'user' and 'assistant' roles, got {role!r}."
                )
            if role == "user":
                user = message
        if user is None:
            raise bad_request("Error in applying chat template from request: no user message.")
        content = user.get("content")
        if not isinstance(content, list) or len(content) != 1 or not isinstance(content[0], dict):
            raise bad_request(f"Error in applying chat template from request: {_TG_PART_ERROR}")
        part = dict(content[0])
        if self.config.drop_lang_codes:  # vLLM before PR #41599 dropped non-OpenAI keys
            part = {key: part[key] for key in ("type", "text") if key in part}
        text = part.get("text")
        if part.get("type") != "text" or not isinstance(text, str):
            raise bad_request(f"Error in applying chat template from request: {_TG_PART_ERROR}")
        src, tgt = part.get("source_lang_code"), part.get("target_lang_code")
        for name, code in (("source_lang_code", src), ("target_lang_code", tgt)):
            if not isinstance(code, str):
                raise bad_request(
                    f"Error in applying chat template from request: '{name}' is undefined"
                )
            if code not in TEMPLATE_LANGUAGES:
                raise bad_request(
                    "Error in applying chat template from request: "
                    f"Unsupported language code: {code!r}"
                )
        assert isinstance(src, str) and isinstance(tgt, str)
        return text, src, tgt, render_translategemma(text, src, tgt)

    def _chat_turn(self, messages: list[Any]) -> tuple[str, str | None, str, str]:
        system, user = "", None
        for message in messages:
            if not isinstance(message, dict):
                raise bad_request("messages: each message must be an object", "messages")
            if message.get("role") == "system":
                system += _content_text(message.get("content"))
            elif message.get("role") == "user":
                user = message
        if user is None:
            raise bad_request("Error in applying chat template from request: no user message.")
        text = _content_text(user.get("content"))
        found = _CHAT_TARGET.search(system)
        tgt = found.group(1) if found else "en"
        prompt = "".join(
            f"<|{m.get('role')}|>\n{_content_text(m.get('content'))}\n" for m in messages
        )
        return text, None, tgt, prompt

    def parse_completion(self, body: dict[str, Any]) -> Job:
        model = self.check_model(body)
        prompt = body.get("prompt")
        if isinstance(prompt, list) and len(prompt) == 1:
            prompt = prompt[0]
        if not isinstance(prompt, str):
            raise bad_request("prompt: one string is required by this fake", "prompt")
        if prompt.startswith("<bos>") and body.get("add_special_tokens", True):
            raise bad_request(
                "fake vLLM strictness: the prompt starts with a literal <bos> and "
                "add_special_tokens is true, so the model would see two BOS tokens"
            )
        match = _RENDERED.match(prompt.removeprefix("<bos>"))
        if not match:
            raise bad_request(
                "fake vLLM strictness: the prompt is not a rendered TranslateGemma prompt"
            )
        src, tgt = match.group("src"), match.group("tgt")
        for code in (src, tgt):
            if code not in TEMPLATE_LANGUAGES:
                raise bad_request(f"fake vLLM strictness: unknown language code {code!r}")
        return self._job("/v1/completions", body, model, match.group("text"), src, tgt, prompt)

    def _job(
        self,
        endpoint: str,
        body: dict[str, Any],
        model: str,
        text: str,
        src: str | None,
        tgt: str,
        prompt: str,
    ) -> Job:
        max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
            raise bad_request(f"max_tokens must be at least 1, got {max_tokens}.", "max_tokens")
        temperature = body.get("temperature")
        if temperature is not None and not isinstance(temperature, (int, float)):
            raise bad_request("temperature must be a number", "temperature")
        priority = body.get("priority", 0)
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise bad_request("priority: Input should be a valid integer", "priority")
        prompt_tokens = estimate_tokens(prompt)
        limit = self.config.max_model_len
        where = "messages" if endpoint.endswith("chat/completions") else "prompt"
        if prompt_tokens > limit:
            raise bad_request(
                f"This model's maximum context length is {limit} tokens. However, you "
                f"requested {prompt_tokens} tokens in the {where}, Please reduce the length "
                f"of the {where}."
            )
        if max_tokens is not None and prompt_tokens + max_tokens > limit:
            raise bad_request(
                f"This model's maximum context length is {limit} tokens. However, you "
                f"requested {prompt_tokens + max_tokens} tokens ({prompt_tokens} in the "
                f"{where}, {max_tokens} in the completion). Please reduce the length of the "
                f"{where} or completion."
            )
        return Job(
            endpoint=endpoint,
            model=model,
            text=text,
            source_lang=src,
            target_lang=tgt,
            prompt_tokens=prompt_tokens,
            max_tokens=max_tokens,
            temperature=float(temperature) if temperature is not None else None,
            stream=bool(body.get("stream")),
            priority=priority,
        )

    # faults and bookkeeping ---------------------------------------------------------------

    def injected_failure(self) -> APIError | None:
        with self.lock:
            self.requests_seen += 1
            seen = self.requests_seen
        every, first = self.config.fail_every, self.config.fail_first
        if (first and seen <= first) or (every and seen % every == 0):
            status = self.config.fail_status
            return APIError(
                status, f"fake: injected failure ({_phrase(status)})", "InternalServerError"
            )
        return None

    def arrived(self) -> None:
        """Count a completion request; the first ``--fake-gather`` wait for each other (a test
        decides what reaches the engine together: no race with the machine's load)."""
        with self.lock:
            if self.first_request_at is None:
                self.first_request_at = time.time()
            self.arrivals += 1
            gathering = self.arrivals <= self.config.gather
        if gathering:
            self.gathered.wait()

    def stats(self) -> dict[str, Any]:
        """Engine figures plus wall-clock times (``time.time()``) of listening and 1st request."""
        with self.lock:
            times = {"listening_at": self.listening_at, "first_request_at": self.first_request_at}
        return {**self.engine.stats(), **times, **self.sleep.stats()}

    def record(self, job: Job, status: int, result: Generation | None = None) -> None:
        entry: dict[str, Any] = {
            "time": time.time(),
            "endpoint": job.endpoint,
            "model": job.model,
            "source_lang": job.source_lang,
            "target_lang": job.target_lang,
            "text": job.text,
            "temperature": job.temperature,
            "max_tokens": job.max_tokens,
            "priority": job.priority,
            "status": status,
            "arrived_at": job.arrived_at,
            "first_token_at": job.first_token_at,
            "scheduled": job.scheduled,
        }
        if result is not None:
            entry["prompt_tokens"] = result.prompt_tokens
            entry["completion_tokens"] = result.completion_tokens
        with self.lock:
            if status == 200:
                self.translated.append(job.text)
            if self.config.request_log is not None:
                # One write per line with O_APPEND: whole lines even with readers elsewhere.
                with open(self.config.request_log, "a", encoding="utf-8") as log:
                    log.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def answered(self) -> bool:
        """Count one answer; True when --fake-die-after says the process must die now."""
        with self.lock:
            self.answers_sent += 1
            return bool(self.config.die_after and self.answers_sent >= self.config.die_after)

    def models_body(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {
                    "id": name,
                    "object": "model",
                    "created": self.created,
                    "owned_by": "vllm",
                    "root": self.config.model,
                    "parent": None,
                    "max_model_len": self.config.max_model_len,
                    "permission": [],
                }
                for name in self.config.served_names
            ],
        }


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like uvicorn
    server_version = "uvicorn"
    sys_version = ""
    fake: FakeVLLM  # set on the subclass made by serve()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # uvicorn-style access lines come from _send instead

    # dispatch ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path in ("/health", "/ping"):
            dead = self.fake.config.health_503 or self.fake.sleep.dead is not None
            status = 503 if dead else 200
            self._send(status, b"", "application/json")
        elif path == "/metrics" and self.fake.config.metrics:
            self._send(200, self.fake.engine.metrics().encode(), "text/plain; version=0.0.4")
        elif path == "/version":
            self._json(200, {"version": FAKE_VERSION})
        elif path == "/fake/requests":
            with self.fake.lock:
                self._json(200, list(self.fake.translated))
        elif path == "/fake/stats":
            self._json(200, self.fake.stats())
        elif path == "/fake/steps":
            with self.fake.lock:
                self._json(200, list(self.fake.engine.trace))
        elif path == "/v1/models":
            if self._authorized():
                self._json(200, self.fake.models_body())
        elif path == "/is_sleeping" and self.fake.config.sleep_mode:
            self._json(200, {"is_sleeping": self.fake.sleep.asleep})
        else:
            self._json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        path, _, query = self.path.partition("?")
        body = self._read_body()
        if path in _SLEEP_ROUTES and self.fake.config.sleep_mode:
            self._sleep_route(path, query)
            return
        if path == "/fake/release":
            self.fake.engine.released.set()
            self._json(200, {})
            return
        if path not in ("/v1/chat/completions", "/v1/completions"):
            self._json(404, {"detail": "Not Found"})
            return
        if not self._authorized():
            return
        self.fake.arrived()
        sleep = self.fake.sleep
        with sleep.lock:
            if sleep.asleep:
                sleep.completions_while_asleep += 1
                sleep.die("a request reached the engine while it was asleep")
            dead = sleep.dead
            if dead is None:
                sleep.in_flight += 1
        if dead is not None:
            self._json(500, {"error": {"message": f"EngineDeadError: {dead}", "code": 500}})
            return
        try:
            self._complete(path, body)
        finally:
            with sleep.lock:
                sleep.in_flight -= 1

    def _sleep_route(self, path: str, query: str) -> None:
        params = parse_qs(query)
        sleep = self.fake.sleep
        if path == "/sleep":
            level = int((params.get("level") or ["1"])[0])
            status, payload = sleep.sleep(level)
        elif path == "/wake_up":
            status, payload = sleep.wake(params.get("tags", []))
            if self.fake.config.garbage_after_wake and not sleep.asleep:
                self.fake.engine.garbled = True
        else:  # /reset_prefix_cache
            with sleep.lock:
                sleep.prefix_cache_resets += 1
            status, payload = 200, {}
        if payload:
            self._json(status, payload)
        else:
            self._send(status, b"", "application/json")

    def _complete(self, path: str, body: dict[str, Any] | None) -> None:
        try:
            if body is None:
                raise bad_request("request body is not valid JSON")
            if path == "/v1/chat/completions":
                job = self.fake.parse_chat(body)
            else:
                job = self.fake.parse_completion(body)
        except APIError as exc:
            self._json(exc.status, exc.body())
            return
        if job.priority != 0 and self.fake.config.scheduling_policy != "priority":
            # vLLM's engine refuses it when it takes the request (its input processor).
            refusal = bad_request(
                f"Got priority {job.priority} but Priority scheduling is not enabled."
            )
            self.fake.record(job, refusal.status)
            self._json(refusal.status, refusal.body())
            return
        failure = self.fake.injected_failure()
        if failure is not None:
            self.fake.record(job, failure.status)
            self._json(failure.status, failure.body())
            return
        result = self.fake.engine.generate(job)
        self.fake.record(job, 200, result)
        if job.stream:
            self._stream(job, result)
        else:
            self._json(200, _completion_body(job, result))
        if self.fake.answered():
            _log("ERROR", "core_client.py:564", "Engine core proc EngineCore_DP0 died unexpectedly")
            os.kill(os.getpid(), signal.SIGKILL)

    # helpers -----------------------------------------------------------------------------

    def _read_body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def _authorized(self) -> bool:
        key = self.fake.config.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._json(401, {"error": "Unauthorized"})
        return False

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload, ensure_ascii=False).encode(), "application/json")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response_only(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self._access(status)

    def _stream(self, job: Job, result: Generation) -> None:
        self.send_response_only(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = _completion_body(job, result)
        chat = job.endpoint.endswith("chat/completions")
        pieces = re.findall(r"\S+\s*|\s+", result.text) or [""]
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            if chat:
                choice: dict[str, Any] = {"index": 0, "delta": {"content": piece}}
            else:
                choice = {"index": 0, "text": piece}
            choice["finish_reason"] = result.finish_reason if last else None
            chunk = {
                "id": base["id"],
                "object": "chat.completion.chunk" if chat else "text_completion",
                "created": base["created"],
                "model": base["model"],
                "choices": [choice],
            }
            self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self._access(200)

    def _access(self, status: int) -> None:
        if self.fake.config.access_log:
            host, port = self.client_address[:2]
            line = (
                f'{host}:{port} - "{self.command} {self.path} HTTP/1.1" {status} {_phrase(status)}'
            )
            print(f"INFO:     {line}", flush=True)


def _completion_body(job: Job, result: Generation) -> dict[str, Any]:
    usage = {
        "prompt_tokens": result.prompt_tokens,
        "total_tokens": result.prompt_tokens + result.completion_tokens,
        "completion_tokens": result.completion_tokens,
        "prompt_tokens_details": None,
    }
    created = int(time.time())
    if job.endpoint.endswith("chat/completions"):
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": created,
            "model": job.model,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": result.text,
                        "reasoning_content": None,
                        "tool_calls": [],
                    },
                    "logprobs": None,
                    "finish_reason": result.finish_reason,
                    "stop_reason": None,
                }
            ],
            "usage": usage,
            "prompt_logprobs": None,
        }
    return {
        "id": f"cmpl-{uuid.uuid4().hex}",
        "object": "text_completion",
        "created": created,
        "model": job.model,
        "choices": [
            {
                "index": 0,
                "text": result.text,
                "logprobs": None,
                "finish_reason": result.finish_reason,
                "stop_reason": None,
                "prompt_logprobs": None,
            }
        ],
        "usage": usage,
    }


_SLEEP_ROUTES = ("/sleep", "/wake_up", "/reset_prefix_cache")


# --- process lifecycle -----------------------------------------------------------------------

_ENGINE_CHILD_CODE = "import sys\nsys.stdin.buffer.read()\n"


def _spawn_engine_child() -> subprocess.Popen[bytes]:
    """A child titled ``VLLM::EngineCore`` (argv[0], so /proc/PID/cmdline starts with it).

    It blocks reading a pipe from us and exits at EOF, i.e. when this process ends however it
    ends (even SIGKILL), like vLLM V1's engine core noticing its parent died.
    """
    return subprocess.Popen(
        ["VLLM::EngineCore", "-c", _ENGINE_CHILD_CODE],
        executable=sys.executable,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _crash_during_load(config: Config) -> int:
    total = 31.36
    wanted = 0.9 * total
    free = 12.41
    print(
        "ERROR " + time.strftime("%m-%d %H:%M:%S") + " [core.py:700] EngineCore failed to start.\n"
        "Traceback (most recent call last):\n"
        '  File ".../vllm/v1/engine/core.py", line 691, in run_engine_core\n'
        "    engine_core = EngineCoreProc(*args, **kwargs)\n"
        '  File ".../vllm/v1/worker/gpu_worker.py", line 171, in init_device\n'
        "    self.init_snapshot = MemorySnapshot()\n"
        '  File ".../vllm/v1/worker/utils.py", line 311, in request_memory\n'
        "    raise ValueError(\n"
        f"ValueError: Free memory on device cuda:0 ({free}/{total} GiB) on startup is less than "
        f"desired GPU memory utilization (0.9, {wanted:.2f} GiB). Decrease GPU memory "
        "utilization or reduce GPU memory used by other processes.\n"
        "RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}",
        file=sys.stderr,
        flush=True,
    )
    return 1


def _kv_too_small(config: Config, kv_tokens: int) -> int:
    print(
        "ValueError: To serve at least one request with the model's max seq len "
        f"({config.max_model_len}), {config.max_model_len} tokens of KV cache are needed, which "
        f"is larger than the available KV cache ({kv_tokens} tokens). Based on the available "
        f"memory, the estimated maximum model length is {kv_tokens}. Try increasing "
        "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        file=sys.stderr,
        flush=True,
    )
    return 1


def serve(config: Config) -> int:
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        _log("INFO", "launcher.py:80", f"Received signal {signal.Signals(signum).name}")
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if config.ignore_sigterm else on_signal)

    _log("INFO", "__init__.py:216", "Automatically detected platform cuda.")
    _log("INFO", "api_server.py:1805", f"vLLM API server version {FAKE_VERSION}")
    _log(
        "INFO",
        "utils.py:326",
        f"non-default args: {{'model': {config.model!r}, 'host': {config.host!r}, "
        f"'port': {config.port}, 'max_model_len': {config.max_model_len}}}",
    )

    handler: type[Handler] = type("BoundHandler", (Handler,), {})
    server = ThreadingHTTPServer((config.host, config.port), handler, bind_and_activate=False)
    server.daemon_threads = True
    server.request_queue_size = 2048  # uvicorn's backlog; the stdlib's 5 refuses bursts
    # Bind now, listen only when loaded: connects are refused meanwhile, as with real vLLM.
    try:
        server.server_bind()
    except OSError as exc:
        where = f"('{config.host}', {config.port})"
        message = f"error while attempting to bind on address {where}: {exc.strerror}"
        print(f"OSError: [Errno {exc.errno}] {message}", file=sys.stderr, flush=True)
        return 1

    _log("INFO", "core.py:654", "Waiting for init message from front-end.")
    if stop.wait(config.load_s):
        server.server_close()
        return 0
    if config.crash_during_load:
        server.server_close()
        return _crash_during_load(config)
    _log("INFO", "gpu_model_runner.py:2007", "Model loading took 15.62 GiB and 41.87 seconds")
    kv_tokens = config.max_model_len * config.max_num_seqs
    if config.capacity is not None:
        kv_tokens = config.capacity.kv_blocks * config.capacity.block_size
        if kv_tokens < config.max_model_len + config.capacity.block_size:
            server.server_close()
            return _kv_too_small(config, kv_tokens)
    _log("INFO", "kv_cache_utils.py:829", f"GPU KV cache size: {kv_tokens:,} tokens")
    _log(
        "INFO",
        "kv_cache_utils.py:833",
        f"Maximum concurrency for {config.max_model_len:,} tokens per request: "
        f"{kv_tokens / config.max_model_len:.2f}x",
    )
    engine_child = _spawn_engine_child() if config.engine_child else None

    fake = FakeVLLM(config)
    handler.fake = fake
    server.server_activate()
    fake.listening_at = time.time()
    _log(
        "INFO",
        "api_server.py:1857",
        f"Starting vLLM API server on http://{config.host}:{config.port}",
    )
    print(f"INFO:     Started server process [{os.getpid()}]", flush=True)
    print("INFO:     Waiting for application startup.", flush=True)
    print("INFO:     Application startup complete.", flush=True)
    thread = threading.Thread(target=server.serve_forever, name="http", daemon=True)
    thread.start()
    while not stop.wait(0.1):
        pass
    print("INFO:     Shutting down", flush=True)
    fake.sleep.forget()
    server.shutdown()
    server.server_close()
    if engine_child is not None:
        engine_child.terminate()
        engine_child.wait(timeout=5)
    print("INFO:     Application shutdown complete.", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    config = parse_config(list(sys.argv[1:] if argv is None else argv))
    return serve(config)


if __name__ == "__main__":
    sys.exit(main())

"""The known-answer probe: a woken vLLM must still translate a fixed sentence as it did.

Woken engines have been seen to pass ``/health`` and a one-token probe while writing garbage.
So after every wake (``vllm_manager.sleep_cycle``) this probe asks, besides the one-token
request, for the translation of :data:`SENTENCE` and compares it with the answer recorded when
the model was last seen healthy: just before it was first put to sleep (``remember``: a drained
engine that has been translating). A different answer means that vLLM is stopped and a fresh
one started; the record is then dropped, to be taken again from the fresh engine before its
first sleep (a model swapped under the same name never causes a restart at every wake).

A mismatch is asked once more before it counts: greedy decoding is deterministic for one
request on an idle engine, and a second identical wrong answer is not chance. The record is
kept in ``ZT_DATA_DIR`` per model, prompt format and language pair, so a server restarted while
its vLLM sleeps still checks the next wake. Counts of each outcome are kept for ``/metrics``.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from translation.model.llm import LLMClient

if TYPE_CHECKING:
    from common.settings import Settings

log = logging.getLogger(__name__)

#: The fixed sentence: ordinary scientific prose, a number and a name, answered in a few tokens.
SENTENCE = "Table 2 shows that the proposed method reduces the error by 12 percent."
#: Where the records live, under ``ZT_DATA_DIR``.
RECORD_FILE = "known_answers.json"
#: The outcomes counted: a wake whose answer matched, one that did not, a wake with no record
#: yet (not checked), an answer recorded before a sleep, a probe the server failed.
OUTCOMES = ("matched", "mismatched", "unrecorded", "recorded", "failed")


class KnownAnswer:
    """The readiness probe after a wake, with the known-answer check; see the module doc."""

    def __init__(self, settings: Settings, http_client: httpx.AsyncClient | None = None) -> None:
        self._settings = settings
        self._http = http_client
        self._path = Path(settings.data_dir) / RECORD_FILE
        self._key = "|".join(
            [
                settings.llm_model,
                str(settings.prompt_format),
                settings.source_lang.code,
                settings.target_lang.code,
            ]
        )
        self.counts: Counter[str] = Counter({outcome: 0 for outcome in OUTCOMES})

    async def __call__(self) -> str | None:
        """After a wake: None when the engine is sound, else why it is not (the manager then
        stops it and starts a fresh one)."""
        s = self._settings
        async with LLMClient.from_settings(s, self._http) as client:
            problem = await client.probe(s.source_lang, s.target_lang)
            if problem is not None:
                self.counts["failed"] += 1
                return problem
            expected = self._read().get(self._key)
            if expected is None:
                self.counts["unrecorded"] += 1
                return None
            for _ in range(2):
                got, problem = await client.answer_once(SENTENCE, s.source_lang, s.target_lang)
                if problem is not None:
                    self.counts["failed"] += 1
                    return f"known-answer probe {problem}"
                if got == expected:
                    self.counts["matched"] += 1
                    return None
        self.counts["mismatched"] += 1
        self._write(None)  # the fresh engine records its own before its first sleep
        return f"known-answer probe: the woken model answered {got!r:.120}, not {expected!r:.120}"

    async def remember(self) -> None:
        """Before a sleep: record the answer now, unless one is recorded. Never raises (a
        sleep must not fail over it)."""
        if self._key in self._read():
            return
        s = self._settings
        try:
            async with LLMClient.from_settings(s, self._http) as client:
                got, problem = await client.answer_once(SENTENCE, s.source_lang, s.target_lang)
        except Exception as exc:  # never stop a sleep over a probe
            got, problem = None, str(exc)
        if got is None or not got.strip():
            log.warning("known-answer probe not recorded: %s", problem or "empty answer")
            self.counts["failed"] += 1
            return
        self._write(got)
        self.counts["recorded"] += 1

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _write(self, answer: str | None) -> None:
        records = self._read()
        if answer is None:
            records.pop(self._key, None)
        else:
            records[self._key] = answer
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_suffix(".tmp")
            tmp.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self._path)
        except OSError as exc:
            log.warning("known-answer record not written: %s", exc)

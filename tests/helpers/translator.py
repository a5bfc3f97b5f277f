"""A Translator of the real pipeline for a test: settings pointed at a fake vLLM the test
started, fixed concurrency, one attempt per request."""

from __future__ import annotations

from common.settings import ConcurrencyMode, Settings
from translation.pipeline import Translator


async def ready(_: object) -> None:
    """The LLM is already up (the fake was started by the test)."""


def translator_for(settings: Settings, base_url: str, concurrency: int = 2) -> Translator:
    configured = settings.model_copy(
        update={
            "llm_base_url": base_url,
            "concurrency": concurrency,
            "concurrency_mode": ConcurrencyMode.FIXED,
            "llm_max_attempts": 1,
        }
    )
    return Translator.from_settings(configured, ready)

"""What a translation is asked for and what it returns: one document's request (languages,
pages, outputs, glossary, OCR) and its result (the PDFs and what producing them took)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from common.language import Language
from translation.model.glossary import Glossary
from translation.read.ocr import OcrMode, OcrOptions
from translation.render.faces import FontFamily
from translation.render.fallback import FallBack, fallback_note


class DualMode(StrEnum):
    LR = "LR"  # original and translation side by side on one wide page
    TB = "TB"  # alternating pages


@dataclass(frozen=True)
class TranslationRequest:
    """One document to translate. ``pages`` are 0-based; None means every page."""

    pdf: bytes
    source_lang: Language
    target_lang: Language
    password: str | None = None
    pages: tuple[int, ...] | None = None
    include_references: bool = False
    mono: bool = True
    dual: bool = True
    dual_mode: DualMode = DualMode.LR
    translation_first: bool = False
    #: Translate again rather than reuse cached answers, except those stored at or after
    #: ``fresh_since`` (a ``time.time()``; the server passes its job's submission time): a job
    #: run again after a restart never pays twice for one paragraph.
    force: bool = False
    fresh_since: float | None = None
    #: Terms translated exactly (protected as placeholders, see ``translation.model.glossary``).
    glossary: Glossary | None = None
    #: Whom the LLM slots are shared fairly between (the server's job id; the CLI leaves it "").
    owner: str = ""
    #: Which pages are read by OCR (``translation.read.ocr``), in ``source_lang``.
    ocr: OcrMode = OcrMode.AUTO
    #: The face the translation is set in (``translation.render.faces``).
    font_family: FontFamily = FontFamily.AUTO
    #: Translate the cells of tables; False leaves every table as it is.
    translate_tables: bool = True

    @property
    def ocr_options(self) -> OcrOptions:
        return OcrOptions(mode=self.ocr, language=self.source_lang)


@dataclass(frozen=True)
class TranslationResult:
    mono: bytes | None
    dual: bytes | None
    page_count: int
    paragraphs: int
    #: Distinct paragraph texts sent to the LLM, and found in the cache (a text that appears
    #: twice in the paper counts once).
    llm_calls: int
    cache_hits: int
    seconds: float = 0.0
    #: Pages already typeset when the last translation arrived (rendering overlapped).
    pages_rendered_early: int = 0
    #: Pages (0-based) whose references section was left as it is (references not included).
    references_kept: tuple[int, ...] = ()
    #: The face the translation was set in, as a user is told ("" when not known).
    typeface: str = ""
    #: The blocks kept as printed because their translation broke the page
    #: (``translation.render.page_check``).
    fallbacks: tuple[FallBack, ...] = ()

    @property
    def references_note(self) -> str:
        """What a summary says of the references kept ("" when none were)."""
        if not self.references_kept:
            return ""
        return "references kept as they are: " + page_list(self.references_kept)

    @property
    def fallback_note(self) -> str:
        """What a summary says of the blocks kept as printed ("" when none was)."""
        return fallback_note(self.fallbacks)

    @property
    def note(self) -> str:
        """What a job's summary adds: the references kept, the blocks kept as printed, the
        face used."""
        parts = [
            self.references_note,
            self.fallback_note,
            f"set in {self.typeface}" if self.typeface else "",
        ]
        return "; ".join(part for part in parts if part)


def page_list(pages: Sequence[int]) -> str:
    """0-based page indices as a reader counts them: "page 4", "pages 9-11", "pages 2, 5-6"."""
    runs: list[list[int]] = []
    for page in sorted(set(pages)):
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    parts = [f"{r[0] + 1}" if len(r) == 1 else f"{r[0] + 1}-{r[-1] + 1}" for r in runs]
    return ("page " if parts == [str(pages[0] + 1)] else "pages ") + ", ".join(parts)

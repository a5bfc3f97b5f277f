"""``zotero-translate translate PAPER.pdf``: one paper, from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from common.errors import InputError, TooLargeError
from common.language import Language
from common.settings import Settings, mib
from translation.model import glossary as glossaries
from translation.read.document import inspect_pdf
from translation.read.ocr import OcrMode, OcrOptions
from translation.read.pages.page_range import parse_pages
from translation.request import DualMode, TranslationRequest
from vllm_manager.gpu_wait import GPUWaitQueue
from zotero_server.engine import shared_http, start_engine
from zotero_server.progress_display import ProgressDisplay


def _read_paper(path: Path, settings: Settings) -> bytes:
    if not path.exists():
        raise InputError(f"no such file: {path}")
    if not path.is_file():
        raise InputError(f"not a file: {path}")
    size = path.stat().st_size
    if size > settings.upload_limit_bytes:
        raise TooLargeError(
            f"{path.name} is {mib(size)}; the limit is {mib(settings.upload_limit_bytes)}"
            " (ZT_MAX_UPLOAD_MB)"
        )
    return path.read_bytes()


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


async def run_translate(settings: Settings, args: argparse.Namespace) -> int:
    """Translate ``args.paper``; print the output paths. Errors propagate to ``main``."""
    if not args.mono and not args.dual:
        raise InputError("nothing to write: --no-mono and --no-dual together")
    paper = Path(args.paper)
    data = _read_paper(paper, settings)
    ocr = OcrMode(args.ocr or settings.ocr)
    source_lang = Language.parse(args.source_lang) if args.source_lang else settings.source_lang
    target_lang = Language.parse(args.target_lang) if args.target_lang else settings.target_lang
    page_count = inspect_pdf(data, args.password, OcrOptions(ocr, source_lang))
    pages = tuple(parse_pages(args.pages, page_count)) if args.pages else None
    glossary = glossaries.combine(
        glossaries.from_settings(settings),
        glossaries.Glossary.load(args.glossary) if args.glossary else None,
    )
    out_dir = Path(args.out) if args.out else paper.resolve().parent
    out_dir.mkdir(parents=True, exist_ok=True)

    request = TranslationRequest(
        pdf=data,
        source_lang=source_lang,
        target_lang=target_lang,
        password=args.password,
        pages=pages,
        include_references=args.include_references,
        mono=args.mono,
        dual=args.dual,
        dual_mode=DualMode(args.dual_mode),
        translation_first=args.translation_first,
        force=args.force,
        glossary=glossary,
        ocr=ocr,
    )
    display = ProgressDisplay(sys.stderr)
    async with shared_http(settings) as http:
        engine = await start_engine(settings, http)
        gate, translator = engine.gate, engine.translator
        # --wait-gpu: wait for a busy GPU that long instead of ZT_GPU_WAIT_S (issue 16).
        gpu_wait = GPUWaitQueue(gate, settings) if args.wait_gpu is not None else None
        try:
            async with gate.work():
                result = await translator.translate(
                    request,
                    display,
                    ensure_ready=gpu_wait.patient(limit_s=args.wait_gpu) if gpu_wait else None,
                )
        finally:
            display.close()
            if gpu_wait is not None:
                await gpu_wait.aclose()
            await engine.aclose()

    stem = paper.stem
    written = []
    for kind, content in (("mono", result.mono), ("dual", result.dual)):
        if content is not None:
            target = out_dir / f"{stem}-{kind}.pdf"
            _write_atomically(target, content)
            written.append(target)
    for target in written:
        print(target)
    pages_done = f"{len(pages)} of {result.page_count}" if pages else f"{result.page_count}"
    plural = "s" if result.page_count != 1 else ""
    print(
        f"{result.paragraphs} paragraphs on {pages_done} page{plural}:"
        f" {result.llm_calls} translated, {result.cache_hits} from the cache,"
        f" {result.seconds:.1f} s" + (f", set in {result.typeface}" if result.typeface else ""),
        file=sys.stderr,
    )
    if result.references_note:  # nothing left untranslated without saying so
        print(f"{result.references_note} (--include-references translates them)", file=sys.stderr)
    if result.fallback_note:  # nor a block whose translation would have broken its page
        print(result.fallback_note, file=sys.stderr)
    return 0

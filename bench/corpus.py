"""The corpus audit: every paper of ``corpus/`` and ``corpus2/`` read as the pipeline reads it
(OCR where it would), typeset with the pseudo translator, and counted for what a reader of the
requests and of the pages would flag. One row a paper, a total row, and what got worse since
the committed baseline (``bench/corpus-baseline.json``).

    python -m bench.corpus [DIR ...]                  the table (default: corpus/ and corpus2/)
    python -m bench.corpus --write OUT [DIR ...]      also, per paper, OUT/<paper>-requests.txt
                                                      (every request a line, flagged; then the
                                                      lines that reached none, with the reason;
                                                      then the text the reader itself kept,
                                                      each block with its stated reason: line
                                                      number, running head, code, ...)
                                                      and OUT/<paper>/page-NN.png (original |
                                                      translation) of each page a page figure
                                                      flags, with OUT/<paper>-pages.txt saying why
    python -m bench.corpus --update-baseline          rewrite the baseline from this run
    python -m bench.corpus --docs                     rewrite docs/reading.md's table from the
                                                      baseline (``make docs`` does too)
    options: --jobs N (papers at once, default 2), --timeout S (per paper, default 600)

What each figure counts (a request is one text sent to the model: a passage, or a piece of one
over the sentence budget; *prose* is a text of 8 words or more, as ``request_audit`` counts
words):

Requests
  ``reqs``       requests sent.
  ``cut``        prose requests, of a kind that is made of sentences (no heading, caption or
                 cell), that start inside a sentence (a lower-case first word) or end inside one
                 (no sentence stop at the end; a list item sent whole by itself, stopping on
                 no comma or word such as "and", its last line short of its column's edge,
                 ends with its item; a text whose sentence a display takes over, an equation
                 or a listing no paragraph holds just below its last line or heading the
                 next column or page, ends with its words: ``corpus_requests.display_follows``;
                 one that takes up a sentence a display broke off, starts with it:
                 ``display_precedes``; a footnote opened by its own small or raised mark and
                 followed by no unmarked note is whole as its author wrote it; the last text
                 of the file's last page, run to its foot in a full line, ends where the file
                 does: ``corpus_requests._cut_by_the_file``).
  ``frag``       short pieces: body, list-item or footnote requests of 1 to 7 words that are no
                 whole sentence (a capital or digit first and a stop last; a Han or kana
                 first counts as a capital), nor a list item sent whole by itself that
                 stops on no comma, hyphen or word such as "and" ("headings and subheadings"),
                 nor a sentence's opening words whose end is a display's, or its last words
                 after one, nor a whole footnote (as for ``cut``).
  ``cutword``    words cut in two (``request_audit.flags``: a fragment before a line-end hyphen,
                 its rest opening the next request, or "sum- maries" inside one).
  ``spliced``    requests that carry margin material with body text: margin line numbers read
                 into the text (three numbers or more counting up by one, or five, with words
                 between: ``request_audit.line_number_run``), or source glyphs outside the body's
                 frame (the 5th to 95th percentile of where body-size lines start and end, on
                 odd and even pages apart) by a body size, parted from their line's body text
                 by 1.5 of their size (margin labels, side notes), or glyphs of a running head or
                 footer (a line in the top or bottom 12 % of its page whose text, digits aside,
                 recurs at the same height on three pages; two in a paper under six pages).
  ``glued``      body requests holding a caption's label ("Table 2:", "Figure 3.", "表 1",
                 "그림 2") after a sentence's end or after a word no label follows in prose
                 (``request_audit.glued_caption``).
  ``code_sent``  requests 60 % or more of whose source glyphs sent as text (code kept as a
                 placeholder inside a sentence is not) are set in a monospaced face (measured
                 as the reader does, ``translation.read.pages.monospace``: the face's letters
                 and digits all advance alike, over six or more, a narrow and a wide one
                 among them; never told by the face's name), or
                 whose text has more code tokens than half its words and three at least
                 (``request_audit.code_like``).
  ``refs_sent``  requests that are bibliography entries: a reference paragraph sent, or a text
                 that reads as an entry (``request_audit.looks_like_reference``).
  ``unsent``     prose lines of the source (five words of two letters or more, letters half of
                 the line; or eight CJK characters), of any script, none of whose glyphs any
                 paragraph holds, and kept for no reason the audit can state. Stated reasons
                 (listed with ``--write``): the references section's pages, code (as above),
                 a running head or footer, small print at the page's top or foot (a venue
                 line, a licence note), a list of people's names, inside a figure's area,
                 mostly math, reads as an entry, a column of CJK vertical writing.
Pages (only pages that hold a translated paragraph; a glyph of the translated page is *ours*
unless the source page has the same character in the same face and size at the same place,
which is source text still standing: see ``bench.corpus_pages``; two glyphs overlap when their
ink shares 30 % of the smaller's, a glyph's ink taken from 0.1 of its size below its baseline
to 0.7 above (a glyph hanging from its origin, TeX's big delimiters: from its origin down by
its size, ``translation.render.page_check.ink_rows``), over the middle 80 % of its advance;
letters, digits and symbols only: accents and punctuation overlap by design or have boxes far
wider than their ink)
  ``overprint``  translated lines over text still on the page that no translated paragraph
                 held, or over another translated line (a formula's copied piece over another
                 piece of it is as the source set it, and not counted).
  ``left_under`` translated lines over a source glyph left standing inside a translated
                 paragraph's rects (its source was not erased).
  ``tiny``       translated lines set below 0.6 of their paragraph's source size.
  ``outside``    translated lines reaching outside their page, or past their paragraph's
                 column and box (and the room it may grow into) by half its size.
  ``math_changed`` math glyphs of the source page (in a face whose name says math, or Greek,
                 operators, arrows, math letters) that the translated page no longer shows in
                 their own face: gone, or re-set as text.
Renderer
  ``fallback``   (``fell``) blocks the renderer's own check kept as printed because their
                 translation broke the page (``translation.render.page_check``), and whose
                 translation found no room elsewhere on the page: left untranslated; listed
                 with ``--write`` in OUT/<paper>-pages.txt. Under the table: their share of
                 the translated blocks, and the check's share of the time spent setting pages.
  ``apart``      blocks kept as printed whose translation was set apart from them, where
                 the page had room (``translation.render.set_apart``); listed with them. Not
                 in the baseline's comparison: more of them is no worse (they are fallbacks
                 that still reach the reader).

A paper that fails to open, or takes more than ``--timeout`` seconds, is a row with the reason.
Each paper is read in a child process (``--jobs`` at once). Source language: told by the
scripts of the paper's text (Hangul, kana, Han) and, for Latin text, its most frequent short
words; the target is Korean, or English for a Korean paper.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.corpus_pages import PAGE_FIGURES
from bench.corpus_requests import REQUEST_FIGURES
from bench.pdf_bench import CORPUS

CORPUS2 = CORPUS.parent / "corpus2"
BASELINE = Path(__file__).resolve().parent / "corpus-baseline.json"
FIGURES = ("reqs", *REQUEST_FIGURES, "unsent", *PAGE_FIGURES, "fallback")
#: Figures where more is worse (``reqs`` only says how much was read).
WORSE_UP = tuple(f for f in FIGURES if f != "reqs")
#: Figures shown in the table after those, compared with nothing (see the module doc).
SHOWN = (*FIGURES, "apart")
_SHORT = {
    "code_sent": "code",
    "refs_sent": "refs",
    "left_under": "under",
    "math_changed": "math",
    "fallback": "fell",
}

_STOPWORDS = {
    "en": " the of and to in is that for ",
    "fr": " le la les des et est une dans du que ",
    "de": " der die und das ist nicht mit den ",
    "es": " el los las del que por una con ",
}
_SCRIPT_RES = {
    "ko": re.compile("[\uac00-\ud7a3]"),
    "kana": re.compile("[\u3040-\u30ff]"),
    "han": re.compile("[\u3400-\u9fff]"),
}


def paper_language(text: str) -> str:
    """The source language of a paper's ``text``: Korean, Japanese or Chinese by its scripts,
    else the Latin-script language whose short words it holds most."""
    letters = sum(c.isalpha() for c in text) or 1
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPT_RES.items()}
    if counts["ko"] >= 0.2 * letters:
        return "ko"
    if counts["kana"] >= 0.05 * letters and counts["kana"] + counts["han"] >= 0.2 * letters:
        return "ja"
    if counts["han"] >= 0.2 * letters:
        return "zh"
    lowered = f" {' '.join(text.lower().split())} "
    scores = {
        lang: sum(lowered.count(f" {word} ") for word in words.split())
        for lang, words in _STOPWORDS.items()
    }
    return max(scores, key=lambda lang: scores[lang])


def measure(path: Path, write: Path | None = None) -> dict[str, Any]:
    """Read, audit and typeset one paper; its figures (and ``write``'s files)."""
    import pymupdf

    from bench.corpus_pages import audit_pages
    from bench.corpus_requests import Reading, audit_requests
    from common.errors import ZTError
    from common.settings import Settings
    from tests.fakes.pseudo import pseudo_translate
    from translation.pdf import MonoRenderer
    from translation.read.document import open_document
    from translation.read.extraction import read_document
    from translation.read.flow.passage import translated
    from translation.read.pages.page_space import TEXT_FLAGS

    started = time.perf_counter()
    data = path.read_bytes()
    try:
        doc = open_document(data)
        found, layouts = read_document(doc)
    except ZTError as exc:
        return {"paper": path.stem, "error": str(exc)}
    paragraphs = found.paragraphs
    reading = Reading.of(layouts, paragraphs, found.reference_pages)
    language = paper_language(" ".join(line.text for line in reading.lines))
    target = "en" if language == "ko" else "ko"
    budget = Settings.model_fields["request_max_tokens"].default
    records, kept = audit_requests(reading, language, budget)
    translations = translated(paragraphs, lambda text: pseudo_translate(text, target))
    renderer = MonoRenderer(doc, target)
    renderer.render_all(paragraphs, translations)
    mono = renderer.finish()
    source, out = pymupdf.open(stream=data), pymupdf.open(stream=mono)
    pages = audit_pages(source, out, paragraphs, translations, TEXT_FLAGS, renderer.placed)
    figures: Counter[str] = Counter({f: 0 for f in FIGURES})
    figures["reqs"] = len(records)
    for record in records:
        figures.update(mark for mark in record.marks if mark != "cutword")
        figures["cutword"] += record.cutwords
    figures["unsent"] = sum(not line.reason for line in kept)
    for page in pages:
        figures.update(page.counts)
    figures["fallback"] = sum(not f.apart for f in renderer.fallbacks)
    figures["apart"] = sum(f.apart for f in renderer.fallbacks)
    if write is not None:
        listed = [
            (f.page, f"{f.block} {','.join(f.reasons)}{' (set apart)' if f.apart else ''}")
            for f in renderer.fallbacks
        ]
        _write(write, path.stem, records, kept, pages, source, out, found.kept, listed)
    return {
        "paper": path.stem,
        "pages": source.page_count,
        "language": language,
        "figures": dict(figures),
        "seconds": round(time.perf_counter() - started, 1),
        "blocks": sum(1 for p in paragraphs if translations.get(p.id, "").strip()),
        "set_s": round(renderer.seconds, 4),
        "check_s": round(renderer.check_seconds, 4),
    }


def _write(
    out_dir: Path,
    stem: str,
    records: Sequence[Any],
    kept: Sequence[Any],
    pages: Sequence[Any],
    source: Any,
    translated: Any,
    reader_kept: Sequence[Any] = (),
    fallbacks: Sequence[tuple[int, str]] = (),
) -> None:
    from bench.visual import pair_image

    out_dir.mkdir(parents=True, exist_ok=True)
    lines = ["# requests: id, page, kind, figures, text"]
    for r in records:
        marks = ",".join(sorted(r.marks)) or "-"
        text = " ".join(r.text.split())
        lines.append(f"{r.ident:<12} p{r.page + 1:<3} {r.kind.value:<9} {marks:<22} {text}")
    lines.append("")
    lines.append("# prose lines that reached no request: page, reason (blank: unsent), text")
    for k in kept:
        lines.append(f"p{k.page + 1:<3} {k.reason or 'UNSENT':<11} {k.text}")
    lines.append("")
    lines.append("# text the reader kept, with its own reason: page, reason, text")
    for k in reader_kept:
        lines.append(f"p{k.page + 1:<3} {k.reason:<21} {' '.join(k.text.split())}")
    (out_dir / f"{stem}-requests.txt").write_text(
        "\n".join(lines) + "\n", encoding="utf-8", errors="replace"
    )
    fell = {page for page, _ in fallbacks}
    flagged = [p for p in pages if p.counts or p.page in fell]
    folder = out_dir / stem
    if flagged:
        folder.mkdir(exist_ok=True)
    notes = []
    for page in flagged:
        number = page.page + 1
        labels = (f"original p.{number}", f"translation p.{number}")
        pair_image(source[page.page], translated[page.page], 70, labels).save(
            folder / f"page-{number:02d}.png"
        )
        notes.append(f"## page {number}: {dict(page.counts)}")
        notes.extend(f"  {note}" for note in page.notes)
    notes.extend(f"fell back: p{page + 1} {line}" for page, line in fallbacks)
    (out_dir / f"{stem}-pages.txt").write_text(
        "\n".join(notes) + "\n", encoding="utf-8", errors="replace"
    )


def papers(folders: Sequence[Path]) -> list[Path]:
    """The PDFs of ``folders``, in name order within each."""
    return [p for folder in folders if folder.is_dir() for p in sorted(folder.glob("*.pdf"))]


def _in_child(path: Path, write: Path | None, timeout_s: float) -> dict[str, Any]:
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, "-m", "bench.corpus", "--one", str(path)]
    if write is not None:
        command += ["--write", str(write)]
    try:
        proc = subprocess.run(
            command, cwd=root, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return {"paper": path.stem, "error": f"timed out after {timeout_s:.0f} s"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"paper": path.stem, "error": f"failed: {last[:120]}"}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def audit_all(
    folders: Sequence[Path], write: Path | None = None, jobs: int = 2, timeout_s: float = 600
) -> list[dict[str, Any]]:
    """One row a paper of ``folders``, in order; each paper in its own child process."""
    found = papers(folders)
    # The biggest files first (scans, read by OCR, take longest), so no long one starts last.
    order = sorted(found, key=lambda p: -p.stat().st_size)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {p: pool.submit(_in_child, p, write, timeout_s) for p in order}
        return [futures[p].result() for p in found]


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows, a total row under them."""
    heads = [_SHORT.get(f, f) for f in SHOWN]
    head = f"{'paper':<40} {'pp':>3} {'lang':>4} " + " ".join(f"{h:>6}" for h in heads) + "    s"
    lines = [head, "-" * len(head)]
    total: Counter[str] = Counter()
    pages = 0
    for row in rows:
        name = row["paper"][:40]
        if "error" in row:
            lines.append(f"{name:<40} {'-':>3} {'-':>4} {row['error']}")
            continue
        figures = row["figures"]
        total.update(figures)
        pages += row["pages"]
        cells = " ".join(f"{figures.get(f, 0):>6}" for f in SHOWN)
        seconds = row.get("seconds", 0.0)
        lines.append(f"{name:<40} {row['pages']:>3} {row['language']:>4} {cells} {seconds:>5.1f}")
    lines.append("-" * len(head))
    cells = " ".join(f"{total.get(f, 0):>6}" for f in SHOWN)
    read = sum("error" not in r for r in rows)
    lines.append(f"{f'total ({read} papers)':<40} {pages:>3} {'':>4} {cells}")
    lines.append(renderer_line(rows))
    return "\n".join(lines)


def renderer_line(rows: Sequence[dict[str, Any]]) -> str:
    """The blocks that fell back, as a share of those translated, and the renderer's check's
    share of the time spent setting pages."""
    read = [r for r in rows if "error" not in r]
    blocks = sum(int(r.get("blocks", 0)) for r in read)
    fell = sum(int(r["figures"].get("fallback", 0)) for r in read)
    apart = sum(int(r["figures"].get("apart", 0)) for r in read)
    set_s = sum(float(r.get("set_s", 0.0)) for r in read)
    check_s = sum(float(r.get("check_s", 0.0)) for r in read)
    return (
        f"fell back: {fell} of {blocks} blocks ({100 * fell / max(1, blocks):.2f} %) left as"
        f" printed, {apart} more set apart from their source;"
        f" the renderer's check took {check_s:.2f} s of {set_s:.1f} s setting pages"
        f" ({100 * check_s / max(1e-9, set_s):.1f} %)"
    )


def load_baseline(path: Path = BASELINE) -> dict[str, dict[str, int]]:
    """The committed figures, paper -> figure -> count (empty when there is none)."""
    if not path.is_file():
        return {}
    data: dict[str, dict[str, int]] = json.loads(path.read_text(encoding="utf-8"))["papers"]
    return data


def baseline_of(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The baseline file's content for ``rows`` (papers that failed keep their reason)."""
    papers_ = {
        r["paper"]: {"error": r["error"]} if "error" in r else {"pages": r["pages"], **r["figures"]}
        for r in rows
    }
    total: Counter[str] = Counter({f: 0 for f in FIGURES})
    for r in rows:
        if "error" not in r:
            total.update(r["figures"])
    return {"total": dict(total), "papers": papers_}


def changes(rows: Sequence[dict[str, Any]], baseline: dict[str, dict[str, Any]]) -> list[str]:
    """What got worse (or better) on which paper since ``baseline``, worse first."""
    worse, better = [], []
    for row in rows:
        before = baseline.get(row["paper"])
        if before is None:
            worse.append(f"new paper {row['paper']}: not in the baseline")
            continue
        if "error" in row or "error" in before:
            if row.get("error") != before.get("error"):
                worse.append(
                    f"{row['paper']}: {before.get('error', 'read')} -> {row.get('error', 'read')}"
                )
            continue
        for figure in WORSE_UP:
            old, new = int(before.get(figure, 0)), int(row["figures"].get(figure, 0))
            if new > old:
                worse.append(f"WORSE {row['paper']} {figure}: {old} -> {new}")
            elif new < old:
                better.append(f"better {row['paper']} {figure}: {old} -> {new}")
    return worse + better


#: Papers shown in the docs' table, worst first.
DOCS_WORST = 10


def docs_table(baseline: dict[str, Any]) -> str:
    """The baseline's total row and its :data:`DOCS_WORST` worst papers (most flagged figures
    a page), as the Markdown table ``docs/reading.md`` shows."""
    heads = [_SHORT.get(f, f) for f in FIGURES]
    lines = [
        "| paper | pages | " + " | ".join(heads) + " |",
        "|---|---:|" + "---:|" * len(FIGURES),
    ]
    total = baseline["total"]
    pages = sum(int(f.get("pages", 0)) for f in baseline["papers"].values())
    cells = " | ".join(str(total.get(f, 0)) for f in FIGURES)
    lines.append(f"| **all papers** | {pages} | {cells} |")

    def rate(item: tuple[str, dict[str, Any]]) -> float:
        figures = item[1]
        flagged = sum(int(figures.get(f, 0)) for f in WORSE_UP)
        return flagged / max(1, int(figures.get("pages", 0)))

    read = [(name, f) for name, f in baseline["papers"].items() if "error" not in f]
    for name, figures in sorted(read, key=lambda item: (-rate(item), item[0]))[:DOCS_WORST]:
        cells = " | ".join(str(figures.get(f, 0)) for f in FIGURES)
        lines.append(f"| {name} | {figures.get('pages', 0)} | {cells} |")
    return "\n".join(lines)


DOCS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "reading.md"
DOCS_START, DOCS_END = "<!-- corpus-audit-table -->", "<!-- /corpus-audit-table -->"


def docs_block(page: str, baseline: dict[str, Any]) -> str:
    """``page`` (the text of ``docs/reading.md``) with the table between its markers made anew
    from ``baseline``."""
    head, start, rest = page.partition(DOCS_START)
    _, end, tail = rest.partition(DOCS_END)
    if not start or not end:
        raise ValueError(f"{DOCS_PAGE.name} lacks the markers {DOCS_START} ... {DOCS_END}")
    return f"{head}{DOCS_START}\n{docs_table(baseline)}\n{DOCS_END}{tail}"


def write_docs_table() -> str:
    """Rewrite the docs' table from the committed baseline; say what was done."""
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    DOCS_PAGE.write_text(docs_block(DOCS_PAGE.read_text(encoding="utf-8"), baseline))
    return f"rewrote the corpus audit's table in {DOCS_PAGE}"


def run(
    folders: Sequence[Path] | None = None,
    write: Path | None = None,
    jobs: int = 2,
    timeout_s: float = 600,
    update: bool = False,
) -> str:
    """The audit's table, with what changed since the baseline (``update``: rewrite it)."""
    folders = list(folders or (CORPUS, CORPUS2))
    started = time.perf_counter()
    rows = audit_all(folders, write, jobs, timeout_s)
    seconds = time.perf_counter() - started
    out = ["The corpus audit (issue 33): what a reader of the requests and the pages flags"]
    out.append(table(rows))
    out.append(f"audit took {seconds:.0f} s ({len(rows)} papers, {jobs} at once)")
    if update:
        BASELINE.write_text(
            json.dumps(baseline_of(rows), indent=1, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        out.append(f"baseline written: {BASELINE}")
    else:
        found = changes(rows, load_baseline())
        out.append("since the baseline: " + ("no change" if not found else ""))
        out.extend(f"  {line}" for line in found)
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    summary = (__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m bench.corpus", description=summary)
    parser.add_argument("folders", nargs="*", type=Path, help="folders of PDFs")
    parser.add_argument("--write", type=Path, help="write the listings and flagged pages here")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--update-baseline", action="store_true")
    parser.add_argument("--docs", action="store_true", help="rewrite docs/reading.md's table")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.docs:
        print(write_docs_table())
        return
    if args.one is not None:
        print(json.dumps(measure(args.one, args.write)))
        return
    print(run(args.folders, args.write, args.jobs, args.timeout, args.update_baseline))


if __name__ == "__main__":
    main()

"""What the model reads: per paper, how many requests start or end inside a sentence, words cut
in two, and for Korean sources Hangul runs of 12+ syllables (words run together).

Each paper is read as the pipeline reads it (OCR for the scanned 10) and its requests are
audited by ``translation.read.request_audit``. Goals from issue 22 on the corpus: broken prose
requests <= 3 %, no word cut in two, long Hangul runs <= 2 %.

    python -m bench.requests [CORPUS_DIR]
    python -m bench.requests --write DIR [CORPUS_DIR]   (also DIR/<paper>-requests.txt)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from bench.pdf_bench import CORPUS
from common.settings import Settings
from translation.model.sentence_budget import budget_pieces
from translation.read.flow.passage import passages
from translation.read.request_audit import Audit, audit, flags

#: Papers measured, with their source language.
PAPERS: dict[str, str] = {
    "01": "en",
    "02": "en",
    "03": "en",
    "04": "en",
    "05": "en",
    "07": "en",
    "09": "ko",
    "10": "en",
}
GOAL_BROKEN = 0.03
GOAL_LONG_HANGUL = 0.02


def paper_requests(data: bytes) -> list[tuple[str, str]]:
    """(id, text) of every request the pipeline sends for the PDF ``data``, in reading order
    (OCR where the pipeline would use it; a paragraph over the default sentence budget as its
    pieces, ``<paragraph id>.<n>``; a paragraph flowing over several boxes as one passage,
    ``<first piece's id>+``)."""
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs

    budget = Settings.model_fields["request_max_tokens"].default
    doc = open_document(data)
    try:
        paragraphs = extract_paragraphs(doc)
    finally:
        doc.close()
    requests = []
    for passage in passages(paragraphs):
        # A paragraph that flows over several boxes is one passage: its first piece's id, "+".
        ident = passage.pieces[0].id + ("+" if len(passage.pieces) > 1 else "")
        pieces = budget_pieces(passage.text, budget)
        for n, piece in enumerate(pieces, 1):
            requests.append((ident if len(pieces) == 1 else f"{ident}.{n}", piece))
    return requests


def requests_listing(requests: Sequence[tuple[str, str]], language: str) -> str:
    """One request a line: its id, flags, the text. Flags (prose requests only): ``<`` starts
    inside a sentence, ``>`` ends inside one, ``-`` ends with a cut word, ``!`` holds a word cut
    in two."""
    lines = []
    previous = ""
    for ident, text in requests:
        found = flags(text, previous, language)
        previous = text
        marks = (
            ("<" if found.prose and found.starts_inside else " ")
            + (">" if found.prose and found.ends_inside else " ")
            + ("-" if found.prose and found.ends_cut else " ")
            + ("!" if found.cut_words else " ")
        )
        lines.append(f"{ident:<10} {marks} {' '.join(text.split())}")
    return "\n".join(lines) + "\n"


def _row(name: str, result: Audit) -> str:
    hangul = (
        f"{result.long_hangul_share:>6.1%} of {result.hangul_runs:>4}"
        if result.hangul_runs
        else f"{'-':>14}"
    )
    return (
        f"{name:<44} {result.requests:>5} {result.prose:>5} {result.broken_share:>7.1%} "
        f"{result.starts_inside:>5} {result.ends_inside_share:>7.1%} {result.cut_words:>4} "
        f"{hangul}"
    )


def run(corpus: Path | None = None, write: Path | None = None) -> str:
    """The table for the corpus papers of :data:`PAPERS` (``write``: also each paper's
    listing as ``<paper>-requests.txt`` there)."""
    folder = corpus or CORPUS
    if not folder.is_dir():
        return f"requests bench: no corpus at {folder}"
    head = (
        f"{'paper':<44} {'reqs':>5} {'prose':>5} {'broken':>7} {'lower':>5} "
        f"{'open end':>7} {'cut':>4} {'Hangul 12+':>14}"
    )
    lines = ["What the model reads (issue 22)", head, "-" * len(head)]
    checks = []
    for number, language in PAPERS.items():
        for path in sorted(folder.glob(f"{number}_*.pdf")):
            requests = paper_requests(path.read_bytes())
            result = audit([text for _, text in requests], language)
            lines.append(_row(path.stem[:44], result))
            if write is not None:
                write.mkdir(parents=True, exist_ok=True)
                listing = requests_listing(requests, language)
                (write / f"{path.stem}-requests.txt").write_text(listing, encoding="utf-8")
            if result.broken_share > GOAL_BROKEN:
                checks.append(f"FAIL {number}: {result.broken_share:.1%} broken prose requests")
            if result.cut_words:
                checks.append(f"FAIL {number}: {result.cut_words} words cut in two")
            if result.hangul_runs and result.long_hangul_share > GOAL_LONG_HANGUL:
                checks.append(f"FAIL {number}: {result.long_hangul_share:.1%} long Hangul runs")
    lines.append("-" * len(head))
    lines.append(
        "broken: prose requests (8+ words) starting in lower case or ending with a cut word"
        f" (goal <= {GOAL_BROKEN:.0%}); lower: of them, starting in lower case; open end: ending"
        " with no stop; cut: words cut in two (goal 0); Hangul 12+: runs of 12+ syllables"
        f" (goal <= {GOAL_LONG_HANGUL:.0%})"
    )
    lines.extend(checks or ["ok every goal"])
    return "\n".join(lines)


def main(argv: Sequence[str]) -> None:
    args = list(argv)
    write = None
    if args[:1] == ["--write"] and len(args) >= 2:
        write = Path(args[1])
        args = args[2:]
    print(run(Path(args[0]) if args else None, write))


if __name__ == "__main__":
    main(sys.argv[1:])

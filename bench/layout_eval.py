"""PyMuPDF's layout model against our segmentation heuristics, on the corpus (issue 10's hint).

``pymupdf.layout`` (the pymupdf_layout package) adds ``page.get_layout()``, which fills
``page.layout_information`` with ``[x0, y0, x1, y1, label]`` boxes from an ONNX graph model:
text, title, section-header, list-item, caption, footnote, formula, table, picture, page-header,
page-footer. This script runs it on every page of papers 01-05, 07 and 09 and compares its boxes
with what ``translation.read.extraction.extract_paragraphs`` decides, span by span (each text
span of ``read_layout`` is given the smallest model box holding its centre, and the paragraph whose
redaction rects hold it, if any; spans are weighted by their characters):

- ``sent%``: characters of that label we send to the LLM (page headers/footers should be ~0,
  content ~100; formulas are sent only as placeholders, ``as-text%`` counts formula characters
  sent as plain words);
- ``heading%``/``cell%``: of the characters sent, those in our HEADING/CELL paragraphs;
- ``merged``: boxes that share one of our paragraphs with another box (a paragraph spanning a
  list item and the next, or body text and a footnote); a paragraph running on into the next
  column is counted apart as a continuation, not a merge;
- ``split``: boxes whose characters went into two or more of our paragraphs.

Each paper runs in two child processes: one with our extraction alone (the layout model kept
from loading), one with the model too; peak RSS and times per page come from them.

    python -m bench.layout_eval [CORPUS_DIR] [--examples N] [--variant default|rf]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.child import ChildFailed, measure_in_child
from bench.pdf_bench import CORPUS

PAPERS = ("01", "02", "03", "04", "05", "07", "09")
LABELS = (
    "text",
    "title",
    "section-header",
    "list-item",
    "caption",
    "footnote",
    "formula",
    "table",
    "picture",
    "page-header",
    "page-footer",
    "(none)",
)
#: Labels whose text a reader wants translated.
CONTENT = {"text", "title", "section-header", "list-item", "caption", "footnote"}
PAD = 1.0  # points of slack around a box when placing a span centre in it

Rect = tuple[float, float, float, float]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _inside(x: float, y: float, r: Sequence[float]) -> bool:
    return r[0] - PAD <= x <= r[2] + PAD and r[1] - PAD <= y <= r[3] + PAD


def _box_of(x: float, y: float, boxes: Sequence[Sequence[Any]]) -> int:
    """Index of the smallest box holding the point, or -1."""
    best, area = -1, float("inf")
    for i, box in enumerate(boxes):
        if _inside(x, y, box):
            a = (box[2] - box[0]) * (box[3] - box[1])
            if a < area:
                best, area = i, a
    return best


def _same_column(a: Sequence[float], b: Sequence[float]) -> bool:
    overlap = min(a[2], b[2]) - max(a[0], b[0])
    return overlap >= 0.5 * min(a[2] - a[0], b[2] - b[0])


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 70 else text[:67] + "..."


class Tally:
    """Counts for one paper (summed over papers by the parent)."""

    def __init__(self) -> None:
        self.labels: dict[str, Counter[str]] = defaultdict(Counter)
        self.merges: Counter[str] = Counter()
        self.ours: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = defaultdict(list)

    def example(self, what: str, text: str, keep: int = 4) -> None:
        if len(self.examples[what]) < keep and text not in self.examples[what]:
            self.examples[what].append(text)

    def as_json(self) -> dict[str, Any]:
        return {
            "labels": {k: dict(v) for k, v in self.labels.items()},
            "merges": dict(self.merges),
            "ours": dict(self.ours),
            "examples": dict(self.examples),
        }


def compare_page(
    tag: str,
    layout: Any,
    boxes: Sequence[Sequence[Any]],
    paragraphs: Sequence[Any],
    references: Sequence[Any],
    tally: Tally,
) -> None:
    """Add one page's comparison to ``tally``. ``layout`` is our ``PageLayout``, ``boxes`` the
    model's ``[x0, y0, x1, y1, label]``, ``paragraphs`` ours on that page (what we send) and
    ``references`` the reference-list paragraphs we leave out by design."""
    labels = [str(b[4]) for b in boxes]
    box_chars: Counter[int] = Counter()
    box_sent: Counter[int] = Counter()
    box_words: Counter[int] = Counter()
    box_refs: Counter[int] = Counter()
    box_body: Counter[int] = Counter()
    box_text: dict[int, list[str]] = defaultdict(list)
    box_paras: dict[int, Counter[str]] = defaultdict(Counter)
    para_boxes: dict[str, Counter[int]] = defaultdict(Counter)
    by_id = {p.id: p for p in paragraphs}
    for block in layout.blocks:
        for line in block.lines:
            for span in line.spans:
                chars = len(span.text.strip())
                if not chars:
                    continue
                x, y = (span.bbox[0] + span.bbox[2]) / 2, (span.bbox[1] + span.bbox[3]) / 2
                box = _box_of(x, y, boxes)
                label = labels[box] if box >= 0 else "(none)"
                para = next((p for p in paragraphs if any(_inside(x, y, r) for r in p.rects)), None)
                counts = tally.labels[label]
                counts["chars"] += chars
                box_chars[box] += chars
                box_text[box].append(span.text)
                if para is None:
                    if any(_inside(x, y, r) for p in references for r in p.rects):
                        counts["reference"] += chars
                        box_refs[box] += chars
                    elif label in CONTENT:
                        counts["dropped"] += chars
                    continue
                counts["sent"] += chars
                counts[str(para.kind)] += chars
                placeholder = any(
                    _inside(x, y, r) for rects in para.formula_boxes.values() for r in rects
                )
                counts["placeholder" if placeholder else "words"] += chars
                if not placeholder:
                    box_words[box] += chars
                box_sent[box] += chars
                box_paras[box][para.id] += chars
                para_boxes[para.id][box] += chars
                tally.ours[f"{para.kind}:{label}"] += chars
                if label == "table" and para.kind == "body":
                    box_body[box] += chars
                if label == "section-header" and para.kind == "body":
                    tally.example("section-header we send as body", f"{tag}: {para.text[:60]}")
                if label == "text" and para.kind == "heading":
                    tally.example("our heading in a model text box", f"{tag}: {para.text[:60]}")
    for box, label in enumerate(labels):
        tally.labels[label]["boxes"] += 1
        chars, sent = box_chars[box], box_sent[box]
        text = _snippet("".join(box_text[box]))
        if not chars:
            continue
        if label in CONTENT and sent + box_refs[box] < 0.5 * chars and chars >= 20:
            tally.labels[label]["boxes-dropped"] += 1
            tally.example(f"content the model sees, we drop ({label})", f"{tag}: {text}")
        if label in ("page-header", "page-footer") and sent >= 0.5 * chars:
            tally.labels[label]["boxes-sent"] += 1
            tally.example(f"{label} we translate", f"{tag}: {text}")
        if label == "table" and box_body[box] >= 0.3 * chars:
            tally.example("table box sent mostly as body paragraphs", f"{tag}: {text}")
        if label == "formula" and box_words[box] >= 0.5 * chars:
            tally.labels[label]["boxes-sent"] += 1
            tally.example("formula box sent as words (not placeholders)", f"{tag}: {text}")
        if sum(1 for n in box_paras[box].values() if n >= 5) >= 2:
            tally.labels[label]["split"] += 1
            if label in ("section-header", "caption", "footnote", "list-item", "title"):
                tally.example(f"{label} split into several paragraphs", f"{tag}: {text}")
    merged: set[int] = set()
    for pid, spread in para_boxes.items():
        total = sum(spread.values())
        big = sorted(b for b, n in spread.items() if b >= 0 and n >= max(5, 0.05 * total))
        pairs: set[str] = set()
        for i, a in enumerate(big):
            for b in big[i + 1 :]:
                if labels[a] == labels[b] == "text" and not _same_column(boxes[a], boxes[b]):
                    pairs.add("text+text (next column)")
                    continue
                pairs.add("+".join(sorted((labels[a], labels[b]))))
                merged.update((a, b))
        for pair in pairs:  # each paragraph counts once per pair of labels it joins
            tally.merges[pair] += 1
            if "column" not in pair:
                tally.example(f"one paragraph over {pair}", f"{tag}: {_snippet(by_id[pid].text)}")
    for box in merged:
        tally.labels[labels[box]]["merged"] += 1


def _use_variant(variant: str) -> None:
    """Make ``page.get_layout()`` use ``variant``: ``default`` (what pymupdf_layout installs:
    image + text features, table grids) or ``rf`` (text features only, no table grids)."""
    if variant == "default":
        return
    import pymupdf
    from pymupdf.layout import DocumentLayoutAnalyzer

    model = DocumentLayoutAnalyzer.get_model(feature_set_name=variant)
    model._model.table_grid_extractor = None  # cells only; the labels are unchanged
    pymupdf._get_layout = lambda page, **kwargs: model.predict(page, **kwargs)


def measure(path: Path, with_model: bool, variant: str = "default") -> dict[str, Any]:
    """Our extraction of ``path`` (and, ``with_model``, the layout model's boxes and the
    comparison); times in ms per page, peak RSS in MB."""
    import pymupdf

    if with_model:  # the engine keeps the model from loading (translation/__init__.py)
        if "pymupdf.layout" in sys.modules and sys.modules["pymupdf.layout"] is None:
            del sys.modules["pymupdf.layout"]
        import pymupdf.layout  # sets page.get_layout's model

    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs, read_layout

    imported = _rss_mb()
    if with_model:
        _use_variant(variant)  # (the default model is loaded on import whatever the variant)
    doc = open_document(path.read_bytes())
    started = time.perf_counter()
    paragraphs = extract_paragraphs(doc)
    ours_ms = (time.perf_counter() - started) * 1000 / doc.page_count
    references = [
        p for p in extract_paragraphs(doc, include_references=True) if p.kind == "reference"
    ]
    result: dict[str, Any] = {
        "pages": doc.page_count,
        "paragraphs": len(paragraphs),
        "ours_ms": ours_ms,
        "imported_rss": imported,
    }
    if with_model:
        if getattr(pymupdf, "_get_layout", None) is None:
            raise SystemExit("pymupdf_layout is not installed: pip install pymupdf-layout")
        tally = Tally()
        model_ms = 0.0
        by_page: dict[int, list[Any]] = defaultdict(list)
        refs_by_page: dict[int, list[Any]] = defaultdict(list)
        for para in paragraphs:
            by_page[para.page].append(para)
        for para in references:
            refs_by_page[para.page].append(para)
        for page in doc:
            began = time.perf_counter()
            page.get_layout()
            model_ms += (time.perf_counter() - began) * 1000
            boxes = page.layout_information or []
            tag = f"{path.name[:2]} p.{page.number + 1}"
            layout = read_layout(page)
            compare_page(tag, layout, boxes, by_page[page.number], refs_by_page[page.number], tally)
        result["model_ms"] = model_ms / doc.page_count
        result["tally"] = tally.as_json()
    result["rss"] = _rss_mb()
    return result


def _child(path: Path, with_model: bool, variant: str = "default") -> dict[str, Any]:
    extra = ["--variant", variant] + ([] if with_model else ["--no-model"])
    try:
        return measure_in_child("bench.layout_eval", path, *extra, timeout_s=900)
    except ChildFailed as exc:
        raise RuntimeError(f"layout eval of {path.name} failed: {exc}") from None


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:5.1f}" if whole else "    -"


def report(
    rows: dict[str, tuple[dict[str, Any], dict[str, Any]]], examples: int, variant: str
) -> str:
    """The cost table, the per-label table, the merges and a few examples."""
    lines = [
        f"Layout model (pymupdf.layout, variant {variant}) vs our heuristics",
        f"{'paper':<6} {'pages':>5} {'ours ms/p':>9} {'RSS ours':>8} {'model ms/p':>10} "
        f"{'RSS +model':>10} {'delta MB':>8}",
    ]
    labels: dict[str, Counter[str]] = defaultdict(Counter)
    merges: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    found: dict[str, list[str]] = defaultdict(list)
    pages = 0
    model_total = ours_total = 0.0
    for number, (plain, full) in rows.items():
        pages += full["pages"]
        model_total += full["model_ms"] * full["pages"]
        ours_total += plain["ours_ms"] * plain["pages"]
        lines.append(
            f"{number:<6} {full['pages']:>5} {plain['ours_ms']:>9.0f} {plain['rss']:>8.0f} "
            f"{full['model_ms']:>10.0f} {full['rss']:>10.0f} {full['rss'] - plain['rss']:>8.0f}"
        )
        tally = full["tally"]
        for label, counts in tally["labels"].items():
            labels[label].update(counts)
        merges.update(tally["merges"])
        ours.update(tally["ours"])
        for what, texts in tally["examples"].items():
            found[what].extend(texts)
    plain_import = min(p["imported_rss"] for p, _ in rows.values())
    model_import = min(f["imported_rss"] for _, f in rows.values())
    lines.append(
        f"{'all':<6} {pages:>5} {ours_total / pages:>9.0f} {'':>8} {model_total / pages:>10.0f}"
    )
    lines.append(
        f"import pymupdf: {plain_import:.0f} MB without the model, {model_import:.0f} MB with it"
        " (pymupdf_layout installed = loaded on import)"
    )
    lines.append("")
    head = (
        f"{'label':<15} {'boxes':>5} {'chars':>7} {'sent%':>6} {'refs%':>5} {'words%':>6} "
        f"{'head%':>6} {'cell%':>6} {'body%':>6} {'merged':>6} {'split':>5} {'box dropped':>11} "
        f"{'box sent':>8}"
    )
    lines += [head, "-" * len(head)]
    for label in LABELS:
        c = labels.get(label)
        if not c:
            continue
        sent = c["sent"]
        lines.append(
            f"{label:<15} {c['boxes']:>5} {c['chars']:>7} {_pct(sent, c['chars']):>6} "
            f"{_pct(c['reference'], c['chars']):>5} "
            f"{_pct(c['words'], c['chars']):>6} {_pct(c['heading'], sent):>6} "
            f"{_pct(c['cell'], sent):>6} {_pct(c['body'], sent):>6} {c['merged']:>6} "
            f"{c['split']:>5} {c['boxes-dropped']:>11} {c['boxes-sent']:>8}"
        )
    lines += [
        "sent%: chars we send; refs%: chars of the reference list (left out by design);",
        "words%: chars sent as words, not placeholders; head/cell/body%: of the chars sent;",
        "box dropped: content boxes we mostly drop; box sent: header/footer boxes we mostly",
        "send, formula boxes we mostly send as words",
    ]
    for kind in ("heading", "cell"):
        total = sum(n for k, n in ours.items() if k.startswith(f"{kind}:"))
        where = Counter({k.split(":", 1)[1]: n for k, n in ours.items() if k.startswith(kind)})
        lines.append(
            f"our {kind.upper()} chars ({total}) in model boxes: "
            + ", ".join(f"{label} {_pct(n, total).strip()}%" for label, n in where.most_common(5))
        )
    lines.append(
        "paragraphs over two model boxes: " + ", ".join(f"{k} {v}" for k, v in merges.most_common())
    )
    if examples:
        for what, texts in sorted(found.items()):
            lines.append(f"- {what} ({len(texts)}+):")
            lines += [f"    {t}" for t in texts[:examples]]
    return "\n".join(lines)


def run(corpus: Path | None = None, examples: int = 3, variant: str = "default") -> str:
    folder = corpus or CORPUS
    if not folder.is_dir():
        return f"layout eval: no corpus at {folder}"
    rows: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for number in PAPERS:
        for path in sorted(folder.glob(f"{number}_*.pdf")):
            rows[number] = (_child(path, False), _child(path, True, variant))
    return report(rows, examples, variant)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.layout_eval")
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--examples", type=int, default=3, help="examples shown per finding")
    parser.add_argument(
        "--variant",
        choices=("default", "rf"),
        default="default",
        help="default: the model get_layout() uses; rf: text features only, no table grids",
    )
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-model", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, not args.no_model, args.variant)))
        return
    print(run(args.corpus, args.examples, args.variant))


if __name__ == "__main__":
    main()

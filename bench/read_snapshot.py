"""What reading decides, paper by paper, to prove that a move of ``translation/read`` keeps it.

For every PDF in ``../shared/corpus`` and ``../shared/corpus2`` the paper is read as the
pipeline reads it (``translation.read.extraction.extract_paragraphs``; OCR where the pipeline
would use it, in the paper's language as its name says; the password its name says), and every
paragraph (all its fields: id, kind, page, boxes and rects rounded to 0.01, text, ...) and
every request text (as ``bench.requests.paper_requests`` builds them) is recorded in order. A
paper that fails to open or to read is a row with its error; one that takes longer than
``TIMEOUT`` seconds is a row saying so. Each paper is read in a child process, so neither
stops the run.

    python -m bench.read_snapshot --write FILE.json   the full dump
    python -m bench.read_snapshot --check             per-paper digests vs bench/read-snapshot.json
    python -m bench.read_snapshot --update            rewrite bench/read-snapshot.json

Options after the command: ``--only PREFIX`` (papers whose name starts so, repeatable);
``--from FILE.json`` (``--check``, ``--update``: the rows of a dump written before, instead of
reading); ``--dump FILE.json`` (``--check``: also write the full dump, to diff).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import multiprocessing
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPORA = (ROOT.parent / "shared" / "corpus", ROOT.parent / "shared" / "corpus2")
BASELINE = Path(__file__).resolve().parent / "read-snapshot.json"
#: Seconds one paper may take (OCR of a scanned paper on a busy 2-core machine included).
TIMEOUT = 600.0
#: A paper's language, by a part of its name (others: English).
_LANGUAGES = {"_ko_": "ko", "_zh_": "zh-Hans", "_ja_": "ja", "_fr_": "fr"}
_PASSWORD = re.compile(r"_userpw_([^_]+)_")


def papers(only: Sequence[str] = ()) -> list[Path]:
    """The corpus PDFs, by name (those starting with one of ``only``, if given)."""
    found = sorted(p for folder in CORPORA if folder.is_dir() for p in folder.glob("*.pdf"))
    return [p for p in found if not only or any(p.name.startswith(o) for o in only)]


def _plain(value: Any) -> Any:
    """``value`` as JSON data: floats rounded to 0.01, sets sorted, enums as their values."""
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, float):
        rounded = round(value, 2)
        return 0.0 if rounded == 0 else rounded
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (frozenset, set)):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def read_paper(path: Path) -> dict[str, Any]:
    """The paragraphs and requests of the paper at ``path``, or ``{"error": reason}``."""
    from common.language import Language
    from common.settings import Settings
    from translation.model.sentence_budget import budget_pieces
    from translation.read.document import open_document
    from translation.read.extraction import extract_paragraphs
    from translation.read.flow.passage import passages
    from translation.read.ocr import OcrOptions

    language = next((code for key, code in _LANGUAGES.items() if key in path.name), "en")
    ocr = OcrOptions(language=Language(language))
    password = _PASSWORD.search(path.name)
    try:
        doc = open_document(path.read_bytes(), password[1] if password else None, ocr=ocr)
    except Exception as exc:
        return {"error": f"open: {type(exc).__name__}: {exc}"}
    try:
        paragraphs = extract_paragraphs(doc, ocr=ocr)
    except Exception as exc:
        return {"error": f"read: {type(exc).__name__}: {exc}"}
    finally:
        doc.close()
    # As bench.requests.paper_requests: a passage over several boxes is "<first id>+".
    budget = Settings.model_fields["request_max_tokens"].default
    requests = []
    for passage in passages(paragraphs):
        ident = passage.pieces[0].id + ("+" if len(passage.pieces) > 1 else "")
        pieces = budget_pieces(passage.text, budget)
        for n, piece in enumerate(pieces, 1):
            requests.append([ident if len(pieces) == 1 else f"{ident}.{n}", piece])
    return {"paragraphs": [_plain(p) for p in paragraphs], "requests": requests}


def _child(path: Path, out: Any) -> None:
    try:
        out.send(json.dumps(read_paper(path), ensure_ascii=False))
    except BaseException as exc:  # never lose the row
        out.send(json.dumps({"error": f"crash: {type(exc).__name__}: {exc}"}))
    finally:
        out.close()


def read_bounded(path: Path, timeout: float = TIMEOUT) -> dict[str, Any]:
    """:func:`read_paper` in a child process, ``{"error": ...}`` past ``timeout`` seconds."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(path, send), daemon=True)
    child.start()
    send.close()
    try:
        if receive.poll(timeout):
            try:
                result: dict[str, Any] = json.loads(receive.recv())
            except EOFError:
                result = {"error": f"crash: child exited {child.exitcode}"}
        else:
            result = {"error": f"timeout: over {timeout:.0f} s"}
    finally:
        receive.close()
        child.join(5)
        if child.is_alive():
            child.kill()
            child.join()
    return result


def digest(row: dict[str, Any]) -> str:
    """SHA-256 of a paper's row, key order and spacing fixed."""
    text = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def snapshot(only: Sequence[str] = (), verbose: bool = True) -> dict[str, dict[str, Any]]:
    """Every paper's row, by file name."""
    rows = {}
    for path in papers(only):
        rows[path.name] = read_bounded(path)
        if verbose:
            row = rows[path.name]
            what = row.get("error") or f"{len(row['paragraphs'])} paragraphs"
            print(f"  {path.name}: {what}", file=sys.stderr, flush=True)
    return rows


def _option(args: Sequence[str], name: str) -> list[str]:
    """The values given to the option ``name`` in ``args``."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == name]


def _write(path: Path, rows: dict[str, dict[str, Any]]) -> None:
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    only = _option(args, "--only")
    source, dump = _option(args, "--from"), _option(args, "--dump")
    if args[:1] == ["--write"] and len(args) >= 2:
        _write(Path(args[1]), snapshot(only))
        return 0
    rows = json.loads(Path(source[0]).read_text()) if source else None
    if args[:1] == ["--update"]:
        rows = rows if rows is not None else snapshot(only)
        known = json.loads(BASELINE.read_text()) if BASELINE.exists() and only else {}
        known.update({name: digest(row) for name, row in rows.items()})
        BASELINE.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")
        print(f"wrote {len(rows)} digests to {BASELINE}")
        return 0
    if args[:1] == ["--check"]:
        known = json.loads(BASELINE.read_text())
        rows = rows if rows is not None else snapshot(only)
        if dump:
            _write(Path(dump[0]), rows)
        differ = [name for name, row in rows.items() if known.get(name) != digest(row)]
        missing = [name for name in known if name not in rows and not only]
        for name in differ:
            print(f"DIFFERS {name}")
        for name in missing:
            print(f"MISSING {name}")
        print("identical" if not differ and not missing else f"{len(differ)} papers differ")
        return 1 if differ or missing else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

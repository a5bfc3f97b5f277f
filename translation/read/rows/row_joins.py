"""Rows joined into the lines they are: scripts to the line they hang from, a drop cap to its
word, pieces of one line that MuPDF keeps apart. Pure; frame coordinates.
"""

from __future__ import annotations

from translation.read.layout import union
from translation.read.math.formulas import GLYPH, MATH, NEUTRAL
from translation.read.measures import ASCENT, GLYPH_HEIGHT, SCRIPT, WORD_SPACE, line_step
from translation.read.rows.row import BOLD_SHARE, MATH_ONLY_RE, Row

_SCRIPT_REACH = 0.75  # font sizes: a script's baseline lies this near its host's
_SCRIPT_BESIDE = 0.5  # font sizes: a script stands this near its host's ends or inside
_DROP_CAP = 1.8  # a drop cap is this many times the size of the text it begins ...
_DROP_CAP_INTO, _DROP_CAP_GAP = 0.2, 1.5  # ... whose row starts this near its right (sizes)
_DROP_CAP_FOOT = 0.3  # font sizes: that row's baseline lies at most this far below the cap's
_PIECE_GAP = 0.6  # font sizes: pieces of one line stand at most this far apart ...
_PIECE_OVERLAP = 0.5  # ... or overlap by at most this much
_LEVEL = 0.2  # font sizes: pieces whose baselines lie this close are level
_SCRIPT_LEFT = 0.1  # font sizes: a lead script may start this far left of its piece
_ENTRIES_SIZE = 0.7  # a matrix's entries are at least this share of the line's size

_SCRIPT_CHARS = 6  # characters: a row of math scripts alone is at most this long


def attach_scripts(rows: list[Row]) -> list[Row]:
    """Rows of math scripts alone (Word writes a superscript as its own block) joined to the
    row they are the scripts of: same height within three quarters of its size, touching
    it sideways. Returns the rows left."""
    hosts = [r for r in rows if MATH_ONLY_RE.match(r.classes) is None]
    result = []
    for row in rows:
        host = None
        math = MATH_ONLY_RE.match(row.classes) is not None
        # A digit in the text face (TeX's subscript "2" of a formula, 2203.00130 p37) is a
        # script only under or beside a formula, not after a word (a footnote mark).
        if (math or row.text.isdigit()) and len(row.text) <= _SCRIPT_CHARS:
            near = [
                h
                for h in hosts
                if row.size < SCRIPT * h.size
                and h.cell == row.cell
                and abs(line_step(h, row)) < _SCRIPT_REACH * h.size
                and row.x0 <= h.x1 + _SCRIPT_BESIDE * h.size
                and row.x1 >= h.x0 - _SCRIPT_BESIDE * h.size
                and (math or _after_formula(h, row.x0))
            ]
            host = min(near, key=lambda h: abs(row.baseline - h.baseline), default=None)
        if host is None:
            result.append(row)
            continue
        at = sum(1 for box in host.boxes if box[0] <= row.x0)
        host.chars = host.chars[:at] + row.chars + host.chars[at:]
        host.classes = host.classes[:at] + row.classes + host.classes[at:]
        host.boxes[at:at] = row.boxes
        host.styles[at:at] = row.styles
        host.bbox = union([host.bbox, row.bbox])
        host.rects.extend(row.rects)
    return result


def _after_formula(host: Row, x: float) -> bool:
    """Whether the last glyph of ``host`` that starts left of ``x`` is math."""
    before = [k for k, box in zip(host.classes, host.boxes, strict=True) if box[0] <= x]
    math = [k for k in before if k != NEUTRAL]
    return bool(math) and math[-1] in (GLYPH, MATH)


def attach_drop_caps(rows: list[Row]) -> list[Row]:
    """A drop cap (one letter, at least 1.8 times the size of the text, set down over the first
    lines of a paragraph) joined to the word it begins: the topmost row that starts right
    beside it, within its height ("W" + "ITH a recent advance"). The rows beside it reach
    back over it, so they read as the paragraph's lines. Returns the rows left."""
    result = []
    for cap in rows:
        host = None
        letters = cap.text.strip("\"'“‘«")
        if len(letters) == 1 and letters.isalpha() and not cap.cell:
            beside = [
                r
                for r in rows
                if r is not cap
                and cap.size >= _DROP_CAP * r.size
                and cap.x1 - _DROP_CAP_INTO * r.size <= r.x0 <= cap.x1 + _DROP_CAP_GAP * r.size
                and cap.baseline - ASCENT * cap.size
                <= r.baseline
                <= cap.baseline + _DROP_CAP_FOOT * r.size
            ]
            host = min(beside, key=lambda r: r.baseline, default=None)
        if host is None:
            result.append(cap)
            continue
        start = len(cap.chars) - len(cap.chars.lstrip())
        end = len(cap.chars.rstrip())
        lead = len(host.chars) - len(host.chars.lstrip())
        host.chars = host.chars[:lead] + cap.chars[start:end] + host.chars[lead:]
        host.classes = host.classes[:lead] + cap.classes[start:end] + host.classes[lead:]
        host.boxes[lead:lead] = cap.boxes[start:end]
        host.styles[lead:lead] = cap.styles[start:end]
        host.bold_lead += (end - start) if host.bold_lead else 0
        host.rects.extend(cap.rects)
        for row in beside:
            row.bbox = (min(row.x0, cap.x0), row.bbox[1], row.bbox[2], row.bbox[3])
    return result


def join_pieces(rows: list[Row]) -> list[Row]:
    """Pieces of one line that sit in separate blocks joined into one row: a piece touching
    the next one sideways on the same baseline, or a math-only piece (a big operator, whose
    baseline MuPDF puts high) whose glyphs span the line's baseline. Returns the rows left."""
    rows = sorted(rows, key=lambda r: r.x0)
    alive = [True] * len(rows)
    result = []
    for i, a in enumerate(rows):
        if not alive[i]:
            continue
        grew = True
        while grew:  # a grown row may reach the next piece
            grew = False
            for j in range(i + 1, len(rows)):
                b = rows[j]
                if b.x0 - a.x1 >= _PIECE_GAP * max(a.size, b.size):
                    break  # sorted by x0: the rest start further right still
                if alive[j] and _same_line(a, b):
                    _append(a, b)
                    alive[j] = False
                    grew = True
        result.append(a)
    return result


def _same_line(a: Row, b: Row) -> bool:
    """Whether ``b`` continues ``a`` on its line, right after it, or is a row of entries of
    an inline array ``a`` ends in (see :func:`_stacked_entries`)."""
    size = max(a.size, b.size)
    if a.cell or b.cell:
        return False
    if _stacked_entries(a, b):
        return True
    lead = _lead_scripts(a, b)
    start = b.boxes[lead][0] if lead else b.x0
    if not -_PIECE_OVERLAP * size < start - a.x1 < _PIECE_GAP * size:
        return False
    if abs(line_step(b, a)) < _LEVEL * size and min(a.size, b.size) >= SCRIPT * size:
        return True
    return any(
        MATH_ONLY_RE.match(m.classes) is not None
        and m.size >= SCRIPT * o.size  # an operator at text size, not a script mark
        and m.bbox[1] < o.baseline < m.bbox[3]
        for m, o in ((a, b), (b, a))
    )


def _lead_scripts(line: Row, piece: Row) -> int:
    """How many characters ``piece`` starts with that are scripts of the formula ``line``
    ends in, set under or over it (0 if none): TeX draws a formula's subscript after its
    superscript, back under it, and MuPDF may start its next block there, so the piece of
    the line after the formula begins left of the formula's end (2203.00130 p37)."""
    start = _formula_start(line)
    if start is None:
        return 0
    x0, size = line.boxes[start][0], line.size
    script = SCRIPT * GLYPH_HEIGHT * size  # as Row.mathy
    count = 0
    for char, kind, box in zip(piece.chars, piece.classes, piece.boxes, strict=True):
        if not char.isspace() and (
            kind not in (GLYPH, MATH, NEUTRAL)
            or box[3] - box[1] >= script
            or not x0 - _SCRIPT_LEFT * size <= box[0] < line.x1
        ):
            break
        count += 1
    if count == len(piece.chars) or not piece.chars[:count].strip():
        return 0
    return count


def _formula_start(line: Row) -> int | None:
    """The index of the first character of the formula ``line`` ends in (trailing
    punctuation and spaces aside), or None if it ends in text."""
    tail = len(line.classes.rstrip(NEUTRAL))
    start = tail
    while start > 0 and line.classes[start - 1] in (GLYPH, MATH, NEUTRAL):
        start -= 1
    return None if start == tail else start


def _stacked_entries(line: Row, entries: Row) -> bool:
    """Whether ``entries`` (math alone, near the text size) is a row of an inline array or
    matrix whose other entries end ``line``, a line of text: it starts inside the line's
    last formula, stacked above or below it within three quarters of a font size."""
    size = line.size
    if MATH_ONLY_RE.match(entries.classes) is None or MATH_ONLY_RE.match(line.classes):
        return False
    if entries.size < _ENTRIES_SIZE * size or abs(line_step(line, entries)) >= _SCRIPT_REACH * size:
        return False
    start = _formula_start(line)
    if start is None:
        return False  # the line does not end in a formula
    formula_x0 = line.boxes[start][0]
    return formula_x0 - _PIECE_OVERLAP * size <= entries.x0 <= line.x1 + _PIECE_GAP * size


def _append(a: Row, b: Row) -> None:
    if MATH_ONLY_RE.match(a.classes) and not MATH_ONLY_RE.match(b.classes):
        a.baseline, a.size = b.baseline, b.size  # the text's line, not the operator's
    # Apart, or stacked under the row's end (an array's entries): a space between them.
    if abs(b.x0 - a.x1) > WORD_SPACE * a.size and not a.chars[-1:].isspace():
        a.chars += " "
        a.classes += NEUTRAL
        a.boxes.append((min(a.x1, b.x0), a.bbox[1], max(a.x1, b.x0), a.bbox[3]))
        a.styles.append(a.styles[-1] if a.styles else 0)
    # Bold as Row.bold has it, for the letters of both (a bold vector name "h" joined to
    # the plain words after it is no bold line: 02 p5).
    letters = [sum(c.isalpha() for c in r.chars) for r in (a, b)]
    bold = letters[0] * a.bold + letters[1] * b.bold
    a.bold = sum(letters) > 0 and bold >= BOLD_SHARE * sum(letters)
    a.chars += b.chars
    a.classes += b.classes
    a.boxes.extend(b.boxes)
    a.styles.extend(b.styles)
    a.bbox = union([a.bbox, b.bbox])
    a.rects.extend(b.rects)

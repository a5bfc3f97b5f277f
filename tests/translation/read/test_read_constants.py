"""Every geometric or typographic threshold of ``translation/read/`` is a named constant.

A rule compares a measure against a constant that says what it stands for
(``INDENT = 0.8  # of the body size: ...``), defined at module level in the module that owns
the concept (``translation.read.measures`` for what several stages measure alike). A bare
float in a rule hides which concept it belongs to, so a rule written for one paper cannot be
seen as a case of one that exists. The scan below holds the line with :mod:`ast`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import REPO_ROOT
from translation.read import measures
from translation.read.numbering import grammar

READ = REPO_ROOT / "translation" / "read"

#: Floats a rule may write bare outside a comparison: zero and one (defaults, identities,
#: clamps at zero), halves and doubles (midpoints, half a width). Inside a comparison only
#: zero: anything compared against is a threshold and is named.
ARITHMETIC = frozenset({0.0, 0.5, 1.0, 2.0})
COMPARED = frozenset({0.0})


def _constant_nodes(tree: ast.Module) -> set[int]:
    """The nodes of the module-level assignments: where constants are defined."""
    held: set[int] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            held.update(id(node) for node in ast.walk(statement))
    return held


def bare_floats(source: str) -> list[tuple[int, float]]:
    """(line, value) of each float literal of ``source`` outside a module-level assignment
    that is not plain arithmetic: inside a comparison any but ``COMPARED``, elsewhere any
    but ``ARITHMETIC`` (a factor assigned to a name and compared later is a threshold too)."""
    tree = ast.parse(source)
    held = _constant_nodes(tree)
    compared: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            compared.update(id(sub) for sub in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or type(node.value) is not float:
            continue
        if id(node) in held:
            continue
        allowed = COMPARED if id(node) in compared else ARITHMETIC
        if node.value not in allowed:
            found.append((node.lineno, node.value))
    return sorted(found)


def strays(scan: Callable[[str], list[tuple[int, Any]]]) -> list[str]:
    """``path:line: value`` of each literal ``scan`` finds in ``translation/read``."""
    return [
        f"{path.relative_to(READ.parent.parent)}:{line}: {value}"
        for path in sorted(READ.rglob("*.py"))
        for line, value in scan(path.read_text(encoding="utf-8"))
    ]


def test_read_has_no_bare_thresholds() -> None:
    assert strays(bare_floats) == []


#: Whole numbers a comparison may hold bare: none, one and a pair (``len(rows) >= 2``). Counts
#: past those (``len(words) <= 4``, ``gap >= 3``) are thresholds and are named.
COMPARED_INTS = frozenset({0, 1, 2})
_BIT_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


def bare_ints(source: str) -> list[tuple[int, int]]:
    """(line, value) of each whole-number literal inside a comparison of ``source``, outside
    a module-level assignment, other than ``COMPARED_INTS``; an index (``box[3]``), the
    operand of a bit operation (``flags & 16``) and a number written in hex (a code point:
    ``0x3040 <= code``) are no thresholds."""
    tree = ast.parse(source)
    exempt = _constant_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            exempt.update(id(sub) for sub in ast.walk(node.slice))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _BIT_OPS):
            exempt.update(id(sub) for sub in ast.walk(node))
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Constant)
                and type(sub.value) is int
                and sub.value not in COMPARED_INTS
                and id(sub) not in exempt
                and not (ast.get_source_segment(source, sub) or "").lower().startswith("0x")
            ):
                found.add((sub.lineno, sub.value))
    return sorted(found)


def test_read_has_no_bare_whole_number_thresholds() -> None:
    """Origin: issue 34 criterion 3 (whole-number thresholds were not scanned)."""
    assert strays(bare_ints) == []


#: Whole numbers arithmetic may write bare: none, one and two (a pair, a half, a double).
ARITHMETIC_INTS = frozenset({0, 1, 2})
#: Calls whose whole-number arguments count things that are no thresholds: a range's ends, a
#: regular expression's group.
_COUNTING_CALLS = frozenset({"range", "group", "start", "end", "span"})


def bare_whole_numbers(source: str) -> list[tuple[int, int]]:
    """(line, value) of each whole-number literal of ``source`` outside a module-level
    assignment, comparisons included, other than ``ARITHMETIC_INTS``; an index, a bit
    operation's or a modulo's operand (``rotation % 360``), a number in hex and the arguments
    of :data:`_COUNTING_CALLS` are no thresholds."""
    tree = ast.parse(source)
    exempt = _constant_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            exempt.update(id(sub) for sub in ast.walk(node.slice))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (*_BIT_OPS, ast.Mod)):
            exempt.update(id(sub) for sub in ast.walk(node))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else None
            name = node.func.id if isinstance(node.func, ast.Name) else name
            if name in _COUNTING_CALLS:
                exempt.update(id(sub) for arg in node.args for sub in ast.walk(arg))
    return sorted(
        {
            (node.lineno, node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and type(node.value) is int
            and node.value not in ARITHMETIC_INTS
            and id(node) not in exempt
            and not (ast.get_source_segment(source, node) or "").lower().startswith("0x")
        }
    )


def test_read_has_no_bare_whole_numbers() -> None:
    """Origin: issue 34 criterion 3: whole numbers outside comparisons were not scanned
    (``len(rows) // 5``: one row in five may cross a gutter, written in two modules)."""
    assert strays(bare_whole_numbers) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(rows):\n    return len(rows) // 5\n", [(2, 5)]),
        ("def f(n):\n    return max(3, n)\n", [(2, 3)]),
        ("def f(x):\n    return x > 4\n", [(2, 4)]),
        ("class C:\n    most: int = 2000\n", [(2, 2000)]),
        ("def f(a, b):\n    return (a + b) // 2\n", []),
        ("def f(r):\n    return r % 360\n", []),
        ("def f(m):\n    return m.group(3)\n", []),
        ("def f():\n    return list(range(256))\n", []),
        ("def f(box):\n    return box[3]\n", []),
        ("ROOM = 6  # points\n\ndef f(x):\n    return x - ROOM\n", []),
    ],
)
def test_the_scan_finds_whole_numbers_in_arithmetic(
    source: str, expected: list[tuple[int, int]]
) -> None:
    assert bare_whole_numbers(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(words):\n    return len(words) > 12\n", [(2, 12)]),
        ("def f(gap):\n    return gap >= 3\n", [(2, 3)]),
        ("def f(a, s):\n    return a > 3 * s\n", [(2, 3)]),
        ("def f(rows):\n    return 0 < len(rows) <= 2\n", []),
        ("def f(box, y):\n    return box[3] > y\n", []),
        ("def f(flags):\n    return flags & 16 != 0\n", []),
        ("def f(code):\n    return 0x3040 <= code <= 0x30FF\n", []),
        ("def f(x):\n    n = 20\n    return x > n\n", []),
        ("LONG = 20  # characters\n\ndef f(n):\n    return n >= LONG\n", []),
    ],
)
def test_the_scan_finds_whole_number_thresholds(
    source: str, expected: list[tuple[int, int]]
) -> None:
    assert bare_ints(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(x, s):\n    return x > 0.8 * s\n", [(2, 0.8)]),
        ("def f(x):\n    return x <= 1.0\n", [(2, 1.0)]),
        ("def f(s):\n    reach = 0.3 * s\n    return reach\n", [(2, 0.3)]),
        ("def f(a, b):\n    return (a + b) / 2.0\n", []),
        ("def f(x):\n    return max(0.0, x) > 0.0\n", []),
        ("INDENT = 0.8  # of the size\n\ndef f(x, s):\n    return x > INDENT * s\n", []),
        ("class C:\n    leading: float = 1.2\n", [(2, 1.2)]),
    ],
)
def test_the_scan_tells_thresholds_from_arithmetic(
    source: str, expected: list[tuple[int, float]]
) -> None:
    assert bare_floats(source) == expected


def test_one_glyph_height() -> None:
    """A character's box is its ascent over the baseline and its descent under it."""
    assert measures.GLYPH_HEIGHT == measures.ASCENT + measures.DESCENT == 1.05
    assert measures.INK_TOP < measures.ASCENT and measures.INK_FOOT < measures.DESCENT


def test_indented_is_one_indent_either_way() -> None:
    assert measures.indented(109.0, 100.0, 10.0)
    assert not measures.indented(107.0, 100.0, 10.0)
    assert measures.outdented(91.0, 100.0, 10.0)
    assert not measures.outdented(93.0, 100.0, 10.0)


@pytest.mark.parametrize(
    ("piece", "text", "matches"),
    [
        (grammar.SECTION, "3.2.1", True),
        (grammar.SECTION, "3.2.1.4.5", False),
        (grammar.SECTION, "123", False),
        (grammar.ROMAN, "XIV", True),
        (grammar.ROMAN, "XL", False),
        (grammar.ROMAN_SECTION, "XL", True),
        (grammar.ROMAN_ITEM, "iv", True),
        (grammar.CIRCLED, "⑳", True),
        (grammar.CIRCLED, "㉟", True),
        (grammar.LETTER + grammar.SUBSECTIONS, "B.1", True),
        (grammar.ENTRY_NUMBER, "1234", True),
    ],
)
def test_the_numbering_grammar(piece: str, text: str, matches: bool) -> None:
    assert (re.fullmatch(piece, text) is not None) is matches


#: What a numbering pattern writes when it spells its own numbers or bullets instead of
#: taking them from :mod:`translation.read.numbering.grammar`: a bounded run of digits, a
#: class of Roman numerals, a bullet (a letter-and-digit class like "[A-Z0-9]" is a word's).
_OWN_NUMBERING = re.compile(r"\\d\{1,|\[[^\]]*(?:IVX|ivx)|0-9\]\{1,|[" + grammar.BULLETS + "]")
_RE_CALLS = frozenset({"compile", "match", "fullmatch", "search", "sub", "findall", "split"})


def own_numbering(source: str) -> list[tuple[int, str]]:
    """(line, text) of each literal piece of a regular expression in ``source`` (the
    pattern of a ``re`` call, constant parts of an f-string included) that writes its own
    number or bullet class."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_CALLS
            and node.args
        ):
            continue
        for sub in ast.walk(node.args[0]):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                if _OWN_NUMBERING.search(sub.value):
                    found.append((sub.lineno, sub.value))
    return sorted(found)


def test_numbering_patterns_use_the_grammar() -> None:
    """Every rule that reads a section's, an item's or an entry's number, or a bullet,
    builds it from the grammar's pieces, so the rules read a number alike."""
    found = [
        f"{path.relative_to(READ.parent.parent)}:{line}: {text!r}"
        for path in sorted(READ.rglob("*.py"))
        if path != Path(grammar.__file__).resolve()
        for line, text in own_numbering(path.read_text(encoding="utf-8"))
    ]
    assert found == []


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ('import re\nR = re.compile(r"^\\d{1,3}:")\n', 1),
        ('import re\nR = re.compile(r"^[IVX]+\\.")\n', 1),
        ('import re\nR = re.compile(rf"^\\(?[0-9ivx]{{1,4}}[.)]{X}")\n', 1),
        ('import re\nR = re.compile(r"^[•◦]\\s")\n', 1),
        ('import re\nR = re.compile(r"^\\(?[a-z0-9]{1,3}[.)]")\n', 1),
        ('import re\nR = re.compile(r"^[A-Z][A-Z0-9]*$")\n', 0),
        ('import re\nR = re.compile(rf"^{COUNT}:\\s+")\n', 0),
        ('import re\nR = re.compile(r"(?:19|20)\\d\\d")\n', 0),
    ],
)
def test_the_scan_finds_own_numbering(source: str, count: int) -> None:
    assert len(own_numbering(source)) == count

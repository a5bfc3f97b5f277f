"""OpenType CFF fonts made small enough to embed: one face out of a font collection (.ttc/.otc),
its bare CFF table, and that table cut down to the glyphs a document uses.

MuPDF subsets TrueType fonts but leaves CFF-flavoured OpenType fonts whole, and the CJK faces
(Noto Serif/Sans CJK) are 15-25 MB each. The cut keeps each kept glyph under its CID (what a
PDF's text refers to) and only the subroutines their outlines call, renumbered: a few
kilobytes a page of text. Pure: bytes in, bytes out; ``FontFormatError`` for anything this
reader does not understand (the caller then embeds the font whole).
"""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from common.errors import ZTError

#: A subroutine that does nothing.
_RETURN = b"\x0b"
_CHARSTRINGS, _CHARSET, _PRIVATE, _SUBRS = (17,), (15,), (18,), (19,)
_ROS, _FDARRAY, _FDSELECT = (12, 30), (12, 36), (12, 37)


class FontFormatError(ZTError):
    """A font file that is not what its name says (or a CFF feature not handled here)."""

    error_type = "FontFormatError"


def _u16(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">H", data, at)[0])


def _u32(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">L", data, at)[0])


def collection_face(data: bytes, index: int) -> bytes:
    """Face ``index`` of an OpenType collection as a standalone font (``data`` itself when it
    is a single font and ``index`` is 0)."""
    try:
        if data[:4] != b"ttcf":
            if index:
                raise FontFormatError(f"not a font collection; it has no face {index}")
            return data
        count = _u32(data, 8)
        if not 0 <= index < count:
            raise FontFormatError(f"the collection has {count} faces, not {index + 1}")
        start = _u32(data, 12 + 4 * index)
        version = data[start : start + 4]
        tables = _u16(data, start + 4)
        records = [struct.unpack_from(">4sLLL", data, start + 12 + 16 * i) for i in range(tables)]
        head = version + data[start + 4 : start + 12]
        at = 12 + 16 * tables
        # The tables are cut from the collection through a view and joined once: a face is
        # tens of megabytes, and growing one buffer table by table copied it again and again.
        view = memoryview(data)
        directory: list[bytes] = []
        body: list[bytes | memoryview] = []
        size = 0
        for tag, checksum, offset, length in records:
            if offset + length > len(data):
                raise FontFormatError(f"table {tag!r} runs past the end of the file")
            directory.append(struct.pack(">4sLLL", tag, checksum, at + size, length))
            padding = b"\0" * (-length % 4)
            body += (view[offset : offset + length], padding)
            size += length + len(padding)
        return b"".join([head, *directory, *body])
    except struct.error as exc:
        raise FontFormatError(f"truncated font file ({exc})") from None


def sfnt_table(font: bytes, tag: bytes) -> bytes:
    """Table ``tag`` (``b"CFF "``) of a single OpenType font."""
    try:
        for i in range(_u16(font, 4)):
            name, _, offset, length = struct.unpack_from(">4sLLL", font, 12 + 16 * i)
            if name == tag:
                return font[offset : offset + length]
    except struct.error:
        raise FontFormatError("truncated font file") from None
    raise FontFormatError(f"the font has no {tag.decode().strip()} table")


# --- CFF ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Index:
    """A CFF INDEX: where it lies in the table, and (start, end) of each item by number."""

    start: int
    end: int
    starts: list[int]  # each item's start, then the end of the last one

    def __len__(self) -> int:
        return max(0, len(self.starts) - 1)

    def __getitem__(self, number: int) -> tuple[int, int]:
        if not 0 <= number < len(self):
            raise IndexError(number)
        return self.starts[number], self.starts[number + 1]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.starts[:-1], self.starts[1:], strict=True)


def _offsets(raw: bytes, size: int) -> list[int]:
    """The big-endian unsigned integers of ``size`` bytes each in ``raw``."""
    count = len(raw) // size
    if size == 1:
        return list(raw)
    if size == 3:  # each widened to 4 bytes by slice copies, then read as 4-byte words
        wide = bytearray(4 * count)
        for byte in range(3):
            wide[byte + 1 :: 4] = raw[byte : 3 * count : 3]
        raw, size = bytes(wide), 4
    words = array("H" if size == 2 else "I")
    if words.itemsize != size:  # a platform without 4-byte "I": the plain way
        return [int.from_bytes(raw[i : i + size], "big") for i in range(0, count * size, size)]
    words.frombytes(raw[: count * size])
    if sys.byteorder == "little":
        words.byteswap()
    return words.tolist()


def _index(data: bytes, at: int) -> _Index:
    count = _u16(data, at)
    if count == 0:
        return _Index(at, at + 2, [0])
    size = data[at + 2]
    if not 1 <= size <= 4:
        raise FontFormatError("bad CFF INDEX")
    first = at + 3
    offsets = _offsets(data[first : first + (count + 1) * size], size)
    if len(offsets) != count + 1:
        raise FontFormatError("CFF INDEX runs past the end of the table")
    base = first + (count + 1) * size - 1
    # A CJK face's CharStrings hold 65,535 items: read by C loops, not Python ones.
    starts = list(map(base.__add__, offsets))
    end = starts[-1]
    if end > len(data):
        raise FontFormatError("CFF INDEX runs past the end of the table")
    return _Index(at, end, starts)


def _pack_index(items: list[bytes]) -> bytes:
    if not items:
        return b"\0\0"
    total = sum(len(item) for item in items) + 1
    size = 1 if total < 1 << 8 else 2 if total < 1 << 16 else 3 if total < 1 << 24 else 4
    ends = [1]  # offsets count from 1: the first item's start, then each item's end
    for item in items:
        ends.append(ends[-1] + len(item))
    packed = b"".join(end.to_bytes(size, "big") for end in ends)
    return struct.pack(">HB", len(items), size) + packed + b"".join(items)


Dict = list[tuple[tuple[int, ...], list[bytes]]]


def _parse_dict(data: bytes) -> Dict:
    """A CFF DICT as (operator, raw operands) pairs, in order."""
    entries: Dict = []
    operands: list[bytes] = []
    i = 0
    while i < len(data):
        b0 = data[i]
        if b0 <= 21:
            op = (12, data[i + 1]) if b0 == 12 else (b0,)
            entries.append((op, operands))
            operands = []
            i += 2 if b0 == 12 else 1
            continue
        if b0 == 28:
            n = 3
        elif b0 == 29:
            n = 5
        elif b0 == 30:
            n = 1
            while i + n < len(data) and (data[i + n] & 0x0F) != 0x0F and data[i + n] >> 4 != 0xF:
                n += 1
            n += 1
        elif 32 <= b0 <= 246:
            n = 1
        elif 247 <= b0 <= 254:
            n = 2
        else:
            raise FontFormatError(f"bad CFF DICT byte {b0}")
        operands.append(data[i : i + n])
        i += n
    return entries


def _int(raw: bytes) -> int:
    b0 = raw[0]
    if 32 <= b0 <= 246:
        return b0 - 139
    if 247 <= b0 <= 250:
        return (b0 - 247) * 256 + raw[1] + 108
    if 251 <= b0 <= 254:
        return -(b0 - 251) * 256 - raw[1] - 108
    if b0 == 28:
        return int(struct.unpack(">h", raw[1:3])[0])
    if b0 == 29:
        return int(struct.unpack(">l", raw[1:5])[0])
    raise FontFormatError("expected a whole number in a CFF DICT")


def _long(value: int) -> bytes:
    return b"\x1d" + struct.pack(">l", value)


def _pack_dict(entries: Dict) -> bytes:
    out = bytearray()
    for op, operands in entries:
        out += b"".join(operands)
        out += bytes(op)
    return bytes(out)


def _get(entries: Dict, op: tuple[int, ...]) -> list[int] | None:
    for key, operands in entries:
        if key == op:
            return [_int(o) for o in operands]
    return None


def _set(entries: Dict, op: tuple[int, ...], values: list[int]) -> None:
    for n, (key, _) in enumerate(entries):
        if key == op:
            entries[n] = (key, [_long(v) for v in values])
            return


def _charset_cids(data: bytes, at: int, glyphs: int) -> list[int]:
    """The CID of each glyph id, from the charset at ``at`` (glyph 0 is CID 0)."""
    fmt = data[at]
    cids = [0]
    if fmt == 0:
        cids += [_u16(data, at + 1 + 2 * i) for i in range(glyphs - 1)]
        return cids
    if fmt not in (1, 2):
        raise FontFormatError(f"unknown CFF charset format {fmt}")
    i = at + 1
    while len(cids) < glyphs:
        first = _u16(data, i)
        left = data[i + 2] if fmt == 1 else _u16(data, i + 2)
        cids += range(first, first + left + 1)
        i += 3 if fmt == 1 else 4
    return cids[:glyphs]


def subset_cid_font(cff: bytes, keep: Collection[int]) -> bytes:
    """The CID-keyed CFF table ``cff`` with only the glyphs ``keep`` (glyph ids; 0,
    ``.notdef``, is always kept), each under its CID as before, and only the subroutines
    they call (the others are emptied, so subroutine numbers stay)."""
    try:
        return _subset(cff, keep)
    except (struct.error, IndexError):
        raise FontFormatError("truncated CFF table") from None


def _subset(cff: bytes, keep: Collection[int]) -> bytes:
    header = cff[: cff[2]]
    names = _index(cff, len(header))
    tops = _index(cff, names.end)
    strings = _index(cff, tops.end)
    gsubrs = _index(cff, strings.end)
    if len(tops) != 1:
        raise FontFormatError("a CFF table with more than one font")
    top = _parse_dict(cff[slice(*tops[0])])
    if _get(top, _ROS) is None:
        raise FontFormatError("not a CID-keyed CFF font")
    charstrings_at, charset_at = _get(top, _CHARSTRINGS), _get(top, _CHARSET)
    fdarray_at, fdselect_at = _get(top, _FDARRAY), _get(top, _FDSELECT)
    if not (charstrings_at and charset_at and fdarray_at and fdselect_at):
        raise FontFormatError("a CID-keyed CFF font without its tables")
    charstrings = _index(cff, charstrings_at[0])
    glyphs = len(charstrings)
    cids = _charset_cids(cff, charset_at[0], glyphs)
    select = _fd_select(cff, fdselect_at[0])
    # The kept glyphs alone, in order; the charset keeps each one's CID (what a PDF's text
    # refers to), so the new glyph numbers are invisible outside the font.
    order = sorted({gid for gid in keep if 0 < gid < glyphs} | {0})
    charset = b"\0" + b"".join(struct.pack(">H", cids[gid]) for gid in order[1:])
    fdselect = b"\0" + bytes(select(gid) for gid in order)
    fonts = _index(cff, fdarray_at[0])
    font_dicts = [_parse_dict(cff[start:end]) for start, end in fonts]
    local_subrs: list[_Index | None] = []
    sizes: list[int] = []
    for entries in font_dicts:
        private = _get(entries, _PRIVATE)
        if private is None or len(private) != 2:
            raise FontFormatError("a CFF font dict without its Private dict")
        size, at = private
        subrs = _get(_parse_dict(cff[at : at + size]), _SUBRS)
        if subrs and subrs[0] < size:
            raise FontFormatError("CFF local subroutines inside their Private dict")
        local_subrs.append(_index(cff, at + subrs[0]) if subrs else None)
        sizes.append(size)
    # Only the subroutines the kept outlines call, numbered anew (the calls are rewritten).
    used_global: set[int] = set()
    used_local: list[set[int]] = [set() for _ in font_dicts]
    calls: dict[int, list[_Call]] = {}
    for gid in order:
        fd = select(gid)
        walker = _Walker(cff, gsubrs, local_subrs[fd], used_global, used_local[fd], calls)
        walker.run(charstrings[gid])
    new_global = {old: new for new, old in enumerate(sorted(used_global))}
    new_local = [{old: new for new, old in enumerate(sorted(used))} for used in used_local]

    def rewrite(span: tuple[int, int], fd: int | None) -> bytes:
        out, at = bytearray(), span[0]
        for call in sorted(calls.get(span[0], [])):
            numbers = new_global if call.is_global or fd is None else new_local[fd]
            out += cff[at : call.start] + _encode(numbers[call.number] - _bias(len(numbers)))
            at = call.end
        return bytes(out + cff[at : span[1]])

    outlines = [rewrite(charstrings[gid], select(gid)) for gid in order]
    gsubrs_packed = _pack_index([rewrite(gsubrs[n], None) for n in sorted(used_global)])
    privates: list[bytes] = []
    for fd, (entries, local) in enumerate(zip(font_dicts, local_subrs, strict=True)):
        size, at = _get(entries, _PRIVATE) or [0, 0]
        private_dict = _parse_dict(cff[at : at + size])
        if local is None:
            privates.append(_pack_dict(private_dict))
            continue
        # The subroutines follow their dict at once; the offset's size is fixed (5 bytes).
        _set(private_dict, _SUBRS, [0])
        _set(private_dict, _SUBRS, [len(_pack_dict(private_dict))])
        kept = [rewrite(local[n], fd) for n in sorted(used_local[fd])]
        privates.append(_pack_dict(private_dict) + _pack_index(kept))
        sizes[fd] = len(_pack_dict(private_dict))

    # Offsets are written as 5-byte numbers, so the DICTs' sizes do not depend on them.
    for op in (_CHARSTRINGS, _CHARSET, _FDARRAY, _FDSELECT):
        _set(top, op, [0])
    for entries in font_dicts:
        _set(entries, _PRIVATE, [0, 0])
    start = (
        (len(header) + len(cff[names.start : names.end]) + len(_pack_index([_pack_dict(top)])))
        + (strings.end - strings.start)
        + len(gsubrs_packed)
    )
    charset_pos = start
    fdselect_pos = charset_pos + len(charset)
    charstrings_pos = fdselect_pos + len(fdselect)
    packed_outlines = _pack_index(outlines)
    fdarray_pos = charstrings_pos + len(packed_outlines)
    fdarray_size = len(_pack_index([_pack_dict(entries) for entries in font_dicts]))
    private_pos = fdarray_pos + fdarray_size
    for entries, block, size in zip(font_dicts, privates, sizes, strict=True):
        _set(entries, _PRIVATE, [size, private_pos])
        private_pos += len(block)
    _set(top, _CHARSTRINGS, [charstrings_pos])
    _set(top, _CHARSET, [charset_pos])
    _set(top, _FDARRAY, [fdarray_pos])
    _set(top, _FDSELECT, [fdselect_pos])
    return b"".join(
        [
            header,
            cff[names.start : names.end],
            _pack_index([_pack_dict(top)]),
            cff[strings.start : strings.end],
            gsubrs_packed,
            charset,
            fdselect,
            packed_outlines,
            _pack_index([_pack_dict(entries) for entries in font_dicts]),
            *privates,
        ]
    )


@dataclass(frozen=True, order=True)
class _Call:
    """A subroutine call in a charstring: the bytes of its number, and which subroutine."""

    start: int
    end: int
    is_global: bool
    number: int  # unbiased: the subroutine's index


def _encode(value: int) -> bytes:
    """``value`` as a Type 2 charstring number."""
    if -107 <= value <= 107:
        return bytes([value + 139])
    if 108 <= value <= 1131:
        return bytes([247 + (value - 108) // 256, (value - 108) % 256])
    if -1131 <= value <= -108:
        return bytes([251 + (-value - 108) // 256, (-value - 108) % 256])
    return b"\x1c" + struct.pack(">h", value)


def _bias(count: int) -> int:
    return 107 if count < 1240 else 1131 if count < 33900 else 32768


def _fd_select(cff: bytes, at: int) -> Callable[[int], int]:
    """The font dict of each glyph id, from the FDSelect table at ``at``."""
    if cff[at] == 0:
        return lambda gid: cff[at + 1 + gid]
    if cff[at] != 3:
        raise FontFormatError(f"unknown CFF FDSelect format {cff[at]}")
    ranges = _u16(cff, at + 1)
    firsts = [_u16(cff, at + 3 + 3 * i) for i in range(ranges)]
    fds = [cff[at + 5 + 3 * i] for i in range(ranges)]

    def select(gid: int) -> int:
        return fds[max(0, bisect_right(firsts, gid) - 1)]

    return select


class _Walker:
    """Follows a Type 2 charstring through its subroutine calls, noting each one called.
    Only what decides the bytes read is tracked: the operand stack's numbers (a call's
    subroutine number is the last one) and the stem count (a hint mask's length)."""

    def __init__(
        self,
        cff: bytes,
        gsubrs: _Index,
        lsubrs: _Index | None,
        used_global: set[int],
        used_local: set[int],
        calls: dict[int, list[_Call]],
    ) -> None:
        self.cff, self.gsubrs, self.lsubrs = cff, gsubrs, lsubrs
        self.used_global, self.used_local = used_global, used_local
        self.calls = calls  # by the start of the charstring they are in
        self.in_global = 0
        self.stack: list[float] = []
        self.stems = 0
        self.depth = 0

    def run(self, span: tuple[int, int]) -> bool:
        """Walk ``span``; False once the outline has ended (endchar)."""
        self.depth += 1
        if self.depth > 12:
            raise FontFormatError("CFF subroutines nested too deep")
        cff, i, end = self.cff, span[0], span[1]
        last: tuple[int, int] | None = None  # the bytes of the number just read
        try:
            while i < end:
                b0 = cff[i]
                if b0 >= 32 or b0 == 28:
                    value, after = _number(cff, i)
                    self.stack.append(value)
                    last, i = (i, after), after
                    continue
                token, last = last, None
                i += 1
                if b0 in (1, 3, 18, 23):  # hstem vstem hstemhm vstemhm
                    self.stems += len(self.stack) // 2
                    self.stack.clear()
                elif b0 in (19, 20):  # hintmask cntrmask: an implicit vstem may precede
                    self.stems += len(self.stack) // 2
                    self.stack.clear()
                    i += (self.stems + 7) // 8
                elif b0 in (10, 29):  # callsubr callgsubr
                    subrs = self.lsubrs if b0 == 10 else self.gsubrs
                    if subrs is None or not self.stack:
                        raise FontFormatError("a CFF subroutine call without its subroutine")
                    if token is None or (b0 == 10 and self.in_global):
                        # A computed number, or a global routine calling a local one (its
                        # numbers would depend on the caller): not renumbered here.
                        raise FontFormatError("a CFF subroutine call this reader cannot follow")
                    number = int(self.stack.pop()) + _bias(len(subrs))
                    if not 0 <= number < len(subrs):
                        raise FontFormatError("a CFF subroutine call out of range")
                    (self.used_local if b0 == 10 else self.used_global).add(number)
                    call = _Call(token[0], token[1], b0 == 29, number)
                    known = self.calls.setdefault(span[0], [])
                    if call not in known:
                        known.append(call)
                    self.in_global += b0 == 29
                    try:
                        if not self.run(subrs[number]):
                            return False
                    finally:
                        self.in_global -= b0 == 29
                elif b0 == 11:  # return
                    return True
                elif b0 == 14:  # endchar
                    return False
                elif b0 == 12:
                    i += 1
                    self.stack.clear()
                else:
                    self.stack.clear()
            return True
        finally:
            self.depth -= 1


def _number(cff: bytes, i: int) -> tuple[float, int]:
    b0 = cff[i]
    if b0 == 28:
        return float(struct.unpack_from(">h", cff, i + 1)[0]), i + 3
    if b0 <= 246:
        return float(b0 - 139), i + 1
    if b0 <= 250:
        return float((b0 - 247) * 256 + cff[i + 1] + 108), i + 2
    if b0 <= 254:
        return float(-(b0 - 251) * 256 - cff[i + 1] - 108), i + 2
    return struct.unpack_from(">l", cff, i + 1)[0] / 65536.0, i + 5

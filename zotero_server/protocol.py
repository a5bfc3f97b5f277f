"""The zotero-pdf2zh plugin's request body, parsed into a typed request (pure, no I/O).

Every plugin generation POSTs JSON with ``fileName``, ``fileContent`` (a base64 data URL, or bare
base64) and a few dozen flat settings, all sent as strings (``"true"``, ``"4"``, ``""`` for unset);
see reference/zotero-plugin-protocol-and-pdf-translators.md §1.2. We honour what changes our output
(languages, pages, which files, dual layout) and ignore the rest (``engine``, ``service``,
``llm_api`` (an object: bounded, then dropped), ``outputPath``, ``configPath``, ``serverUrl``: our
one model serves every request, and server-side paths chosen by a client are never used).

Errors are ``InputError`` subclasses with messages meant for the plugin's alert.
"""

from __future__ import annotations

import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from common.errors import InputError, RequestShapeError, TooLargeError, UnsupportedLanguageError
from common.language import Language
from common.settings import mib
from translation.model.glossary import MAX_REQUEST_BYTES, Entry, Glossary
from zotero_server.http_errors import AlreadyDoneError, InvalidNameError, WrongFileTypeError

#: Longest accepted file name, in UTF-8 bytes (common file-system limit).
MAX_NAME_BYTES = 240
#: Most fields a body may have; every plugin generation sends fewer than 60.
MAX_FIELDS = 200
#: Most quotes, commas and brackets a body may hold before it is parsed: a flat object of
#: ``MAX_FIELDS`` strings needs a few hundred (the rest is room for text settings such as a
#: custom prompt); a body of millions of keys or deep nesting needs millions. Counting costs
#: milliseconds where parsing such a body held the server for seconds.
MAX_STRUCTURE = 20_000

_TRUE = frozenset({"true", "1", "yes", "on", "y", "t"})
_FALSE = frozenset({"false", "0", "no", "off", "n", "f", "", "none", "null"})
# The newest plugin says ``asyncJob: true``; its server also accepts these words.
_ASYNC_WORDS = frozenset({"async", "accepted"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class Operation(StrEnum):
    TRANSLATE = "translate"
    CROP = "crop"
    COMPARE = "compare"
    CROP_COMPARE = "crop-compare"


class FileKind(StrEnum):
    """What a file is, judged by its name the way the plugin does (``getFileType``)."""

    ORIGIN = "origin"
    MONO = "mono"
    DUAL = "dual"
    MONO_CUT = "mono-cut"
    DUAL_CUT = "dual-cut"
    CROP_COMPARE = "crop-compare"
    COMPARE = "compare"
    CUT = "cut"


class OutputKind(StrEnum):
    """One output file; the value is its name suffix: ``<stem>-<value>.pdf``."""

    MONO = "mono"
    DUAL = "dual"
    MONO_CUT = "mono-cut"
    DUAL_CUT = "dual-cut"
    CROP_COMPARE = "crop-compare"
    COMPARE = "compare"
    SINGLE_COMPARE = "single-compare"  # v2.x plugins' name for side-by-side pages
    CUT = "cut"

    def file_name(self, stem: str) -> str:
        return f"{stem}-{self.value}.pdf"


# The plugin's first-match order: "mono-cut.pdf" is checked after "mono.pdf", which it does not
# contain, so the order only matters between compare and crop-compare.
_KIND_MARKERS: tuple[tuple[str, FileKind], ...] = (
    ("mono.pdf", FileKind.MONO),
    ("dual.pdf", FileKind.DUAL),
    ("mono-cut.pdf", FileKind.MONO_CUT),
    ("dual-cut.pdf", FileKind.DUAL_CUT),
    ("crop-compare.pdf", FileKind.CROP_COMPARE),
    ("compare.pdf", FileKind.COMPARE),
    ("cut.pdf", FileKind.CUT),
)


@dataclass(frozen=True)
class PluginRequest:
    """One POST of the plugin (or the upload form), validated except for the PDF's content."""

    operation: Operation
    file_name: str
    stem: str
    kind: FileKind
    pdf: bytes
    source_lang: Language
    target_lang: Language
    outputs: tuple[OutputKind, ...]
    skip_last_pages: int = 0
    dual_mode: str = "LR"
    translation_first: bool = False
    include_references: bool = False
    force: bool = False
    password: str | None = None
    wants_async: bool = False
    #: The request's own terms (the ``glossary`` field: CSV text), on top of the server's.
    glossary: Glossary | None = None
    #: The OCR mode the plugin asked for (``ocr``/``autoOcr``); None when it sent neither.
    ocr: str | None = None

    def ocr_mode(self, server: str) -> str:
        """The OCR mode of this request under the server's ``ZT_OCR`` (``server``): the
        plugin's when it sent one, except that a server with OCR off never OCRs."""
        if server == "never" or self.ocr is None:
            return server
        return self.ocr

    @property
    def needs_translation(self) -> bool:
        return self.operation is not Operation.CROP

    def to_record(self) -> dict[str, Any]:
        """JSON for the job store: everything but the PDF (it waits in the upload store) and
        the password (never written to disk; a job with one is not resumed)."""
        return {
            "operation": self.operation.value,
            "file_name": self.file_name,
            "stem": self.stem,
            "kind": self.kind.value,
            "source_lang": self.source_lang.code,
            "target_lang": self.target_lang.code,
            "outputs": [o.value for o in self.outputs],
            "skip_last_pages": self.skip_last_pages,
            "dual_mode": self.dual_mode,
            "translation_first": self.translation_first,
            "include_references": self.include_references,
            "force": self.force,
            "wants_async": self.wants_async,
            # The request's own terms: a resumed job translates with the same glossary.
            "glossary": (
                None
                if self.glossary is None
                else [
                    [e.source, e.target, None if e.lang is None else e.lang.code]
                    for e in self.glossary.entries
                ]
            ),
            "ocr": self.ocr,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> PluginRequest:
        """The request :meth:`to_record` wrote, with an empty ``pdf`` and no password;
        ``KeyError``/``ValueError`` when the record is not one, ``UnsupportedLanguageError``
        for a language not covered. Languages are stored as the model's codes; older records
        hold the code the user gave (``zh-CN``), which parses to the same language."""
        return cls(
            operation=Operation(record["operation"]),
            file_name=str(record["file_name"]),
            stem=str(record["stem"]),
            kind=FileKind(record["kind"]),
            pdf=b"",
            source_lang=Language.parse(str(record["source_lang"])),
            target_lang=Language.parse(str(record["target_lang"])),
            outputs=tuple(OutputKind(o) for o in record["outputs"]),
            skip_last_pages=int(record["skip_last_pages"]),
            dual_mode=str(record["dual_mode"]),
            translation_first=bool(record["translation_first"]),
            include_references=bool(record["include_references"]),
            force=bool(record["force"]),
            wants_async=bool(record["wants_async"]),
            glossary=(
                None
                if record.get("glossary") is None
                else Glossary(
                    Entry(str(a), str(b), None if lang is None else Language.parse(str(lang)))
                    for a, b, lang in record["glossary"]
                )
            ),
            ocr=None if record.get("ocr") is None else str(record["ocr"]),
        )

    def config_summary(self) -> dict[str, Any]:
        """The ``config`` object of the task the plugin and the progress page show."""
        return {
            "operation": self.operation.value,
            "sourceLang": self.source_lang.code,
            "targetLang": self.target_lang.code,
            "outputTypes": [o.value for o in self.outputs],
            "skipLastPages": self.skip_last_pages,
            "dualMode": self.dual_mode,
        }


def parse_bool(value: Any, default: bool) -> bool:
    """A plugin flag: ``"true"``/``"1"``/``True`` and friends; unset or unknown is ``default``."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "":
            return default
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return default


def parse_int(
    value: Any, default: int, *, name: str, minimum: int = 0, maximum: int = 100_000
) -> int:
    """A plugin number such as ``"4"``; ``""`` is ``default``; garbage is an ``InputError``."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return default
    if isinstance(value, bool):
        raise InputError(f"{name} must be a whole number")
    try:
        number = int(value) if isinstance(value, int) else int(str(value).strip())
    except ValueError:
        raise InputError(f"{name} must be a whole number, not {str(value)[:20]!r}") from None
    if not minimum <= number <= maximum:
        raise InputError(f"{name} must be between {minimum} and {maximum}")
    return number


def parse_body(raw: bytes | bytearray) -> dict[str, Any]:
    """The POST body as the plugin sends it: one flat JSON object of at most ``MAX_FIELDS``
    strings, numbers, booleans or nulls, except the small objects of ``NESTED_IGNORED``, which
    are checked for size and removed. Anything else is an ``InputError`` (400), refused
    before it is parsed where its size alone shows it (see ``MAX_STRUCTURE``). CPU-bound for a
    large upload: call it off the event loop."""
    for char in (b'"', b",", b"[", b"{"):
        if raw.count(char) > MAX_STRUCTURE:
            raise RequestShapeError(_NOT_FLAT)
    content, rest = _cut_file_content(raw)
    try:
        body = json.loads(rest)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    if len(body) > MAX_FIELDS:
        raise RequestShapeError(_NOT_FLAT)
    for key, value in list(body.items()):
        if isinstance(value, str | int | float | bool | None):
            continue
        if key not in NESTED_IGNORED:
            raise RequestShapeError(f"{str(key)[:40]!r} must be a string, not a list or object")
        _check_nested(key, value)
        del body[key]  # never used, stored or logged: it may hold the user's API key
    if content is not None and isinstance(body, dict) and body.get("fileContent") == "":
        body["fileContent"] = content
    return body


#: Nested values a plugin generation is known to send, accepted and dropped unread:
#: ``llm_api`` = ``{service, model, apiKey, apiUrl, extraData: {...}}`` whenever the user has an
#: LLM entry switched on (plugin 3.x-4.1.x, ``getActiveLLMApiConfig``). Our model serves every
#: request, so none of it is used; the key it carries must never reach a log or the job store.
NESTED_IGNORED = frozenset({"llm_api", "llmApi"})
#: Bounds on such a value: nesting depth and leaves (the plugin sends depth 2, a dozen leaves).
MAX_NESTED_DEPTH = 4
MAX_NESTED_ITEMS = 200


def _check_nested(key: str, value: Any) -> None:
    """``RequestShapeError`` unless ``value`` is a small JSON object of plain values."""
    count = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_NESTED_ITEMS:
            raise RequestShapeError(f"{key!r} has more than {MAX_NESTED_ITEMS} values")
        if isinstance(item, dict | list):
            if depth > MAX_NESTED_DEPTH:
                raise RequestShapeError(f"{key!r} is nested more than {MAX_NESTED_DEPTH} deep")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    if not isinstance(value, dict):
        raise RequestShapeError(f"{key!r} must be an object")


_FILE_CONTENT = re.compile(rb'"fileContent"\s*:\s*"')


def _cut_file_content(raw: bytes | bytearray) -> tuple[memoryview | None, bytes | bytearray]:
    """The ``fileContent`` string's raw bytes, and the body with an empty string in its place.

    Parsing a 130 MB JSON string holds the interpreter for a second or more; cut out, the rest
    parses in microseconds and the base64 is decoded in steps. Base64 needs no unescaping;
    a value with a backslash is left to the JSON parser.
    """
    match = _FILE_CONTENT.search(raw, 0, 64 * 1024)  # the plugins send it among the first keys
    if match is None:
        return None, raw
    end = raw.find(b'"', match.end())
    if end < 0 or raw.find(b"\\", match.end(), end) >= 0:
        return None, raw
    return memoryview(raw)[match.end() : end], raw[: match.end()] + raw[end:]


_NOT_FLAT = f"the request body must be a flat JSON object of at most {MAX_FIELDS} fields"


def wants_async(body: Mapping[str, Any], headers: Mapping[str, str]) -> bool:
    """The async (``accepted`` + task polling) protocol, only when the client asks for it."""
    flag = body.get("asyncJob")
    if isinstance(flag, str) and flag.strip().lower() in _ASYNC_WORDS:
        return True
    if parse_bool(flag, False):
        return True
    protocol = body.get("clientProtocol")
    if isinstance(protocol, str) and protocol.strip().lower() in _ASYNC_WORDS:
        return True
    header = headers.get("x-pdf2zh-protocol", "")
    return header.strip().lower() in _ASYNC_WORDS


def check_file_name(raw: Any, what: str = "fileName") -> str:
    """A bare ``*.pdf`` file name, or ``InvalidNameError``. Never a path."""
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidNameError(f"{what} is missing")
    name = raw.strip()
    if "/" in name or "\\" in name or name in {".", ".."} or _CONTROL.search(name):
        raise InvalidNameError(f"{what} must be a bare file name, not a path")
    if name.startswith("."):
        raise InvalidNameError(f"{what} must not start with a dot")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise InvalidNameError(f"{what} is too long")
    if not name.lower().endswith(".pdf") or len(name) <= len(".pdf"):
        raise InvalidNameError(f"only PDF files are accepted ({what} must end in .pdf)")
    return name


def file_stem(name: str, kind: FileKind = FileKind.ORIGIN) -> str:
    """The stem outputs are named after: ``paper.PDF`` -> ``paper``, and for a translation
    its original's stem (``paper-mono.pdf`` -> ``paper``, so cropping it makes
    ``paper-mono-cut.pdf``)."""
    stem = name[: -len(".pdf")]
    if kind in (FileKind.MONO, FileKind.DUAL):
        marker = kind.value
        if len(stem) > len(marker) + 1 and stem.lower()[-len(marker) - 1 :] in (
            f"-{marker}",
            f".{marker}",
        ):
            stem = stem[: -len(marker) - 1]
    return stem


def file_kind(name: str) -> FileKind:
    """The plugin matches bare substrings; we also want a ``-`` or ``.`` before the marker, so
    that an original called ``Shortcut.pdf`` is not mistaken for a cut file."""
    lowered = name.lower()
    for marker, kind in _KIND_MARKERS:
        at = lowered.find(marker)
        while at != -1:
            if at > 0 and lowered[at - 1] in "-.":
                return kind
            at = lowered.find(marker, at + 1)
    return FileKind.ORIGIN


def decode_file_content(value: Any, max_bytes: int) -> bytes:
    """Decode ``data:application/pdf;base64,...`` or bare base64; enforce the size limit early.

    ``value`` is the JSON string, or the raw base64 bytes :func:`parse_body` cut out of the
    body. Raises ``TooLargeError`` before decoding anything that cannot fit, ``InputError`` for
    text that is not base64. Decoded a few MB at a time: no single step holds the interpreter
    long enough to stall the event loop's thread.
    """
    if isinstance(value, str):
        try:
            value = value.encode("ascii")
        except UnicodeEncodeError:
            raise InputError("fileContent is not valid base64") from None
    if not isinstance(value, bytes | memoryview) or not bytes(value[:_HEAD]).strip():
        raise InputError("fileContent is missing or empty")
    text = memoryview(value)
    head = bytes(text[:_HEAD])
    start = len(head) - len(head.lstrip())
    if head[start:].startswith(b"data:"):
        header, sep, _ = head[start:].partition(b",")
        if not sep or not header.endswith(b";base64"):
            raise InputError("fileContent must be a base64 data URL")
        start += len(header) + 1
    text = text[start:]
    # Clearly too large even if a tenth of it were line breaks: refuse before decoding.
    if len(text) * 3 // 4 > max_bytes * 1.1 + 2:
        raise TooLargeError(_too_large(len(text) * 3 // 4, max_bytes))
    parts: list[bytes] = []
    size, carry = 0, b""
    for offset in range(0, len(text), _CHUNK):
        piece = carry + bytes(text[offset : offset + _CHUNK]).translate(None, _SPACES)
        whole = len(piece) - len(piece) % 4
        piece, carry = piece[:whole], piece[whole:]
        size += _decode_into(parts, piece, max_bytes, size)
    if carry:
        _decode_into(parts, carry + b"=" * (-len(carry) % 4), max_bytes, size)
    data = b"".join(parts)
    if not data:
        raise InputError("fileContent is empty")
    return data


#: How far into fileContent a data URL header may reach.
_HEAD = 256
#: Base64 text decoded per step (a multiple of 4).
_CHUNK = 4 * 1024 * 1024
_SPACES = b" \t\r\n\f\v"
_BASE64 = re.compile(rb"[A-Za-z0-9+/]*={0,2}")


def _decode_into(parts: list[bytes], piece: bytes, max_bytes: int, size: int) -> int:
    if not _BASE64.fullmatch(piece):
        raise InputError("fileContent is not valid base64")
    try:
        data = binascii.a2b_base64(piece)
    except (binascii.Error, ValueError):
        raise InputError("fileContent is not valid base64") from None
    if size + len(data) > max_bytes:
        raise TooLargeError(_too_large(size + len(data), max_bytes))
    parts.append(data)
    return len(data)


def _too_large(size: int, max_bytes: int) -> str:
    return f"the PDF is {mib(size)}; this server accepts up to {mib(max_bytes)} (ZT_MAX_UPLOAD_MB)"


def _translate_outputs(body: Mapping[str, Any]) -> tuple[OutputKind, ...]:
    mono = parse_bool(body.get("mono"), True) and not parse_bool(body.get("noMono"), False)
    dual = parse_bool(body.get("dual"), True) and not parse_bool(body.get("noDual"), False)
    wanted = {
        OutputKind.MONO: mono,
        OutputKind.DUAL: dual,
        OutputKind.MONO_CUT: parse_bool(body.get("mono_cut"), False),
        OutputKind.DUAL_CUT: parse_bool(body.get("dual_cut"), False),
        OutputKind.CROP_COMPARE: parse_bool(body.get("crop_compare"), False),
        OutputKind.COMPARE: parse_bool(body.get("compare"), False),
        OutputKind.SINGLE_COMPARE: parse_bool(body.get("single_compare"), False),
    }
    return tuple(kind for kind, on in wanted.items() if on)


def _outputs_for(
    operation: Operation, kind: FileKind, body: Mapping[str, Any]
) -> tuple[OutputKind, ...]:
    """Which files the operation makes from a file of this kind (the reference server's rules)."""
    if operation is Operation.TRANSLATE:
        if kind is not FileKind.ORIGIN:
            raise WrongFileTypeError("input file must be an original PDF, not a translation")
        outputs = _translate_outputs(body)
        if not outputs:
            raise InputError("nothing to produce: every output (mono, dual, ...) is switched off")
        return outputs
    if operation is Operation.CROP:
        crops = {FileKind.ORIGIN: OutputKind.CUT, FileKind.MONO: OutputKind.MONO_CUT}
        crops[FileKind.DUAL] = OutputKind.DUAL_CUT
        if kind not in crops:
            raise WrongFileTypeError(
                f"a {kind.value} PDF cannot be cropped again; choose the original, mono or dual"
            )
        return (crops[kind],)
    done_kind = FileKind.COMPARE if operation is Operation.COMPARE else FileKind.CROP_COMPARE
    if kind is done_kind:
        raise AlreadyDoneError(f"this PDF already is a {kind.value} result")
    if kind is not FileKind.ORIGIN:
        raise WrongFileTypeError(f"{operation.value} needs the original PDF, not a {kind.value}")
    single = parse_bool(body.get("single_compare"), False)
    if operation is Operation.COMPARE:
        return (OutputKind.SINGLE_COMPARE if single else OutputKind.COMPARE,)
    return (OutputKind.CROP_COMPARE,)


def parse_request(
    operation: Operation,
    body: Any,
    headers: Mapping[str, str],
    *,
    default_source: Language,
    default_target: Language,
    max_bytes: int,
) -> PluginRequest:
    """Validate one POST body. ``headers`` keys are lower-case (Starlette's ``Headers`` are)."""
    if not isinstance(body, Mapping):
        raise InputError("the request body must be a JSON object")
    raw_name = body.get("fileName")
    if raw_name in (None, "") and isinstance(body.get("filePath"), str):
        # v2.0 plugins send only the attachment's local path; we keep just its leaf name.
        raw_name = re.split(r"[\\/]", body["filePath"])[-1]
    name = check_file_name(raw_name)
    kind = file_kind(name)
    outputs = _outputs_for(operation, kind, body)
    pdf = decode_file_content(body.get("fileContent"), max_bytes)

    skip = body.get("skipLastPages")
    if skip in (None, ""):
        skip = body.get("skip_last_pages")  # v2.x spelling
    dual_mode = str(body.get("dualMode") or "LR").strip().upper()
    if dual_mode not in {"LR", "TB"}:
        raise InputError("dualMode must be LR or TB")
    password = body.get("password")
    return PluginRequest(
        operation=operation,
        file_name=name,
        stem=file_stem(name, kind),
        kind=kind,
        pdf=pdf,
        # /crop never translates: a language the model lacks is no reason to refuse it.
        source_lang=_lang(body.get("sourceLang"), default_source, operation is Operation.CROP),
        target_lang=_lang(body.get("targetLang"), default_target, operation is Operation.CROP),
        outputs=outputs,
        skip_last_pages=parse_int(skip, 0, name="skipLastPages"),
        dual_mode=dual_mode,
        translation_first=parse_bool(body.get("transFirst"), False),
        include_references=parse_bool(body.get("includeReferences"), False),
        force=parse_bool(body.get("force"), False) or parse_bool(body.get("ignoreCache"), False),
        password=password if isinstance(password, str) and password else None,
        # /crop never translates, so it always answers at once (as the reference server does).
        wants_async=operation is not Operation.CROP and wants_async(body, headers),
        glossary=parse_glossary(body.get("glossary")),
        ocr=ocr_request(body),
    )


def parse_glossary(value: Any) -> Glossary | None:
    """The ``glossary`` field: the CSV text (see ``translation.model.glossary``), or the file as a
    base64 data URL (what the upload form sends: its quotes and commas would otherwise count
    against ``MAX_STRUCTURE``), at most ``MAX_REQUEST_BYTES``; absent or blank is None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise InputError("glossary must be the text of a CSV file")
    if value.startswith("data:"):
        header, sep, payload = value.partition(",")
        if not payload.strip():
            return None  # an empty file (browsers send "data:" for one)
        if not header.endswith(";base64"):
            raise InputError("glossary must be CSV text or a base64 data URL")
        if len(payload) * 3 // 4 > MAX_REQUEST_BYTES + 2:
            raise TooLargeError(_glossary_too_large(len(payload) * 3 // 4))
        try:
            data = binascii.a2b_base64(payload.encode("ascii"), strict_mode=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise InputError("glossary is not valid base64") from None
    else:
        data = value.encode("utf-8")
    if len(data) > MAX_REQUEST_BYTES:
        raise TooLargeError(_glossary_too_large(len(data)))
    glossary = Glossary.from_bytes(data, "glossary", MAX_REQUEST_BYTES)
    return glossary if len(glossary) else None


def _glossary_too_large(size: int) -> str:
    return f"the glossary is {size:,} bytes; a request may carry at most {MAX_REQUEST_BYTES:,}"


def ocr_request(body: Mapping[str, Any]) -> str | None:
    """The plugin's ``ocr`` (treat as scanned: OCR every page) and ``autoOcr`` (OCR the pages
    found scanned) flags as an OCR mode; None when neither is sent."""
    force, auto = body.get("ocr"), body.get("autoOcr")
    if force in (None, "") and auto in (None, ""):
        return None
    if parse_bool(force, False):
        return "always"
    return "auto" if parse_bool(auto, True) else "never"


def _lang(value: Any, default: Language, lenient: bool = False) -> Language:
    """The language a ``sourceLang``/``targetLang`` field names; unset is ``default``.
    ``UnsupportedLanguageError`` for a code the model does not cover (``default`` instead
    when ``lenient``: the request never reaches the model)."""
    if not isinstance(value, str) or not value.strip():
        return default
    code = value.strip()
    if len(code) > 20 or not re.fullmatch(r"[A-Za-z0-9_-]+", code):
        raise InputError(f"unknown language code {code[:20]!r}")
    try:
        return Language.parse(code)
    except UnsupportedLanguageError:
        if lenient:
            return default
        raise


def pages_to_translate(page_count: int, skip_last_pages: int) -> tuple[int, ...] | None:
    """0-based pages for ``skipLastPages`` (None = every page); ``InputError`` if none is left."""
    if skip_last_pages <= 0:
        return None
    if skip_last_pages >= page_count:
        raise InputError(
            f"skipLastPages is {skip_last_pages} but the PDF has only {page_count} pages"
        )
    return tuple(range(page_count - skip_last_pages))

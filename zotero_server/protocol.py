"""The zotero-pdf2zh plugin's request body, parsed into a typed request (pure, no I/O).

Every plugin generation POSTs JSON with ``fileName``, ``fileContent`` (a base64 data URL, or bare
base64) and a few dozen flat settings, all sent as strings (``"true"``, ``"4"``, ``""`` for unset:
the plugin stringifies every preference). We honour what changes our output
(languages, pages, which files, dual layout, ``fontFamily``, ``translateTableText``,
``onlyIncludeTranslatedPage``, ``disableGlossary``, ``saveGlossary``) and ignore the rest
(``engine``, ``service``, ``llm_api`` (an object: bounded, then dropped), ``outputPath``,
``configPath``, ``serverUrl``: our one model serves every request, and server-side paths chosen by
a client are never used; ``noWatermark``, ``skipClean``, ``enhanceCompatibility``,
``disableRichTextTranslate``, ``threadNum``, ``qps``, ``poolSize``: nothing here they could
change; docs/api.md's table of plugin settings says why for each).

Errors are ``InputError`` subclasses with messages meant for the plugin's alert.
"""

from __future__ import annotations

import binascii
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from common.errors import InputError, TooLargeError, UnsupportedLanguageError
from common.language import Language
from translation.model.glossary import MAX_REQUEST_BYTES, Entry, Glossary
from translation.render.faces import FontFamily
from zotero_server.file_content import decode_file_content
from zotero_server.file_names import FileKind, OutputKind, check_file_name, file_kind, file_stem
from zotero_server.http_errors import AlreadyDoneError, WrongFileTypeError

log = logging.getLogger(__name__)

_TRUE = frozenset({"true", "1", "yes", "on", "y", "t"})
_FALSE = frozenset({"false", "0", "no", "off", "n", "f", "", "none", "null"})
# The newest plugin says ``asyncJob: true``; its server also accepts these words.
_ASYNC_WORDS = frozenset({"async", "accepted"})


class Operation(StrEnum):
    TRANSLATE = "translate"
    CROP = "crop"
    COMPARE = "compare"
    CROP_COMPARE = "crop-compare"


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
    #: ``fontFamily``: the face of the translation (``translation.render.faces.FontFamily``).
    font_family: str = "auto"
    #: ``translateTableText``: False leaves every table as it is.
    translate_tables: bool = True
    #: ``onlyIncludeTranslatedPage``: the mono file holds the translated pages only.
    only_translated_pages: bool = False
    #: ``disableGlossary``: this job uses no server glossary (its own terms still apply).
    server_glossary: bool = True
    #: ``saveGlossary``: the job's glossary comes back as a CSV file beside the PDFs.
    save_glossary: bool = False
    #: ``X-PDF2zh-Plugin-Version`` (plugins after 4.1.7): shown in the task; None when absent.
    plugin_version: str | None = None

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
            "font_family": self.font_family,
            "translate_tables": self.translate_tables,
            "only_translated_pages": self.only_translated_pages,
            "server_glossary": self.server_glossary,
            "save_glossary": self.save_glossary,
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
            # Records older than these settings: what a request without them gets.
            font_family=str(record.get("font_family", "auto")),
            translate_tables=bool(record.get("translate_tables", True)),
            only_translated_pages=bool(record.get("only_translated_pages", False)),
            server_glossary=bool(record.get("server_glossary", True)),
            save_glossary=bool(record.get("save_glossary", False)),
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
            "fontFamily": self.font_family,
            "translateTableText": self.translate_tables,
            "onlyIncludeTranslatedPage": self.only_translated_pages,
            "disableGlossary": not self.server_glossary,
            "saveGlossary": self.save_glossary,
            **({"pluginVersion": self.plugin_version} if self.plugin_version else {}),
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
    """Which files the operation makes from a file of this kind, as the plugin's own server
    decides: translate takes only an original; crop makes ``-cut`` of an original and
    ``-mono-cut``/``-dual-cut`` of a translation; compare and crop-compare take an original and
    refuse (409) a file that already is their result."""
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
        # /crop never translates, so it always answers at once (as the plugin's own server does).
        wants_async=operation is not Operation.CROP and wants_async(body, headers),
        glossary=parse_glossary(body.get("glossary")),
        ocr=ocr_request(body),
        font_family=_font_family(body.get("fontFamily")).value,
        translate_tables=parse_bool(body.get("translateTableText"), True),
        only_translated_pages=parse_bool(body.get("onlyIncludeTranslatedPage"), False),
        server_glossary=not parse_bool(body.get("disableGlossary"), False),
        save_glossary=parse_bool(body.get("saveGlossary"), False),
        plugin_version=plugin_version(headers),
    )


_VERSION_RE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}")


def plugin_version(headers: Mapping[str, str]) -> str | None:
    """The plugin's ``X-PDF2zh-Plugin-Version`` (``4.1.8``, ``4.2.0-beta.1``): shown in the
    task as sent; anything but a short version word (a header is the client's to fill) is
    kept out of the task and the job store, never a refusal."""
    value = headers.get("x-pdf2zh-plugin-version", "").strip()
    return value if _VERSION_RE.fullmatch(value) else None


def _font_family(value: Any) -> FontFamily:
    """``fontFamily``: auto (unset), serif, sans-serif or script. A word we do not know is the
    paper's own face (auto), never a refusal: a plugin release that adds a family must not stop
    every paper over a font."""
    if isinstance(value, str) and len(value) <= 40:
        try:
            return FontFamily.parse(value)
        except ValueError:
            pass
    if value is not None:
        log.info("fontFamily %r unknown here: the paper's own face is used", str(value)[:20])
    return FontFamily.AUTO


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

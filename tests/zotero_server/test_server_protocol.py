"""The plugin's flat, string-typed request body -> PluginRequest (pure parsing, literals only)."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from common.errors import InputError, TooLargeError
from common.language import Language
from zotero_server.file_content import decode_file_content
from zotero_server.file_names import FileKind, OutputKind, check_file_name, file_kind, file_stem
from zotero_server.http_errors import (
    AlreadyDoneError,
    InvalidNameError,
    WrongFileTypeError,
    status_for,
)
from zotero_server.protocol import (
    Operation,
    PluginRequest,
    pages_to_translate,
    parse_bool,
    parse_int,
    parse_request,
    wants_async,
)

PDF = b"%PDF-1.7\n...not really parsed here...\n%%EOF\n"
DATA_URL = "data:application/pdf;base64," + base64.b64encode(PDF).decode()


def body(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"fileName": "paper.pdf", "fileContent": DATA_URL}
    base.update(fields)
    return base


def parse(
    op: Operation = Operation.TRANSLATE, headers: dict[str, str] | None = None, **fields: Any
) -> PluginRequest:
    return parse_request(
        op,
        body(**fields),
        headers or {},
        default_source=Language.parse("en"),
        default_target=Language.parse("ko"),
        max_bytes=1_000_000,
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("True", True), ("1", True), ("yes", True), (True, True), (1, True),
     ("false", False), ("False", False), ("0", False), (False, False), (0, False)],
)  # fmt: skip
def test_string_booleans_are_coerced(value: object, expected: bool) -> None:
    assert parse_bool(value, not expected) is expected


@pytest.mark.parametrize("unset", [None, "", "  ", "maybe"])
def test_unset_or_unknown_booleans_keep_the_default(unset: object) -> None:
    assert parse_bool(unset, True) is True
    assert parse_bool(unset, False) is False


def test_string_ints_and_empty_string_default() -> None:
    assert parse_int("4", 0, name="n") == 4
    assert parse_int(" 7 ", 0, name="n") == 7
    assert parse_int("", 3, name="n") == 3
    assert parse_int(None, 3, name="n") == 3
    with pytest.raises(InputError, match="whole number"):
        parse_int("four", 0, name="skipLastPages")
    with pytest.raises(InputError, match="between"):
        parse_int("-1", 0, name="skipLastPages")


def test_data_url_and_bare_base64_decode_to_the_same_bytes() -> None:
    bare = base64.b64encode(PDF).decode()
    assert decode_file_content(DATA_URL, 10_000) == PDF
    assert decode_file_content(bare, 10_000) == PDF
    # Line breaks and missing padding, as some encoders produce them.
    wrapped = "\n".join(bare[i : i + 16] for i in range(0, len(bare), 16)).rstrip("=")
    assert decode_file_content(wrapped, 10_000) == PDF


@pytest.mark.parametrize(
    "content", ["", "   ", None, 42, "not base64 at all!!", "data:application/pdf,plain"]
)
def test_bad_file_content_is_a_400(content: object) -> None:
    with pytest.raises(InputError) as info:
        decode_file_content(content, 10_000)
    assert status_for(info.value) == 400


def test_too_large_content_is_a_413_before_decoding() -> None:
    big = "A" * 4000  # 3000 bytes once decoded
    with pytest.raises(TooLargeError) as info:
        decode_file_content(big, 1000)
    assert status_for(info.value) == 413
    assert "MB" in info.value.message


@pytest.mark.parametrize(
    "name",
    ["论文 第一版, final.pdf", "Smith et al. - 2020 - Title.PDF", "a.pdf", "x%20y.pdf"],
)
def test_real_attachment_names_are_accepted(name: str) -> None:
    assert check_file_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["../paper.pdf", "a/b.pdf", "C:\\Users\\me\\paper.pdf", "/etc/passwd.pdf", "..", ".",
     "paper.txt", ".pdf", ".hidden.pdf", "bad\x00.pdf", "tab\tname.pdf", "", None, 7,
     "x" * 300 + ".pdf"],
)  # fmt: skip
def test_bad_names_are_a_400(name: object) -> None:
    with pytest.raises(InvalidNameError) as info:
        check_file_name(name)
    assert status_for(info.value) == 400


@pytest.mark.parametrize(
    ("name", "kind"),
    [("paper.pdf", FileKind.ORIGIN), ("paper-mono.pdf", FileKind.MONO),
     ("paper-dual.pdf", FileKind.DUAL), ("paper-mono-cut.pdf", FileKind.MONO_CUT),
     ("paper-dual-cut.pdf", FileKind.DUAL_CUT), ("paper-compare.pdf", FileKind.COMPARE),
     ("paper-crop-compare.pdf", FileKind.CROP_COMPARE), ("paper-cut.pdf", FileKind.CUT),
     ("paper.no_watermark.zh-CN.mono.pdf", FileKind.MONO),
     ("Shortcut.pdf", FileKind.ORIGIN), ("Dual.pdf", FileKind.ORIGIN)],
)  # fmt: skip
def test_file_kind_follows_the_plugin_names(name: str, kind: FileKind) -> None:
    assert file_kind(name) is kind


@pytest.mark.parametrize(
    ("name", "stem"),
    [("paper.pdf", "paper"), ("paper.PDF", "paper"), ("paper-mono.pdf", "paper"),
     ("paper-dual.pdf", "paper"), ("paper.no_watermark.ko.mono.pdf", "paper.no_watermark.ko"),
     ("mono.pdf", "mono"), ("x-mono.final.pdf", "x-mono.final")],
)  # fmt: skip
def test_outputs_are_named_after_the_original_stem(name: str, stem: str) -> None:
    assert file_stem(name, file_kind(name)) == stem


def test_defaults_mono_and_dual_from_settings_languages() -> None:
    req = parse()
    assert req.outputs == (OutputKind.MONO, OutputKind.DUAL)
    assert (req.source_lang, req.target_lang) == (Language.parse("en"), Language.parse("ko"))
    assert req.stem == "paper"
    assert req.pdf == PDF
    assert not req.wants_async


def test_flat_string_settings_are_honoured() -> None:
    req = parse(
        sourceLang="en",
        targetLang="ja",
        mono="false",
        dual="true",
        dual_cut="true",
        compare="true",
        crop_compare="1",
        dualMode="tb",
        transFirst="true",
        skipLastPages="2",
        # ignored: the client's engine, service, paths and LLM never matter here
        engine="pdf2zh_next",
        service="bing",
        outputPath="/tmp/evil",
        configPath="/etc",
        llm_api={"apiKey": "x"},
    )
    assert req.target_lang == Language.parse("ja")
    assert req.outputs == (
        OutputKind.DUAL,
        OutputKind.DUAL_CUT,
        OutputKind.CROP_COMPARE,
        OutputKind.COMPARE,
    )
    assert req.dual_mode == "TB"
    assert req.translation_first is True
    assert req.skip_last_pages == 2


def test_v2_bodies_use_snake_case_and_file_path() -> None:
    v2 = {
        "filePath": "C:\\Zotero\\storage\\ABCD\\paper one.pdf",
        "fileContent": DATA_URL,
        "skip_last_pages": "1",
        "single_compare": "true",
        "mono_cut": "true",
    }
    req = parse_request(
        Operation.TRANSLATE,
        v2,
        {},
        default_source=Language.parse("en"),
        default_target=Language.parse("ko"),
        max_bytes=10**6,
    )
    assert req.file_name == "paper one.pdf"
    assert req.skip_last_pages == 1
    assert OutputKind.SINGLE_COMPARE in req.outputs
    assert OutputKind.MONO_CUT in req.outputs


def test_no_output_left_is_a_400() -> None:
    with pytest.raises(InputError, match="nothing to produce"):
        parse(mono="false", dual="false")
    with pytest.raises(InputError, match="nothing to produce"):
        parse(noMono="true", noDual="true")


@pytest.mark.parametrize(
    ("fields", "headers"),
    [({"asyncJob": True}, {}), ({"asyncJob": "true"}, {}), ({"asyncJob": "accepted"}, {}),
     ({"clientProtocol": "accepted"}, {}), ({}, {"x-pdf2zh-protocol": "accepted"}),
     ({}, {"x-pdf2zh-protocol": "Async"})],
)  # fmt: skip
def test_async_only_when_asked(fields: dict[str, Any], headers: dict[str, str]) -> None:
    assert wants_async(fields, headers)
    assert parse(headers=headers, **fields).wants_async


def test_sync_by_default_and_crop_is_always_sync() -> None:
    assert not wants_async({"asyncJob": "false"}, {})
    assert not parse(Operation.CROP, asyncJob=True).wants_async


def test_translating_a_translation_is_refused() -> None:
    with pytest.raises(WrongFileTypeError) as info:
        parse(fileName="x-mono.pdf")
    assert status_for(info.value) == 400
    assert "original" in info.value.message


def test_compare_on_a_compared_file_is_a_409() -> None:
    with pytest.raises(AlreadyDoneError) as info:
        parse(Operation.COMPARE, fileName="paper-compare.pdf")
    assert status_for(info.value) == 409
    with pytest.raises(AlreadyDoneError):
        parse(Operation.CROP_COMPARE, fileName="paper-crop-compare.pdf")


def test_crop_names_follow_the_input_kind() -> None:
    assert parse(Operation.CROP).outputs == (OutputKind.CUT,)
    assert parse(Operation.CROP, fileName="p-mono.pdf").outputs == (OutputKind.MONO_CUT,)
    assert parse(Operation.CROP, fileName="p-dual.pdf").outputs == (OutputKind.DUAL_CUT,)
    with pytest.raises(WrongFileTypeError):
        parse(Operation.CROP, fileName="p-mono-cut.pdf")
    assert OutputKind.MONO_CUT.file_name("p") == "p-mono-cut.pdf"


def test_bad_language_codes_and_dual_modes() -> None:
    with pytest.raises(InputError, match="language"):
        parse(targetLang="ko; rm -rf /")
    with pytest.raises(InputError, match="dualMode"):
        parse(dualMode="diagonal")


def test_body_must_be_an_object() -> None:
    with pytest.raises(InputError, match="JSON object"):
        parse_request(
            Operation.TRANSLATE,
            ["x"],
            {},
            default_source=Language.parse("en"),
            default_target=Language.parse("ko"),
            max_bytes=9,
        )


def test_skip_last_pages_to_page_tuple() -> None:
    assert pages_to_translate(5, 0) is None
    assert pages_to_translate(5, 2) == (0, 1, 2)
    with pytest.raises(InputError, match="only 5 pages"):
        pages_to_translate(5, 5)

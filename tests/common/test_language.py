"""The language value: what users type, parsed once to the model's code, name and script."""

from __future__ import annotations

import pickle

import pytest

from common.errors import ConfigError, UnsupportedLanguageError
from common.language import LANGUAGES, Language
from common.settings import load_settings


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("zh-CN", "zh-Hans"),
        ("zh", "zh-Hans"),
        ("zh-Hans", "zh-Hans"),
        ("zh_CN", "zh-Hans"),
        ("ZH-hans", "zh-Hans"),
        ("zh-TW", "zh-Hant"),
        ("zh-HK", "zh-Hant"),
        ("zh-Hant", "zh-Hant"),
        ("ko", "ko"),
        ("ko-KR", "ko"),
        ("ja", "ja"),
        ("en", "en"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("de", "de"),
        ("de-DE", "de"),
        ("pt-BR", "pt"),
        ("fr-CA", "fr"),
        ("nb", "no"),
        ("tl", "fil"),
        ("fil-PH", "fil"),
        (" ko ", "ko"),
    ],
)
def test_language_codes_map_to_the_models_codes(given: str, sent: str) -> None:
    assert Language.parse(given).code == sent


@pytest.mark.parametrize("code", ["xx", "klingon", "", "zh-XX", "en-", "tlh", "eo"])
def test_unknown_language_is_a_clear_error(code: str) -> None:
    with pytest.raises(UnsupportedLanguageError) as info:
        Language.parse(code)
    assert repr(code.strip()) in str(info.value)
    assert "ko" in str(info.value)  # the message lists what is supported


def test_the_map_covers_55_languages_of_the_model_card() -> None:
    # 52 distinct languages: English, the 50 WMT24++ targets with Chinese in two scripts, and
    # Icelandic (WMT24). Regional variants of the 55 locales collapse to their language.
    assert len(LANGUAGES) == 52
    assert {"en", "ko", "ja", "zh-Hans", "zh-Hant", "de", "fr", "es", "is"} <= set(LANGUAGES)


def test_language_names() -> None:
    assert Language.parse("ko-KR").name == "Korean"
    assert Language.parse("zh-TW").name == "Chinese (Traditional)"
    assert Language.parse("en").name == "English"


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("Korean", "ko"),
        ("  korean ", "ko"),
        ("GERMAN", "de"),
        ("Chinese", "zh-Hans"),
        ("Chinese (Traditional)", "zh-Hant"),
        ("traditional  chinese", "zh-Hant"),
        ("Norwegian Bokmål", "no"),
    ],
)
def test_english_names_are_accepted_as_well_as_codes(given: str, sent: str) -> None:
    """Issue 39: "Korean" was refused, with a list of codes cut off at "..."."""
    assert Language.parse(given).code == sent


def test_the_refusal_is_short_and_says_what_to_give() -> None:
    with pytest.raises(UnsupportedLanguageError) as info:
        Language.parse("Klingon")
    message = str(info.value)
    assert len(message) < 200  # whole in the plugin's alert (it cuts at 300)
    assert "give a language code (ko, zh-CN, de-DE) or an English name (Korean)" in message


def test_only_the_models_codes_make_a_language() -> None:
    assert Language("zh-Hans") == Language.parse("zh-CN") == Language.parse("zh")
    with pytest.raises(UnsupportedLanguageError):
        Language("zh-CN")  # a user's form: parse it
    assert str(Language.parse("ko-KR")) == "ko"
    assert pickle.loads(pickle.dumps(Language.parse("ja"))) == Language("ja")


def test_scripts() -> None:
    assert [Language(c).is_cjk for c in ("zh-Hans", "zh-Hant", "ja", "ko", "en", "vi")] == [
        True, True, True, True, False, False
    ]  # fmt: skip
    assert [Language(c).spaced for c in ("zh-Hans", "ja", "ko", "de")] == [
        False, False, True, True
    ]  # fmt: skip
    assert Language("ko").is_korean and not Language("ja").is_korean


def test_settings_parse_their_languages_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZT_SOURCE_LANG", "en-US")
    monkeypatch.setenv("ZT_TARGET_LANG", "zh_TW")
    settings = load_settings()
    assert (settings.source_lang, settings.target_lang) == (Language("en"), Language("zh-Hant"))


@pytest.mark.parametrize("value", ["tlh", " ", "zh-XX"])
def test_a_bad_language_setting_stops_the_start_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ZT_TARGET_LANG", value)
    with pytest.raises(ConfigError, match="ZT_TARGET_LANG") as info:
        load_settings()
    assert "language code" in str(info.value)


def test_job_records_keep_languages_as_strings_and_old_ones_still_load() -> None:
    """The job store's record of a plugin request: the model's codes as JSON strings; a
    record written before (the user's spelling, ``zh-CN``) reads back as the same language."""
    from zotero_server.file_names import FileKind
    from zotero_server.protocol import Operation, PluginRequest

    old = {
        "operation": "translate",
        "file_name": "a.pdf",
        "stem": "a",
        "kind": "origin",
        "source_lang": "en-US",
        "target_lang": "zh-CN",
        "outputs": ["mono"],
        "skip_last_pages": 0,
        "dual_mode": "LR",
        "translation_first": False,
        "include_references": False,
        "force": False,
        "wants_async": True,
        "glossary": [["graph", "图", "zh-CN"], ["node", "节点", None]],
    }
    request = PluginRequest.from_record(old)
    assert (request.operation, request.kind) == (Operation.TRANSLATE, FileKind.ORIGIN)
    assert (request.source_lang, request.target_lang) == (Language("en"), Language("zh-Hans"))
    assert request.glossary is not None
    assert [e.lang for e in request.glossary.entries] == [Language("zh-Hans"), None]

    record = request.to_record()
    assert (record["source_lang"], record["target_lang"]) == ("en", "zh-Hans")
    assert record["glossary"] == [["graph", "图", "zh-Hans"], ["node", "节点", None]]
    again = PluginRequest.from_record(record)
    assert (again.source_lang, again.target_lang) == (request.source_lang, request.target_lang)
    assert again.glossary is not None and again.glossary.entries == request.glossary.entries
    assert request.config_summary()["targetLang"] == "zh-Hans"

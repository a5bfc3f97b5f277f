"""The request bodies of the reader plugins' services, read into one :class:`TextAsk`. Pure.

Four shapes, each as its clients send it (docs/zotero-reader-plugins.md):

* **LibreTranslate** ``POST /translate``: ``{"q", "source", "target", "format", "api_key"}``;
  ``q`` a string or a list of strings; ``source`` may be ``auto``.
* **DeepLX** ``POST /translate``: ``{"text", "source_lang", "target_lang"}``, codes as DeepL
  writes them (``EN``, ``ZH-HANS``, ``PT-BR``); ``text`` a string (or a list, ``/v2`` style).
* **DeepL's web JSON-RPC** ``POST /jsonrpc`` (or ``/translate``): ``{"jsonrpc": "2.0",
  "method": "LMT_handle_texts", "params": {"texts": [{"text"}], "lang":
  {"source_lang_user_selected", "target_lang"}}}``: what Translate for Zotero's "DeepLX"
  service sends to the endpoint it is given.
* **OpenAI chat** ``POST /v1/chat/completions``: an ordinary chat request; the text and the
  languages are found by :func:`chat_ask` (the rule is in its docstring).

:func:`kind_of` tells the ``/translate`` bodies apart by their keys; the zotero-pdf2zh body
(``fileContent``/``fileName``) is never one of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from common.errors import InputError, UnsupportedLanguageError
from common.language import LANGUAGES, Language

#: What "auto" and an empty source mean: the server's source language.
AUTO = frozenset({"", "auto", "auto-detect", "detect"})


@dataclass(frozen=True)
class TextAsk:
    """Texts to translate from ``source`` to ``target`` (one for most requests)."""

    texts: tuple[str, ...]
    source: Language
    target: Language
    #: Markup to keep (LibreTranslate's ``format: html``): every tag becomes a placeholder.
    html: bool = False


def kind_of(body: dict[str, Any]) -> str | None:
    """Which reader protocol a ``/translate`` body speaks: ``libretranslate``, ``deeplx``,
    ``deepl_jsonrpc``, or None (the zotero-pdf2zh plugin's paper, or nothing known)."""
    if "fileContent" in body or "fileName" in body:
        return None
    if "q" in body:
        return "libretranslate"
    if "text" in body and "target_lang" in body:
        return "deeplx"
    if body.get("jsonrpc") == "2.0" and isinstance(body.get("params"), dict):
        return "deepl_jsonrpc"
    return None


# --- languages as people write them -----------------------------------------------------------

_NAMES: dict[str, str] = {name.lower(): code for code, name in LANGUAGES.items()}
_NAMES |= {
    "chinese": "zh-Hans",
    "simplified chinese": "zh-Hans",
    "traditional chinese": "zh-Hant",
    "mandarin": "zh-Hans",
    "farsi": "fa",
    "tagalog": "fil",
    "brazilian portuguese": "pt",
    "中文": "zh-Hans",
    "简体中文": "zh-Hans",
    "繁體中文": "zh-Hant",
    "日本語": "ja",
    "한국어": "ko",
    "deutsch": "de",
    "français": "fr",
    "español": "es",
}
#: Names longest first, so "Chinese (Simplified)" wins over "Chinese".
_NAME_ORDER = sorted(_NAMES, key=len, reverse=True)


def language(raw: object, default: Language, what: str) -> Language:
    """A code (``zh-CN``, ``ZH-HANS``, ``pt_BR``) or an English name (``German``, ``Chinese
    (Traditional)``); ``auto``/empty/absent is ``default``. ``UnsupportedLanguageError`` names
    ``what`` (the field) for anything else."""
    if raw is None:
        return default
    if not isinstance(raw, str):
        raise InputError(f"{what} must be a language code")
    text = raw.strip()
    if text.lower() in AUTO:
        return default
    if text.lower() in _NAMES:
        return Language(_NAMES[text.lower()])
    try:
        return Language.parse(text)
    except UnsupportedLanguageError as exc:
        raise UnsupportedLanguageError(f"{what}: {exc}") from None


def _texts(value: object, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise InputError(f"{what} must be a string (or a list of strings)")


# --- the /translate shapes --------------------------------------------------------------------


def libre_ask(body: dict[str, Any], source: Language, target: Language) -> TextAsk:
    """A LibreTranslate body; ``format`` may be ``text`` or ``html`` (tags are kept)."""
    fmt = body.get("format", "text")
    if fmt not in ("text", "html"):
        raise InputError("format must be 'text' or 'html'")
    return TextAsk(
        _texts(body.get("q"), "q"),
        language(body.get("source"), source, "source"),
        language(body.get("target"), target, "target"),
        html=fmt == "html",
    )


def deeplx_ask(body: dict[str, Any], source: Language, target: Language) -> TextAsk:
    return TextAsk(
        _texts(body.get("text"), "text"),
        language(body.get("source_lang"), source, "source_lang"),
        language(body.get("target_lang"), target, "target_lang"),
    )


def jsonrpc_ask(body: dict[str, Any], source: Language, target: Language) -> TextAsk:
    params = body.get("params")
    if not isinstance(params, dict):
        raise InputError("params must be an object")
    items = params.get("texts")
    if not isinstance(items, list) or not items:
        raise InputError("params.texts must be a list of {text}")
    texts = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise InputError("params.texts must be a list of {text}")
        texts.append(item["text"])
    given = params.get("lang")
    lang: dict[str, Any] = given if isinstance(given, dict) else {}
    return TextAsk(
        tuple(texts),
        language(lang.get("source_lang_user_selected"), source, "source_lang_user_selected"),
        language(lang.get("target_lang"), target, "target_lang"),
    )


# --- chat requests ----------------------------------------------------------------------------

_MARKER = "\U0001f524"  # 🔤, around the text in Translate for Zotero's default prompt
_DELIMITER = re.compile(_MARKER + r"(?![.,;:!?)])")
_FENCES = (re.compile(r"```[^\n]*\n(.*?)```", re.S), re.compile(r'"""(.*?)"""', re.S))
_LABEL = re.compile(r"(?:text to translate|source text|text)\s*:\s*", re.I)
_TO = re.compile(r"\b(?:to|into)\s+", re.I)
_FROM = re.compile(r"\bfrom\s+", re.I)
_CODE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")


def _content(message: object) -> str:
    if not isinstance(message, dict):
        raise InputError("each message must be an object with a role and a content")
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    if content is None:
        return ""
    raise InputError("a message's content must be a string or a list of text parts")


def _gemma_part(messages: Sequence[object]) -> dict[str, Any] | None:
    """TranslateGemma's own content part, when a client already speaks it."""
    for message in reversed(messages):
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and "target_lang_code" in part and "text" in part:
                    return part
    return None


def _split_text(prompt: str) -> tuple[str, str]:
    """(text, instruction) of a user message; see :func:`chat_ask`."""
    # A 🔤 followed by punctuation is named by the instruction ("enclosed in 🔤.", "remove
    # 🔤."), not a delimiter.
    marks = [m.start() for m in _DELIMITER.finditer(prompt)]
    if len(marks) >= 2:
        first, last = marks[0], marks[-1]
        inside = prompt[first + len(_MARKER) : last]
        labelled = list(_LABEL.finditer(inside))
        if labelled and "Context from the academic paper" in inside:
            inside = inside[labelled[-1].end() :]  # the plugin's paper context comes first
        return inside.strip(), prompt[:first] + prompt[last + len(_MARKER) :]
    for fence in _FENCES:
        match = fence.search(prompt)
        if match:
            return match.group(1).strip(), prompt[: match.start()] + prompt[match.end() :]
    first_line = prompt.split("\n", 1)[0]
    head, sep, _ = first_line.partition(":")
    rest = prompt[len(head) + 1 :]
    if sep and "translat" in head.lower() and rest.strip():
        return rest.strip(), head
    label = _LABEL.search(prompt)
    if label and "translat" in prompt[: label.start()].lower():
        return prompt[label.end() :].strip(), prompt[: label.start()]
    return prompt.strip(), ""


def _named(instruction: str, after: re.Pattern[str]) -> Language | None:
    """The first language named right after ``to``/``into`` (or ``from``)."""
    for match in after.finditer(instruction):
        rest = instruction[match.end() : match.end() + 40]
        lowered = rest.lower()
        for name in _NAME_ORDER:
            if lowered.startswith(name) and not lowered[len(name) : len(name) + 1].isalpha():
                return Language(_NAMES[name])
        code = _CODE.match(rest)
        if code and not rest[code.end() : code.end() + 1].isalpha():
            try:
                return Language.parse(code.group(0))
            except UnsupportedLanguageError:
                continue
    return None


def chat_ask(body: dict[str, Any], source: Language, target: Language) -> TextAsk:
    """The text and languages of an ordinary chat request. The rule, in order:

    1. A TranslateGemma content part (``source_lang_code``/``target_lang_code``/``text``)
       is taken as it is.
    2. The text is in the LAST user message: between the first and the last 🔤 not followed by
       punctuation (Translate for Zotero's default prompt names "🔤." twice; its "Context from
       the academic paper" is dropped), else
       inside a ``` fence or triple quotes, else after the first ``:`` of a first line that
       asks to translate ("Translate into German: ..."), else after a ``Text:``/``Text to
       translate:`` label following
       such a request, else the whole message (the instruction is then the system message).
    3. The target: a body field ``target_lang`` (a client's "custom parameters"), else the
       first language named after "to"/"into" in the instruction (a code ``zh-CN`` or a name
       ``German``), else ``target`` (``ZT_CHAT_TARGET_LANG``, else ``ZT_TARGET_LANG``). The
       source likewise: ``source_lang``, else after "from", else ``source``.
    """
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InputError("messages must be a non-empty list")
    part = _gemma_part(messages)
    if part is not None:
        return TextAsk(
            _texts(part.get("text"), "text"),
            language(part.get("source_lang_code"), source, "source_lang_code"),
            language(part.get("target_lang_code"), target, "target_lang_code"),
        )
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        raise InputError("the chat request has no user message holding the text")
    text, rest = _split_text(_content(users[-1]))
    if not text:
        raise InputError("the user message holds no text to translate")
    system = [_content(m) for m in messages if isinstance(m, dict) and m.get("role") == "system"]
    instruction = "\n".join([*system, rest])
    found_target = _named(instruction, _TO)
    found_source = _named(instruction, _FROM)
    return TextAsk(
        (text,),
        language(body.get("source_lang"), found_source or source, "source_lang"),
        language(body.get("target_lang"), found_target or target, "target_lang"),
    )

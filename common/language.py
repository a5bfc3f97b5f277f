"""A language, as the model knows it: parsed once where a code comes in, then carried as is.

:meth:`Language.parse` accepts what users type (ISO-639-1 and BCP-47 forms, any case, ``_`` or
``-``: ``zh-CN``, ``ko-KR``, ``pt_BR``; or the English name: ``Korean``, ``Chinese``) and keeps
the model's code (``zh-Hans``, ``ko``, ``pt``).
The codes are the languages of TranslateGemma's training set (WMT24++: English plus 54
language/locale pairs, which collapse to the languages below; regional variants such as
pt-BR/pt-PT or fr-CA/fr-FR are sent as the bare language code, which every reimplementation of the
template's map accepts). Chinese keeps its script subtag because Simplified and Traditional are
different targets. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from common.errors import UnsupportedLanguageError

__all__ = ["LANGUAGES", "Language"]

#: The model's codes and the English names its template uses.
LANGUAGES: dict[str, str] = {
    "ar": "Arabic",
    "bg": "Bulgarian",
    "bn": "Bengali",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "et": "Estonian",
    "fa": "Persian",
    "fi": "Finnish",
    "fil": "Filipino",
    "fr": "French",
    "gu": "Gujarati",
    "he": "Hebrew",
    "hi": "Hindi",
    "hr": "Croatian",
    "hu": "Hungarian",
    "id": "Indonesian",
    "is": "Icelandic",
    "it": "Italian",
    "ja": "Japanese",
    "kn": "Kannada",
    "ko": "Korean",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "ml": "Malayalam",
    "mr": "Marathi",
    "nl": "Dutch",
    "no": "Norwegian",
    "pa": "Punjabi",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sr": "Serbian",
    "sv": "Swedish",
    "sw": "Swahili",
    "ta": "Tamil",
    "te": "Telugu",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "ur": "Urdu",
    "vi": "Vietnamese",
    "zh-Hans": "Chinese (Simplified)",
    "zh-Hant": "Chinese (Traditional)",
    "zu": "Zulu",
}

# Lower-cased input forms that are not "<code>" or "<code>-<region>" of a code above.
_ALIASES: dict[str, str] = {
    "zh": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh-sg": "zh-Hans",
    "zh-my": "zh-Hans",
    "zh-hans-cn": "zh-Hans",
    "zh-tw": "zh-Hant",
    "zh-hk": "zh-Hant",
    "zh-mo": "zh-Hant",
    "zh-hant-tw": "zh-Hant",
    "zh-hant-hk": "zh-Hant",
    "nb": "no",  # Norwegian Bokmål / Nynorsk: the model knows "Norwegian"
    "nn": "no",
    "tl": "fil",  # Tagalog, the base of Filipino
    "iw": "he",  # pre-1989 ISO codes still emitted by Java and old browsers
    "in": "id",
}

_BY_LOWER = {code.lower(): code for code in LANGUAGES}
# English names as users write them: "korean", "chinese (simplified)", "simplified chinese".
_BY_NAME: dict[str, str] = {name.lower(): code for code, name in LANGUAGES.items()} | {
    "chinese": "zh-Hans",
    "simplified chinese": "zh-Hans",
    "chinese simplified": "zh-Hans",
    "traditional chinese": "zh-Hant",
    "chinese traditional": "zh-Hant",
    "tagalog": "fil",
    "farsi": "fa",
    "norwegian bokmål": "no",
    "norwegian bokmal": "no",
}
_BCP47 = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{1,8})*")
#: Written without spaces between words: translated pieces are joined with nothing between.
_UNSPACED = frozenset({"zh-Hans", "zh-Hant", "ja"})
_CJK = _UNSPACED | {"ko"}


@dataclass(frozen=True)
class Language:
    """One language the model covers; ``code`` is the model's code (``zh-Hans``, ``ko``).

    Built by :meth:`parse` from what a user typed; constructing it from anything but one of
    the model's codes raises ``UnsupportedLanguageError``. Equal languages have equal codes.
    """

    code: str

    def __post_init__(self) -> None:
        if self.code not in LANGUAGES:
            raise UnsupportedLanguageError(_unsupported(self.code))

    @classmethod
    def parse(cls, raw: str) -> Language:
        """The language a user's code or English name means: ``zh-CN`` -> ``zh-Hans``,
        ``ko-KR`` or ``Korean`` -> ``ko``.

        Case, surrounding spaces and ``_`` versus ``-`` do not matter. Raises
        ``UnsupportedLanguageError`` for a code the model does not cover (``zh-XX``, with an
        unknown region, is ambiguous between the two scripts and is refused too).
        """
        stripped = raw.strip()
        key = stripped.replace("_", "-").lower()
        if key in _BY_LOWER:
            return cls(_BY_LOWER[key])
        if key in _ALIASES:
            return cls(_ALIASES[key])
        name = " ".join(stripped.lower().split())
        if name in _BY_NAME:
            return cls(_BY_NAME[name])
        base = key.split("-", 1)[0]
        if _BCP47.fullmatch(key) and base != "zh":
            if base in _BY_LOWER:
                return cls(_BY_LOWER[base])
            if base in _ALIASES:
                return cls(_ALIASES[base])
        raise UnsupportedLanguageError(_unsupported(stripped))

    @property
    def name(self) -> str:
        """The English name the model's template uses: ``Korean``, ``Chinese (Simplified)``."""
        return LANGUAGES[self.code]

    @property
    def is_cjk(self) -> bool:
        """Chinese (either script), Japanese or Korean."""
        return self.code in _CJK

    @property
    def is_korean(self) -> bool:
        return self.code == "ko"

    @property
    def spaced(self) -> bool:
        """Whether words are separated by spaces (not in Chinese and Japanese)."""
        return self.code not in _UNSPACED

    def __str__(self) -> str:
        return self.code


def _unsupported(raw: str) -> str:
    # Short: the plugin shows the message in an alert and cuts it at 300 characters.
    shown = raw if len(raw) <= 40 else raw[:40] + "…"
    return (
        f"unsupported language {shown!r}: give a language code (ko, zh-CN, de-DE) or an English"
        f" name (Korean); TranslateGemma covers {len(LANGUAGES)} languages, listed in the page's"
        " From and To boxes"
    )

"""Deterministic pseudo translation, shared by the fake vLLM and the tests that check its output.

Standard library only: the fake vLLM runs under whatever ``python3`` a Jupyter login shell finds.

Rules: every ASCII word becomes a word of the target script derived from its letters (stable
across processes, unlike ``hash()``); for a Latin-script target (``en``, ``de``...) every run of
Hangul becomes a Latin word too, so a Korean paper "translates" into Latin letters. Placeholders
``{vN}``, style tags (``<b>``, ``</i>``) around the words they mark, numbers, punctuation,
whitespace and other scripts pass through unchanged. So a test can recompute the expected text
of any paragraph.
"""

from __future__ import annotations

import re

_HANGUL = (
    "가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허고노도로모보소오조초코토"
    "포호구누두루무부수우주추쿠투푸후그느드르므브스으즈츠크트프흐기니디리미비시이지치"
    "키티피히"
)
_HAN = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着"
    "去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主"
    "行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二"
    "理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走"
    "电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市"
    "眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提"
    "感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它"
    "许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青"
    "管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步"
    "完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持"
    "取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯"
    "专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴愿准"
)
_KANA = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
)

_SYLLABLES = [c + v for c in "bdgkmnprst" for v in "aeiou"]

_HANGUL_RUN = re.compile("[\uac00-\ud7a3]+")
# Style tags ("<b>", "</i>") pass through around the words they mark, as a model keeps them.
_TOKEN = re.compile(r"\{v\d+\}|</?[bi]>|[A-Za-z]+|[\uac00-\ud7a3]+|[^A-Za-z{<\uac00-\ud7a3]+|[{<]")


def _stable(word: str, salt: int) -> int:
    value = 2166136261 ^ salt
    for char in word.lower():
        value = ((value ^ ord(char)) * 16777619) & 0xFFFFFFFF
    return value


def _script(target_lang: str) -> str | None:
    lang = target_lang.lower()
    if lang.startswith("ko"):
        return _HANGUL
    if lang.startswith("zh"):
        return _HAN
    if lang.startswith("ja"):
        return _KANA
    return None


def pseudo_word(word: str, target_lang: str) -> str:
    """The pseudo translation of one ASCII word."""
    alphabet = _script(target_lang)
    if alphabet is None:
        # Latin targets: the word mirrored, marked so it never equals the source word.
        return "~" + word[::-1]
    length = max(1, (len(word) + 2) // 3)
    return "".join(alphabet[_stable(word, i) % len(alphabet)] for i in range(length))


def _latin_word(hangul: str) -> str:
    """The Latin pseudo translation of a run of Hangul syllables: one syllable each."""
    return "".join(_SYLLABLES[_stable(hangul, i) % len(_SYLLABLES)] for i in range(len(hangul)))


def _translated(token: str, target_lang: str) -> str | None:
    """The pseudo translation of one token, or None when it passes through unchanged."""
    if token.isascii() and token.isalpha():
        return pseudo_word(token, target_lang)
    if _script(target_lang) is None and _HANGUL_RUN.fullmatch(token):
        return _latin_word(token)
    return None


def pseudo_translate(text: str, target_lang: str) -> str:
    """Translate ``text`` word by word; keeps placeholders, digits and punctuation."""
    out = []
    for token in _TOKEN.findall(text):
        word = _translated(token, target_lang)
        out.append(token if word is None else word)
    return "".join(out).strip()


def pseudo_words(text: str, target_lang: str) -> list[str]:
    """The target-script words expected in the translation of ``text`` (for assertions)."""
    words = (_translated(t, target_lang) for t in _TOKEN.findall(text))
    return [w for w in words if w is not None]

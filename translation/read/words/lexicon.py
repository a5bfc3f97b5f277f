"""The lexicon: whether a string is a word of a language, and what a line-end hyphen means.

A line-end hyphen either breaks one word in two ("sum-" + "maries") or is the hyphen of a
compound that happens to fall at the line's end ("state-" + "of-the-art", "self-" +
"attention"). Which one is decided with a real word list (the frequency lists that
``pyspellchecker`` ships, one per language, loaded once on first use): the break is undone when
the joined word is a word ("summaries", "input"), or when neither the joined word nor either
piece is one (a technical word the list lacks, broken in two: "tok-" + "enization"); otherwise
the hyphen is kept ("stateof" and "selfattention" are no words). A compound made with an
acronym ("BERT-" + "based") or going on in capitals ("Hugging-" + "Face") keeps its hyphen.
Before the word list, the document's own vocabulary is asked where it is given
(``translation.read.words.vocabulary``): a name printed whole elsewhere ("Kryscinski") is joined
though "ski" is a word, a compound printed inside a line elsewhere keeps its hyphen.
"""

from __future__ import annotations

import functools
import gzip
import json
import pkgutil
import re

from spellchecker import SpellChecker

from translation.read.words.vocabulary import Vocabulary

#: Languages with a word list; text in another language is looked up in English's.
LANGUAGES = frozenset({"ar", "de", "en", "es", "eu", "fa", "fr", "it", "lv", "nl", "pt", "ru"})
_LETTERS_RE = re.compile(r"[^\W\d_]+")
#: English endings that the word list holds as words of their own ("ing", "cess", "ness"),
#: yet never stand after a compound's hyphen: a word broken before one is one word.
_SUFFIXES = frozenset(
    "ing ings ed ly ment ments ness tion tions sion sions ity ities able ible ous ive ize "
    "ized izes izing ise ised ism ist ists cess ance ence ful less".split()
)


@functools.cache
def _lexicon(language: str) -> frozenset[str]:
    """The lower-case words of ``language``'s list (English's for a language without one).

    The list is read from the package as ``SpellChecker`` reads it (gzipped JSON, the words
    lower-cased), without the letter and length tables a checker builds and nothing here
    asks for: half the time (0.1 s for English), paid once by every process that reads."""
    code = language.lower().replace("_", "-").split("-")[0]
    name = code if code in LANGUAGES else "en"
    try:
        packed = pkgutil.get_data("spellchecker", f"resources/{name}.json.gz")
    except OSError:  # the package keeps its lists elsewhere: ask a checker
        packed = None
    if packed is None:
        checker = SpellChecker(language=name, distance=1)
        return frozenset(checker.word_frequency.dictionary)
    words = json.loads(gzip.decompress(packed).decode("utf-8"))
    return frozenset(word.lower() for word in words)


def is_word(token: str, language: str = "en") -> bool:
    """Whether ``token`` (letters only, any case) is a word of ``language``'s word list."""
    return token.lower() in _lexicon(language)


#: An English stem of this many letters or more joins a suffix over a hyphen.
_STEM_LETTERS = 3


def joins_at_break(
    before: str, after: str, language: str = "en", seen: Vocabulary | None = None
) -> bool:
    """Whether a hyphen at a line's end between ``before`` (the letters up to the hyphen) and
    ``after`` (the letters that open the next line) breaks one word and is to be dropped.

    ``before`` and ``after`` are the letter runs touching the hyphen; the next line must go on
    in lower case (a capital after a hyphen is a name or a compound: "Hugging-" + "Face").
    ``seen``, the document's vocabulary, decides where it prints one form and not the other;
    without it (or where it prints both or neither) the word list decides.
    """
    if not _LETTERS_RE.fullmatch(before) or not _LETTERS_RE.fullmatch(after):
        return False
    if not after[0].islower() or sum(c.isupper() for c in before) >= 2:
        return False  # "Hugging-Face", "BERT-based"
    verdict = seen.verdict(before, after) if seen is not None else None
    if verdict is not None:
        return verdict
    if is_word(before + after, language):
        return True
    if (
        language.lower().startswith("en")
        and len(before) >= _STEM_LETTERS
        and after.lower() in _SUFFIXES
    ):
        return True  # "reencounter-" + "ing", "postpro-" + "cess": an ending, no word alone
    # A piece that stands as a word makes a compound; pieces that are no words, a broken word.
    return not is_word(after, language) and not is_word(before, language)

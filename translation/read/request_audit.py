"""Request audit: how whole the texts sent to the model are.

Every request is translated alone, so a request that is a piece of a sentence comes back as a
wrong sentence. This module looks at the texts as sent (placeholders and all) and counts what a
reader of the requests would flag:

* a *prose* request has :data:`PROSE_WORDS` words or more (a heading or a table cell may end
  without a stop);
* it *starts inside* a sentence when its first word is in lower case ("maries of the", "where
  {v1} is"), and *ends inside* one when it ends with no sentence stop (a full-width colon or
  semicolon is a stop as its ASCII form is, and so is a Korean nominal ending: "...정의함");
  a term set in its own style at its start ("<b>article</b> a paper in a journal.",
  "<b>Hybrid:</b> defines ...", "<i>Scalability:</i> the effect of ...") opens an entry,
  whatever the case of the term or of the words after it, and in Chinese, Japanese or
  Korean a lower-case Latin name that CJK text follows ("hyperref パッケージ",
  "pmhanguljamo.sty는") opens the sentence it names;
* it *ends cut* when its last word is cut by a line-end hyphen ("the sum-");
* a *word cut in two* is a fragment that is no word: a request's last word before a hyphen, or
  the lower-case opening of the request after it, or a hyphen left inside a text where the
  word list says the pieces make one word ("sum- maries");
* for Korean text, a Hangul run of :data:`LONG_HANGUL` syllables or more is words run together
  (a PDF that draws no space glyphs, read without its word spaces).

What the corpus audit (``bench.corpus``) also asks of a text, each a cue a reader would see:

* :func:`glued_caption`: a caption's label ("Table 2:", "Figure 3.", "表 1", "그림 2") inside a
  text, after a sentence's end or after words no label follows in prose;
* :func:`looks_like_reference`: a bibliography entry (a year, and an author list or an entry
  label, and a venue or several authors);
* :func:`code_like`: more code tokens than words (TeX commands, braces, semicolons, calls,
  assignments), so not prose that mentions a command or two.

Pure: texts in, figures out (``bench.requests`` prints them, ``bench.visual`` writes the flags).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from translation.read.numbering.grammar import ENTRY_NUMBER, LETTER
from translation.read.paragraph import ParagraphKind
from translation.read.style.style_marks import without_tags
from translation.read.words.lexicon import is_word, joins_at_break

PROSE_WORDS = 8
LONG_HANGUL = 12

# Words as the model sees them: runs of two letters or more; each Han character or kana is one.
_WORD_RE = re.compile(r"[^\W\d_\u3040-\u30ff\u3400-\u9fff]{2,}|[\u3040-\u30ff\u3400-\u9fff]")
_PLACEHOLDER_RE = re.compile(r"\{v\d+\}")
_FIRST_RE = re.compile(r"\{v\d+\}|[^\W\d_]+|\S")
_OPENERS = "\"'“‘([«"
_STOPS = tuple(".!?:;。．！？…：；")
# Closing marks after a sentence's stop, ASCII and full-width ("（4.3 節参照。）", "「...。」").
_CLOSERS = " \"'”’)]»）」』】〕〉》\u3000"
_HYPHENS = r"\-\u00ad\u2010"
_TAIL_CUT_RE = re.compile(rf"([^\W\d_]+)[{_HYPHENS}]$")
_INNER_CUT_RE = re.compile(rf"(?<![\w{_HYPHENS}])([^\W\d_]+)[{_HYPHENS}] ([^\W\d_]+)")
_HANGUL_RUN_RE = re.compile("[\uac00-\ud7a3]+")


@dataclass(frozen=True, slots=True)
class RequestFlags:
    """What :func:`flags` found in one request."""

    prose: bool
    starts_inside: bool
    ends_inside: bool
    ends_cut: bool
    cut_words: int

    @property
    def broken(self) -> bool:
        """A prose request that starts inside a sentence or ends with a cut word."""
        return self.prose and (self.starts_inside or self.ends_cut)


@dataclass(frozen=True, slots=True)
class Audit:
    """Figures over the requests of one paper."""

    requests: int
    prose: int
    broken: int  # prose requests that start in lower case or end with a cut word
    starts_inside: int
    ends_inside: int
    cut_words: int
    hangul_runs: int
    long_hangul_runs: int

    @property
    def broken_share(self) -> float:
        return self.broken / self.prose if self.prose else 0.0

    @property
    def ends_inside_share(self) -> float:
        return self.ends_inside / self.prose if self.prose else 0.0

    @property
    def long_hangul_share(self) -> float:
        return self.long_hangul_runs / self.hangul_runs if self.hangul_runs else 0.0


def word_count(text: str) -> int:
    return len(_WORD_RE.findall(_PLACEHOLDER_RE.sub(" ", text)))


#: A term set in its own style at a text's start, then the text it defines.
_TERM_RE = re.compile(r"^\s*<([bi])>([^<]{1,40})</\1>\s+(?=\S)")
#: Words a definition list's term may have.
_TERM_WORDS = 3
#: How an italic run-in label ends ("<i>Scalability:</i> the effect of ...").
_TERM_ENDS = (":", ".", "：", "．")
#: Sources whose own words are no Latin words (a Latin word in them is a name).
_CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})
#: What follows a name that opens a CJK sentence: the rest of the name ("pmhanguljamo.sty",
#: "k.TEX"), then CJK text, a particle glued to the name or not ("…sty는", "hyperref パッケージ").
_CJK_NEXT_RE = re.compile(
    r"[\w.\-/]*[\s\u3000]*(?:\{v\d+\}[\s\u3000]*)*[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]"
)


def _opens_with_term(text: str) -> bool:
    """Whether ``text`` opens with a term: a run of at most :data:`_TERM_WORDS` words in bold,
    or in italic ending with a colon or a stop, then more text (a definition list's entry, a
    labelled item, a run-in head)."""
    term = _TERM_RE.match(text)
    if term is None or len(term.group(2).split()) > _TERM_WORDS:
        return False
    # Bold, or a run-in label's stop: an italic word alone is emphasis ("<i>while</i> the").
    return term.group(1) == "b" or term.group(2).rstrip().endswith(_TERM_ENDS)


#: A labelled list ("Keywords: Answer Validation, Recognizing Textual Entailment"): items split
#: by commas or semicolons, each at most this many words, two items at least.
_LIST_ITEM_WORDS = 4
_LIST_SPLIT_RE = re.compile(r"\s*[,;]\s*")


def _labelled_list(text: str) -> bool:
    """Whether ``text`` (tags removed) is a label and a list of short items, which ends with
    its last item, on no stop."""
    label, colon, rest = text.partition(":")
    if not colon or not label.strip() or len(label.split()) > _TERM_WORDS:
        return False
    items = [item for item in _LIST_SPLIT_RE.split(rest.strip()) if item]
    return len(items) >= 2 and all(len(item.split()) <= _LIST_ITEM_WORDS for item in items)


def _starts_inside(text: str, language: str = "en") -> bool:
    text = text.lstrip(_OPENERS + " ")
    first = _FIRST_RE.search(text)
    if first is None or not first.group()[0].isalpha():
        return False
    word = first.group()
    if language in _CJK_LANGUAGES and _CJK_NEXT_RE.match(text, first.end()):
        return False  # "fduthesis 也提供了 ...": a name opens a Chinese sentence
    # "iPhone", "arXiv", "pH" are names, not a sentence's middle.
    return word[0].islower() and not any(c.isupper() for c in word)


#: Korean nominal endings (-함, -음, -임, -됨, ...): a sentence of a report, a footnote or a
#: bullet set in the noun style ends on one with no stop ("...상해로 정의함").
_KOREAN_NOMINAL_ENDS = tuple("함음임됨짐봄옴움줌냄")


def _ends_inside(text: str) -> bool:
    text = text.rstrip(_CLOSERS)
    return not text.endswith(_STOPS) and not text.endswith(_KOREAN_NOMINAL_ENDS)


def flags(text: str, previous: str = "", language: str = "en") -> RequestFlags:
    """The flags of request ``text``; ``previous``: the request before it in reading order
    (a word cut by its line-end hyphen goes on at the start of this one). Style tags
    (``<b>``, ``<i>``) are markup, not words; a term in its own style opens an entry."""
    term = _opens_with_term(text)
    text, previous = without_tags(text).strip(), without_tags(previous)
    cut = 0
    tail = _TAIL_CUT_RE.search(text)
    if tail and not is_word(tail.group(1), language):
        cut += 1
    head = _FIRST_RE.search(text)
    if (
        _TAIL_CUT_RE.search(previous.strip())
        and head
        and head.group()[0].islower()
        and not is_word(head.group(), language)
    ):
        cut += 1
    for match in _INNER_CUT_RE.finditer(text):
        if joins_at_break(match.group(1), match.group(2), language):
            cut += 1
    return RequestFlags(
        prose=word_count(text) >= PROSE_WORDS,
        starts_inside=not term and _starts_inside(text, language),
        ends_inside=_ends_inside(text) and not (term and _labelled_list(text)),
        ends_cut=tail is not None,
        cut_words=cut,
    )


def audit(texts: Sequence[str], language: str = "en") -> Audit:
    """The figures of the requests ``texts``, in reading order, in source ``language``."""
    found = [flags(text, texts[i - 1] if i else "", language) for i, text in enumerate(texts)]
    runs = [len(run) for text in texts for run in _HANGUL_RUN_RE.findall(text)]
    prose = [f for f in found if f.prose]
    return Audit(
        requests=len(texts),
        prose=len(prose),
        broken=sum(f.broken for f in prose),
        starts_inside=sum(f.starts_inside for f in prose),
        ends_inside=sum(f.ends_inside for f in prose),
        cut_words=sum(f.cut_words for f in found),
        hangul_runs=len(runs),
        long_hangul_runs=sum(n >= LONG_HANGUL for n in runs),
    )


# --- what the corpus audit asks of a text ----------------------------------------------------

#: Words after which "Figure 3." is prose ("shown in Figure 3."), not a caption's label.
_LABEL_LEADS = frozenset(
    "in see of and or to from as by with on under per cf also than like both between".split()
)
_CAPTION_LATIN_RE = re.compile(
    r"(?:(?<=\s)|^)(?P<label>Table|TABLE|Figure|FIGURE|Fig\.|FIG\.|Algorithm|Listing)"
    r"\s+[A-Z]?\d+(?:\.\d+)*\s*[:.|]\s+(?=[A-Z\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3])"
)
_CAPTION_CJK_RE = re.compile(
    r"(?:(?<=[。．.!?！？]\s)|(?<=[。．！？]))(?:表|図|图|圖|그림|표)\s*\d+(?:[.．:：]|\s)"
)
_LABEL_WORD_RE = re.compile(r"[^\W\d_]+\.?")
_STOP_BEFORE_RE = re.compile(r"[.!?:;)\]。．！？]\s*$")

#: A caption's label after fewer words than this is the caption's own start.
_CAPTION_AFTER_WORDS = 3


def caption_words(captions: Iterable[str]) -> frozenset[str]:
    """The label words, as written, that a document's own captions open with ("FIG.",
    "Table"): what :func:`glued_caption` compares a label inside a text with."""
    words = (_LABEL_WORD_RE.match(without_tags(text).strip()) for text in captions)
    return frozenset(match.group(0) for match in words if match)


def _labels_alike(word: str) -> str:
    """What a label word labels: "figure" for "Figure", "FIG.", "Fig."; "table" for "Table",
    "TAB."; the word itself (case folded) otherwise."""
    folded = word.casefold()
    return {"fig": "figure", "tab": "table"}.get(folded[:3], folded)


def glued_caption(text: str, own_labels: frozenset[str] = frozenset()) -> bool:
    """Whether a caption's label stands inside ``text`` (not at its start): "Table 2: ..." or
    "Figure 3. ..." after a sentence's end or after a word no label follows in prose ("... we
    trained the Figure 3: Results"), not after "in", "see", "of" and the like; "表 1", "图 2",
    "그림 3" after a sentence's end. ``own_labels`` (:func:`caption_words`): where the
    document's own captions of that kind are labelled in another way ("FIG. 1 –"), a "Figure
    1." in a sentence is the prose naming it ("... sont données Figure 1. Considérons ...")."""
    text = without_tags(text).strip()
    for match in _CAPTION_LATIN_RE.finditer(text):
        word = match.group("label")
        kind = _labels_alike(word)
        if word not in own_labels and any(_labels_alike(w) == kind for w in own_labels):
            continue
        before = text[: match.start()]
        if word_count(before) < _CAPTION_AFTER_WORDS:
            continue
        words = before.split()
        if _STOP_BEFORE_RE.search(before) or words[-1].lower() not in _LABEL_LEADS:
            return True
    return any(match.start() > 0 for match in _CAPTION_CJK_RE.finditer(text))


_YEAR_RE = re.compile(r"(?:\(|,\s|\.\s)(?:19|20)\d\d[a-z]?(?:\)|[.,;])")
_AUTHOR_RE = re.compile(
    r"\b[A-Z][a-z\u00c0-\u024f'-]+,\s(?:[A-Z]\.\s?(?:-?[A-Z]\.\s?)*)"
    r"|\b(?:[A-Z]\.\s?){1,3}[A-Z][a-z\u00c0-\u024f'-]+,"
    r"|\bet al\.[,]?\s"
)
_ENTRY_LABEL_RE = re.compile(rf"^\s*(?:\[{ENTRY_NUMBER}\]|{ENTRY_NUMBER}\.\s+{LETTER})")
_VENUE_RE = re.compile(
    r"\b(?:Proceedings|Proc\.|Journal|J\.|Conference|Conf\.|Workshop|Transactions|Trans\.|"
    r"arXiv|pp\.|vol\.|Vol\.|In:|Press|doi|DOI|ISBN|Springer|IEEE|ACM|Letters|Review|"
    r"University|Annals|Symposium)\b"
)
#: Longer texts are prose that cites, not an entry.
_ENTRY_WORDS = 90


def looks_like_reference(text: str) -> bool:
    """Whether ``text`` reads as a bibliography entry: a year ("(2019)", ", 2019."), and an
    author list ("Smith, J.", "J. Smith,", "et al.") or an entry label ("[12]", "12. A"), and a
    venue ("Proceedings", "pp.", "arXiv", ...) or both a label and an author; at most
    :data:`_ENTRY_WORDS` words."""
    text = without_tags(text).strip()
    if not _YEAR_RE.search(text) or word_count(text) > _ENTRY_WORDS:
        return False
    authors = len(_AUTHOR_RE.findall(text))
    label = _ENTRY_LABEL_RE.match(text) is not None
    if not (authors or label):
        return False
    return bool(_VENUE_RE.search(text)) or (label and authors >= 1)


_CODE_TOKEN_RE = re.compile(
    r"\\[A-Za-z@]+"  # a TeX command
    r"|[{}]|;\s*$|;(?=\s)|<-|->|==|!=|:=|\+="
    r"|\b[A-Za-z_][\w.]*\((?!\s)"  # a call: f(x), obj.method(
    r"|(?<=\w)=(?=[\w\"'(])"  # an assignment without spaces: a=1
    r"|#include|\bdef\b|\breturn\b|\bfunction\b|\bvoid\b",
    re.MULTILINE,
)
#: Code tokens at least, and their share of the words, for a text to be code.
_CODE_TOKENS = 3
_CODE_SHARE = 0.5


def code_like(text: str) -> bool:
    """Whether ``text`` is code by its tokens: :data:`_CODE_TOKENS` or more code tokens (TeX
    commands, braces, statement ends, arrows, calls, assignments without spaces), as many as
    :data:`_CODE_SHARE` of its words. Prose that mentions ``\\usepackage`` once is no code."""
    text = _PLACEHOLDER_RE.sub(" ", without_tags(text))
    tokens = len(_CODE_TOKEN_RE.findall(text))
    return tokens >= _CODE_TOKENS and tokens >= _CODE_SHARE * max(1, word_count(text))


#: Kinds whose texts need not be whole sentences.
UNSENTENCED_KINDS = frozenset(
    {
        ParagraphKind.HEADING,
        ParagraphKind.CELL,
        ParagraphKind.CAPTION,
        ParagraphKind.AUTHOR,
        ParagraphKind.ALGORITHM,  # one line of pseudo-code
    }
)

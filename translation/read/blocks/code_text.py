"""Code told by its text: a displayed block of LaTeX source or a command line, whatever font
it is set in (a typewriter face a PDF does not flag monospaced, a proportional face).

Code set in a face measured monospaced is told by its face already (its characters are
``CODE``, see :mod:`translation.read.pages.monospace`); this catches the rest. Markup is
measured against the words of the text's own script: a Chinese, Japanese or Korean sentence
puts no spaces between its words, so each of its characters is a word, and such a sentence
that names commands ("用\\listoffigures 和\\listoftables 生成...") is prose, its commands kept
as placeholders (:data:`COMMAND_RE`, :mod:`translation.read.math.formulas`). Pure logic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Commands and options: "\begin", "\includegraphics", "--epochs", "-o".
_COMMAND_RE = re.compile(r"\\[A-Za-z@]+|(?<!\S)--?[A-Za-z][\w-]*")
# A token of code: a command or an option, braces, an assignment, a path, a call.
_CODE_TOKEN_RE = re.compile(
    r"\\[A-Za-z@]|^\\$|^--?[A-Za-z]|[{}<>;=|$#]|::|->|\w\(|^[./~]*[\w.-]+/|\w_\w"
)
# A word of prose: letters, maybe an apostrophe or hyphen, and punctuation around it.
_WORD_TOKEN_RE = re.compile(r"^[\"'“‘(\[]?[A-Za-z][a-z'’-]*[.,;:!?\"'”’)\]]*$")
# A word of a script that sets no spaces between its words: each character (Han, kana,
# Hangul syllables, which a PDF may set without their spaces too).
_CJK_WORD_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7a3]")
# Markup inside a run without spaces (CJK text runs its words and commands together): a
# command, a group in braces or brackets, an assignment, a statement's end or TeX's tie, each
# one token.
_MARKUP_RE = re.compile(r"\\[A-Za-z@]+|\{[^{}]*\}|\[[^\[\]]*\]|[=;~]")
# A group in braces or brackets, innermost.
_GROUP_RE = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]")
# A comment that ends a line of code: TeX's "%" (not "\\%", nor a percentage's "50%"), "#" or
# "//" set apart. What follows it is a note on the code, whatever script it is written in.
_COMMENT_RE = re.compile(r"(?<![\\\d])%|(?:^|(?<=\s))(?:#|//)(?=\s)")
# A meta-variable of command syntax: a name between angle brackets that stands for what the
# user writes there ("pandoc ⟨入力ファイル名⟩ -o ⟨出力ファイル名⟩.pdf"). It is one token of
# code whatever script its name is in; the name is no words of prose.
# The brackets are the mathematical or technical ones TeX's \meta sets (U+27E8, U+2329),
# never the CJK angle brackets that mark a title in prose ("〈論語〉", U+3008).
_META_RE = re.compile(r"[⟨\u2329][^⟨⟩\u2329\u232a]*[⟩\u232a]")
#: The fewest commands or options a text of code holds.
_MIN_COMMANDS = 2


def looks_like_code(text: str | Sequence[str]) -> bool:
    """Whether ``text`` (a block's text, or its lines) is code or command syntax rather than
    prose: two commands, options or meta-variables or more ("\\begin{figure}", "--epochs 10",
    "\\documentclass[⟨ドライバ⟩]"), and no fewer tokens of markup than words of prose, each
    counted in its own script: a token of Latin text is code or a word; in a run of CJK text,
    each character outside a command's argument is a word, the argument one word, and each
    command, group in braces, ``=``, ``;`` or ``~`` a token of markup. A line's comment after
    its code ("\\newtheorem{thm}{Theorem} %如果不采用...") counts for neither; a meta-variable
    ("⟨入力ファイル名⟩") is one token of markup, its name no words. A sentence that names a
    command or two ("use \\emph{text} for emphasis", "用\\cite 和\\nocite 引用文献") is
    prose; "\\kanbun{子}{}{}{}" and "\\hypersetup{pdftitle={日本語タイトル}}" are code.
    """
    lines = [text] if isinstance(text, str) else list(text)
    commands = sum(len(_COMMAND_RE.findall(line)) + len(_META_RE.findall(line)) for line in lines)
    if commands < _MIN_COMMANDS:
        return False
    code = words = 0
    for line in lines:
        comment = _COMMENT_RE.search(line)
        if comment and comment.start() > 0 and _MARKUP_RE.search(line[: comment.start()]):
            line = line[: comment.start()]
        code += len(_META_RE.findall(line))
        for token in _META_RE.sub(" ", line).split():
            cjk = len(_CJK_WORD_RE.findall(token))
            if cjk:
                code += len(_MARKUP_RE.findall(token))
                # A command's argument is one word however many characters it has
                # ("\\hypersetup{pdftitle={日本語タイトル}}").
                groups = _GROUP_RE.findall(token)
                words += len(_CJK_WORD_RE.findall(_GROUP_RE.sub(" ", token)))
                words += sum(bool(_CJK_WORD_RE.search(group)) for group in groups)
            else:
                code += bool(_CODE_TOKEN_RE.search(token))
                words += bool(_WORD_TOKEN_RE.match(token))
    return code >= words


# A placeholder in a block's protected text ("{v3}").
_PLACEHOLDER_RE = re.compile(r"(\{v\d+\})")
# Inside code (a placeholder, a line set monospaced) CJK angle brackets are a meta-variable's
# too ("author = {〈姓名〉}"): in prose they mark a title.
_OPENS, _CLOSES = "⟨\u2329〈", "⟩\u232a〉"
_CJK_META_RE = re.compile(r"〈[^〈〉]*〉")
_LEADING_META_RE = re.compile(r"^\s*[⟨\u2329〈][^⟨⟩\u2329\u232a〈〉]*[⟩\u232a〉]")


def outside_meta(text: str, placeholders: dict[str, str]) -> str:
    """``text`` (a block's protected text) without the names of meta-variables whose brackets
    went into placeholders with the code around them: "{v1}入力ファイル名{v2}" where ``{v1}``
    is "pandoc ⟨" and ``{v2}`` is "⟩ -o" leaves "{v1}{v2}". Such a name stands for what the
    user types in a line of command syntax; it is no word of a sentence. So is a bracketed
    name right after a placeholder, its brackets set in a text face ("{v1}〈作者姓名〉{v2}")."""
    out: list[str] = []
    inside = after_code = False
    for piece in _PLACEHOLDER_RE.split(text):
        original = placeholders.get(piece)
        if original is None:
            if not inside:
                out.append(_LEADING_META_RE.sub("", piece) if after_code else piece)
            after_code = False
            continue
        after_code = True
        out.append(piece)
        brackets = [c for c in original if c in _OPENS or c in _CLOSES]
        if brackets:
            inside = brackets[-1] in _OPENS
    return "".join(out)


def in_meta(chars: str, coded: Sequence[bool] = ()) -> list[bool]:
    """For each of ``chars``, whether it belongs to a meta-variable: its brackets or its name;
    ``coded``: which characters are code (set monospaced), after which CJK angle brackets
    enclose one ("author = {〈姓名〉}")."""
    out = [False] * len(chars)
    spans = [m.span() for m in _META_RE.finditer(chars)]
    for match in _CJK_META_RE.finditer(chars) if coded else ():
        before = chars[: match.start()].rstrip()
        if before and coded[len(before) - 1]:
            spans.append(match.span())
    for start, end in spans:
        out[start:end] = [True] * (end - start)
    return out

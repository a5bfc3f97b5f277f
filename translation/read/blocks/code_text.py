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
# A comment that ends a line of code: TeX's "%" (not "\\%", nor a percentage's "50%"), "#" or
# "//" set apart. What follows it is a note on the code, whatever script it is written in.
_COMMENT_RE = re.compile(r"(?<![\\\d])%|(?:^|(?<=\s))(?:#|//)(?=\s)")
#: The fewest commands or options a text of code holds.
_MIN_COMMANDS = 2


def looks_like_code(text: str | Sequence[str]) -> bool:
    """Whether ``text`` (a block's text, or its lines) is code or command syntax rather than
    prose: two commands or options or more ("\\begin{figure}", "--epochs 10"), and no fewer
    tokens of markup than words of prose, each counted in its own script: a token of Latin
    text is code or a word; in a run of CJK text, each character is a word and each command,
    group in braces, ``=``, ``;`` or ``~`` a token of markup. A line's comment after its code
    ("\\newtheorem{thm}{Theorem} %如果不采用章节号...") counts for neither. A sentence that
    names a command or two ("use \\emph{text} for emphasis", "用\\cite 和\\nocite 引用文献")
    is prose; "\\kanbun{子}{}{}{}" is code.
    """
    lines = [text] if isinstance(text, str) else list(text)
    if sum(len(_COMMAND_RE.findall(line)) for line in lines) < _MIN_COMMANDS:
        return False
    code = words = 0
    for line in lines:
        comment = _COMMENT_RE.search(line)
        if comment and comment.start() > 0 and _MARKUP_RE.search(line[: comment.start()]):
            line = line[: comment.start()]
        for token in line.split():
            cjk = len(_CJK_WORD_RE.findall(token))
            if cjk:
                code += len(_MARKUP_RE.findall(token))
                words += cjk
            else:
                code += bool(_CODE_TOKEN_RE.search(token))
                words += bool(_WORD_TOKEN_RE.match(token))
    return code >= words

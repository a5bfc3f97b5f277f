"""Code told by its text: a displayed block of LaTeX source or a command line, whatever font
it is set in (a typewriter face a PDF does not flag monospaced, a proportional face).

Code set in a font known to be monospaced is told by its font already (its characters are
``CODE``, see :mod:`translation.read.math.formulas`); this catches the rest. Pure logic.
"""

from __future__ import annotations

import re

# Commands and options: "\begin", "\includegraphics", "--epochs", "-o".
_COMMAND_RE = re.compile(r"\\[A-Za-z@]+|(?<!\S)--?[A-Za-z][\w-]*")
# A token of code: a command or an option, braces, an assignment, a path, a call.
_CODE_TOKEN_RE = re.compile(
    r"\\[A-Za-z@]|^\\$|^--?[A-Za-z]|[{}<>;=|$#]|::|->|\w\(|^[./~]*[\w.-]+/|\w_\w"
)
# A word of prose: letters, maybe an apostrophe or hyphen, and punctuation around it.
_WORD_TOKEN_RE = re.compile(r"^[\"'“‘(\[]?[A-Za-z][a-z'’-]*[.,;:!?\"'”’)\]]*$")
#: The fewest commands or options a text of code holds.
_MIN_COMMANDS = 2


def looks_like_code(text: str) -> bool:
    """Whether ``text`` is code or command syntax rather than prose: two commands or options
    or more ("\\begin{figure}", "--epochs 10"), and no fewer tokens of code than words of
    prose. A sentence that names a command or two ("use \\emph{text} for emphasis") is prose.
    """
    if len(_COMMAND_RE.findall(text)) < _MIN_COMMANDS:
        return False
    tokens = text.split()
    code = sum(bool(_CODE_TOKEN_RE.search(token)) for token in tokens)
    words = sum(bool(_WORD_TOKEN_RE.match(token)) for token in tokens)
    return code >= words

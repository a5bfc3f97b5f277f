"""Pure prompt building for TranslateGemma and for general chat models.

TranslateGemma's chat template accepts only ``user``/``assistant`` turns (a system message
raises), a user ``content`` that is a list of exactly one part carrying ``source_lang_code`` and
``target_lang_code``, and language codes from its own map (``zh-CN`` is not in it: a
``common.language.Language`` carries the model's code); it writes the translator instruction
itself. Infomaniak's vLLM builds of the same weights change the template to read the language
codes from delimiters in a plain string (``delimited_messages``). General instruction models
get a plain system + user prompt instead. Both shapes, the
client-rendered TranslateGemma prompt for ``/v1/completions`` and the small text helpers the LLM
client needs (``strip_think``, ``estimate_tokens``, ``split_in_two``) live here; nothing in this
module does I/O.
"""

from __future__ import annotations

import math
import re
from typing import Any

from common.language import Language
from common.settings import PromptFormat

__all__ = [
    "PROMPT_VERSION",
    "PromptFormat",
    "chat_messages",
    "delimited_messages",
    "estimate_tokens",
    "join_pieces",
    "prompt_version",
    "render_translategemma",
    "split_in_two",
    "strip_think",
    "translategemma_messages",
]

#: Bumped whenever a format's wording or shape changes, so cached answers of the old prompt are
#: not served for the new one (the version is part of the cache key).
PROMPT_VERSION: dict[PromptFormat, str] = {
    PromptFormat.TRANSLATEGEMMA: "translategemma-1",
    PromptFormat.DELIMITED: "delimited-1",
    PromptFormat.CHAT: "chat-1",
}


def prompt_version(prompt_format: PromptFormat | str) -> str:
    """The cache-key component naming a prompt format and its wording version."""
    return PROMPT_VERSION[PromptFormat(prompt_format)]


def translategemma_messages(
    text: str, source_lang: Language, target_lang: Language
) -> list[dict[str, Any]]:
    """The one user message TranslateGemma's chat template requires (see the module docstring).

    Needs a vLLM with PR #41599 started with ``--chat-template-content-format openai``; older
    servers drop the language keys (use ``render_translategemma`` with ``/v1/completions``).
    """
    return [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "source_lang_code": source_lang.code,
                    "target_lang_code": target_lang.code,
                    "text": text,
                }
            ],
        }
    ]


def delimited_messages(
    text: str, source_lang: Language, target_lang: Language
) -> list[dict[str, Any]]:
    """The one user message of Infomaniak's vLLM TranslateGemma template: a plain string
    ``<<<source>>>CODE<<<target>>>CODE<<<text>>>TEXT`` (their template writes the instruction).
    Needs ``--chat-template-content-format string`` (or vLLM's default detection), not
    ``openai``, so the string reaches the template as it is."""
    content = f"<<<source>>>{source_lang.code}<<<target>>>{target_lang.code}<<<text>>>{text}"
    return [{"role": "user", "content": content}]


_CHAT_SYSTEM = (
    "You are a professional translator of scientific papers. Translate the user's text from "
    "{src_name} ({src}) to {tgt_name} ({tgt}). Reply with the translation only: no explanations, "
    "notes, quotes or headings. Keep placeholders such as {{v1}}, {{v2}} exactly as they are "
    "(same spelling, braces and number) at the matching place in the translation. Keep the "
    "tags <b>...</b> and <i>...</i> around the words that translate the words they mark. "
    "Keep numbers, "
    "citations like [12], symbols and URLs unchanged."
)


def chat_messages(text: str, source_lang: Language, target_lang: Language) -> list[dict[str, Any]]:
    """System + user prompt for a general instruction model; the user turn is the text only."""
    system = _CHAT_SYSTEM.format(
        src_name=source_lang.name,
        src=source_lang.code,
        tgt_name=target_lang.name,
        tgt=target_lang.code,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def render_translategemma(text: str, source_lang: Language, target_lang: Language) -> str:
    """TranslateGemma's chat template rendered by hand, for ``POST /v1/completions``.

    Works on any vLLM version (no structured content part to pass through). The leading
    ``<bos>`` is left out on purpose: ``/v1/completions`` adds special tokens by default, and a
    literal one would make it double.
    Note the two blank lines before the text, as the template writes them.
    """
    src, tgt = source_lang.code, target_lang.code
    src_name, tgt_name = source_lang.name, target_lang.name
    return (
        "<start_of_turn>user\n"
        f"You are a professional {src_name} ({src}) to {tgt_name} ({tgt}) translator. "
        f"Your goal is to accurately convey the meaning and nuances of the original {src_name} "
        f"text while adhering to {tgt_name} grammar, vocabulary, and cultural sensitivities.\n"
        f"Produce only the {tgt_name} translation, without any additional explanations or "
        f"commentary. Please translate the following {src_name} text into {tgt_name}:\n\n\n"
        f"{text.strip()}<end_of_turn>\n<start_of_turn>model\n"
    )


_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def strip_think(text: str) -> str:
    """Remove reasoning: ``<think>…</think>`` blocks, and whitespace around the answer.

    Also handles the two broken shapes seen in practice: a lone ``</think>`` (the template opened
    the block in the prompt, so everything before it is reasoning) and an unclosed ``<think>``
    (generation stopped mid-thought, so nothing after it is answer).
    """
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text.strip()


def estimate_tokens(text: str) -> int:
    """A cautious token count without a tokenizer: ~4 ASCII characters per token, and one token
    per other character (CJK, Hangul, accents), which over-counts rather than under-counts."""
    ascii_chars = sum(1 for char in text if char.isascii())
    return max(1, math.ceil(ascii_chars / 4) + (len(text) - ascii_chars))


# A sentence ends at . ! ? (plus closing quotes/brackets) followed by whitespace and a capital,
# digit, opening bracket/quote or placeholder; or at CJK full stops, with or without space. A
# placeholder {vN} holds no whitespace or punctuation, so a cut never falls inside one.
_SENTENCE_END = re.compile(
    r"[.!?][\"'”’)\]]*\s+(?=[\"'“‘(\[{]?[A-Z0-9{])|[。！？][\"'”’」』)\]]*\s*(?=\S)"
)
# Words ending in "." that rarely end a sentence in a paper.
_ABBREVIATIONS = frozenset(
    "e.g i.e al fig figs eq eqs sec secs tab no nos vs cf approx ref refs resp dr mr mrs ms prof"
    " st vol pp ch app alg thm def lem prop".split()
)


def sentence_cuts(text: str) -> list[int]:
    """Where sentences of ``text`` end (offsets after the stop and its space), never at an
    abbreviation ("et al.", "Fig.", "J. Smith") nor inside a placeholder."""
    cuts = []
    for match in _SENTENCE_END.finditer(text):
        if text[match.start()] == ".":
            word = re.search(r"([\w.]+)$", text[: match.start()])
            last = word.group(1).lower() if word else ""
            if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
                continue  # "et al. Smith", "Fig. 3", "J. Smith"
        cuts.append(match.end())
    return [cut for cut in cuts if 0 < cut < len(text)]


def split_in_two(text: str) -> tuple[str, str] | None:
    """Cut ``text`` at the sentence boundary nearest its middle, or None for a single sentence.

    Used when a paragraph is too long for the model's context: each half is translated on its
    own and the answers are joined with ``join_pieces``.
    """
    cuts = sentence_cuts(text)
    if not cuts:
        return None
    middle = len(text) / 2
    cut = min(cuts, key=lambda c: abs(c - middle))
    left, right = text[:cut].strip(), text[cut:].strip()
    if not left or not right:
        return None
    return left, right


def join_pieces(left: str, right: str, target_lang: Language) -> str:
    """Join two translated halves: no space for Chinese and Japanese, one space otherwise."""
    separator = " " if target_lang.spaced else ""
    return f"{left}{separator}{right}"

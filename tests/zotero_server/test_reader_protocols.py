"""How reader plugins' bodies are read (zotero_server/reader_protocols.py), and the interactive
fair-share class their requests wait in (translation/model/fair_slots.py)."""

from __future__ import annotations

import asyncio

import pytest

from common.errors import InputError, UnsupportedLanguageError
from common.language import Language
from translation.model.fair_slots import INTERACTIVE, INTERACTIVE_ROOM
from translation.model.limiter import FixedLimiter
from translation.snippet import protect_snippet, restore_snippet
from zotero_server import reader_protocols as rp

EN, KO = Language("en"), Language("ko")


def chat(*messages: tuple[str, str], **fields: object) -> rp.TextAsk:
    body = {"model": "m", "messages": [{"role": r, "content": c} for r, c in messages], **fields}
    return rp.chat_ask(body, EN, KO)


def test_kind_of_tells_the_translate_bodies_apart() -> None:
    assert rp.kind_of({"q": "x", "source": "en", "target": "de"}) == "libretranslate"
    assert rp.kind_of({"text": "x", "target_lang": "DE"}) == "deeplx"
    assert rp.kind_of({"jsonrpc": "2.0", "method": "LMT_handle_texts", "params": {}}) == (
        "deepl_jsonrpc"
    )
    # The zotero-pdf2zh plugin's body is never a reader's, whatever else it carries.
    assert rp.kind_of({"fileName": "a.pdf", "fileContent": "", "q": "x"}) is None
    assert rp.kind_of({"text": "x"}) is None


def test_languages_as_people_write_them() -> None:
    assert rp.language("ZH-HANS", EN, "t") == Language("zh-Hans")
    assert rp.language("zh-TW", EN, "t") == Language("zh-Hant")
    assert rp.language("PT-BR", EN, "t") == Language("pt")
    assert rp.language("German", EN, "t") == Language("de")
    assert rp.language("Chinese (Traditional)", EN, "t") == Language("zh-Hant")
    assert rp.language("auto", KO, "t") == KO and rp.language(None, KO, "t") == KO
    with pytest.raises(UnsupportedLanguageError, match="target"):
        rp.language("klingon", EN, "target")


def test_chat_rule_plugin_prompt() -> None:
    prompt = (
        "please provide a translation from en-US to zh-CN of the academic text enclosed in 🔤."
        " The text is as follows:  🔤 Context from the academic paper:\nPaper Title: T\n\n"
        "Text to translate: The loss falls. 🔤  Please provide the result and remove 🔤."
    )
    ask = chat(("user", prompt))
    assert ask == rp.TextAsk(("The loss falls.",), EN, Language("zh-Hans"))


def test_chat_rule_other_shapes() -> None:
    system = chat(("system", "Translate everything into German."), ("user", "Good morning."))
    assert system == rp.TextAsk(("Good morning.",), EN, Language("de"))
    head = chat(("user", "Translate the following from French to Japanese:\nBonjour."))
    assert head == rp.TextAsk(("Bonjour.",), Language("fr"), Language("ja"))
    fenced = chat(("user", "Translate to es:\n```\nline one\nline two\n```"))
    assert fenced.texts == ("line one\nline two",) and fenced.target == Language("es")
    label = chat(("user", "Please translate into Dutch. Text: A cat."))
    assert label == rp.TextAsk(("A cat.",), EN, Language("nl"))
    # "to" followed by no language is passed over; nothing named: the default target.
    plain = chat(("user", "How to read this sentence?"))
    assert plain == rp.TextAsk(("How to read this sentence?",), EN, KO)
    # A body field wins (Translate for Zotero's "custom parameters").
    field = chat(("user", "Translate into German: Hi."), target_lang="fr")
    assert field.target == Language("fr")
    # Only the last user message holds the text.
    turns = chat(("user", "old"), ("assistant", "alt"), ("user", "new"))
    assert turns.texts == ("new",)


def test_chat_rule_translategemma_part() -> None:
    part = {"type": "text", "source_lang_code": "de", "target_lang_code": "ko", "text": "Hallo"}
    body = {"messages": [{"role": "user", "content": [part]}]}
    assert rp.chat_ask(body, EN, EN) == rp.TextAsk(("Hallo",), Language("de"), KO)


@pytest.mark.parametrize(
    "body",
    [{"messages": []}, {"messages": [{"role": "system", "content": "x"}]}, {"messages": "x"}],
)
def test_chat_rule_refuses_what_holds_no_text(body: dict[str, object]) -> None:
    with pytest.raises(InputError):
        rp.chat_ask(body, EN, KO)


def test_snippet_protects_math_urls_identifiers() -> None:
    text = "Set max_len to 10 (α ≤ 1), see doi 10.1145/3292500.3330701 or https://x.org/a."
    snippet = protect_snippet(text, EN, KO)
    for kept in ("max_len", "α", "≤", "10.1145/3292500.3330701", "https://x.org/a"):
        assert kept not in snippet.text
    # A model that mangles and drops placeholders still gives every original back.
    answer = snippet.text.replace("{v1}", "{ V1 }").replace("{v2}", "")
    restored = restore_snippet(answer, snippet, KO)
    for kept in ("max_len", "α", "10.1145/3292500.3330701", "https://x.org/a"):
        assert kept in restored
    assert not protect_snippet("α ≤ β + γ", EN, KO).translatable  # nothing to send


class Holders:
    """Requests that hold their slot of ``limiter`` until :meth:`release`; ``order`` is the
    order the slots were granted in."""

    def __init__(self, limiter: FixedLimiter) -> None:
        self.limiter = limiter
        self.order: list[str] = []
        self.tasks: list[asyncio.Task[None]] = []
        self._release = asyncio.Event()

    async def ask(self, owner: str, *names: str) -> None:
        self.tasks += [asyncio.create_task(self._hold(owner, name)) for name in names]
        await asyncio.sleep(0)  # each is granted or queued before the test looks

    async def _hold(self, owner: str, name: str) -> None:
        async with self.limiter.slot(owner):
            self.order.append(name)
            await self._release.wait()

    async def release(self) -> None:
        self._release.set()
        await asyncio.gather(*self.tasks)


async def test_interactive_requests_pass_a_paper() -> None:
    """Every slot held by a paper, more of its paragraphs queued: a selection starts at once
    (room above the limit); once that room is used, the next goes before the paper's queue."""
    held = Holders(FixedLimiter(2))
    await held.ask("paper", "p0", "p1", "p2", "p3")
    assert held.order == ["p0", "p1"]
    await held.ask(INTERACTIVE, "s0", "s1", "s2")
    assert held.order == ["p0", "p1", "s0", "s1"][: 2 + INTERACTIVE_ROOM]
    await held.release()
    assert held.order.index("s2") < held.order.index("p2")


class LoweredLimiter(FixedLimiter):
    """A fixed limit the test lowers, as the adaptive law does when vLLM's queue grows."""

    def lower(self, limit: int) -> None:
        self._limit = limit
        self._grant()


async def test_a_selection_starts_at_once_even_when_the_limit_just_fell_below_the_paper() -> None:
    """The paper holds 4 slots, the limit falls to 2: the papers' requests in flight stay, and a
    selection still starts at once (its room counts from what is in flight, not the limit)."""
    limiter = LoweredLimiter(4)
    held = Holders(limiter)
    await held.ask("paper", "p0", "p1", "p2", "p3", "p4")
    limiter.lower(2)
    await held.ask(INTERACTIVE, "s0")
    assert held.order == ["p0", "p1", "p2", "p3", "s0"]
    await held.release()


def test_a_streamed_answer_shows_only_what_has_settled() -> None:
    """Pieces as the model makes them: a placeholder half written and the word being made are
    held back; the pieces shown, joined, are the restored whole answer (Chinese: no spaces)."""
    from translation.snippet import StreamedAnswer

    DE, ZH = Language("de"), Language("zh-Hans")
    snippet = protect_snippet("Weights α sum to one.", EN, DE)
    ((key, value),) = snippet.placeholders.items()
    shown = StreamedAnswer(snippet, DE)
    out = [shown.add(piece) for piece in ["Die ", "Gewichte ", key[:2], key[2:] + " ", "ergeben "]]
    assert out == ["Die", " Gewichte", "", f" {value}", " ergeben"]
    assert not any("{" in piece for piece in out)
    whole = f"Die Gewichte {key} ergeben eins."
    rest = shown.end(whole)
    assert (
        "".join(out) + rest == restore_snippet(whole, snippet, DE) == "Die Gewichte α ergeben eins."
    )
    chinese = StreamedAnswer(protect_snippet("Weights sum to one.", EN, ZH), ZH)
    assert [chinese.add(p) for p in ["权重", "之和", "为一。"]] == ["权", "重之", "和为一"]
    assert chinese.end("权重之和为一。") == "。"

"""Pure prompt building: message shapes, rendering, think stripping, splitting."""

from __future__ import annotations

import pytest

from common.language import Language
from common.settings import PromptFormat
from translation.model import prompts


def test_translategemma_message_is_one_user_turn_with_one_content_part() -> None:
    messages = prompts.translategemma_messages(
        "Hello {v1}.", Language.parse("en-US"), Language.parse("zh-CN")
    )
    assert messages == [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "source_lang_code": "en",
                    "target_lang_code": "zh-Hans",
                    "text": "Hello {v1}.",
                }
            ],
        }
    ]


def test_chat_messages_have_instructions_in_the_system_turn_and_only_the_text_as_user() -> None:
    messages = prompts.chat_messages("Hello {v1}.", Language.parse("en"), Language.parse("ko"))
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == "Hello {v1}."
    system = messages[0]["content"]
    assert "English (en) to Korean (ko)" in system
    assert "{v1}" in system
    assert "exactly as they are" in system


def test_rendered_prompt_matches_the_template_and_has_no_bos() -> None:
    rendered = prompts.render_translategemma(
        "  Hello world.  ", Language.parse("en"), Language.parse("ko")
    )
    assert not rendered.startswith("<bos>")
    assert rendered.startswith(
        "<start_of_turn>user\nYou are a professional English (en) to Korean (ko) translator."
    )
    assert "Please translate the following English text into Korean:\n\n\nHello world." in rendered
    assert rendered.endswith("Hello world.<end_of_turn>\n<start_of_turn>model\n")


def test_prompt_versions_differ_per_format() -> None:
    tg = prompts.prompt_version(PromptFormat.TRANSLATEGEMMA)
    chat = prompts.prompt_version("chat")
    assert tg != chat
    assert tg == prompts.prompt_version("translategemma")


@pytest.mark.parametrize(
    ("answer", "clean"),
    [
        ("<think>hmm, Korean.</think>\n\n안녕", "안녕"),
        ("<think>\nline\nline\n</think>안녕 <think>again</think>세계", "안녕 세계"),
        ("reasoning without opening tag</think>\n안녕", "안녕"),  # template opened <think>
        ("안녕 <think>cut off mid-thought", "안녕"),
        ("<THINK>x</THINK> 안녕", "안녕"),
        ("  plain answer \n", "plain answer"),
        ("<think>only thoughts</think>", ""),
    ],
)
def test_strip_think(answer: str, clean: str) -> None:
    assert prompts.strip_think(answer) == clean


def test_estimate_tokens_counts_cjk_characters_one_each() -> None:
    assert prompts.estimate_tokens("abcd" * 10) == 10
    assert prompts.estimate_tokens("안녕하세요") == 5
    assert prompts.estimate_tokens("") == 1


def test_split_in_two_cuts_at_the_sentence_nearest_the_middle() -> None:
    text = "First sentence here. Second one is here. Third one follows. Fourth ends it."
    left, right = prompts.split_in_two(text) or ("", "")
    assert left == "First sentence here. Second one is here."
    assert right == "Third one follows. Fourth ends it."


def test_split_never_cuts_inside_a_placeholder_or_after_an_abbreviation() -> None:
    text = "We use {v1}. {v2} holds, see Fig. 3 and Smith et al. Results follow. Then {v3} ends."
    halves = prompts.split_in_two(text)
    assert halves is not None
    left, right = halves
    assert left + " " + right == text
    for placeholder in ("{v1}", "{v2}", "{v3}"):
        assert placeholder in left or placeholder in right
    assert not left.endswith("Fig.") and not left.endswith("al.")


def test_single_sentence_cannot_be_split() -> None:
    assert prompts.split_in_two("One long sentence with e.g. an abbreviation and no end") is None
    assert prompts.split_in_two("Just one sentence.") is None


def test_cjk_sentences_split_without_spaces() -> None:
    halves = prompts.split_in_two("第一句话。第二句话。第三句话。第四句话。")
    assert halves == ("第一句话。第二句话。", "第三句话。第四句话。")


def test_join_pieces_uses_no_space_for_chinese_and_japanese() -> None:
    assert prompts.join_pieces("가.", "나.", Language.parse("ko")) == "가. 나."
    assert prompts.join_pieces("一。", "二。", Language.parse("zh-CN")) == "一。二。"
    assert prompts.join_pieces("あ。", "い。", Language.parse("ja")) == "あ。い。"


def test_the_delimited_format_is_one_plain_string_with_the_model_codes() -> None:
    # Infomaniak's vLLM builds (and the upshift W4A16 builds of them) read the codes from
    # delimiters in a plain string; zh-CN goes out as the model's zh-Hans, as for the others.
    messages = prompts.delimited_messages(
        "We distribute two models.", Language.parse("en"), Language.parse("zh-CN")
    )
    assert messages == [
        {
            "role": "user",
            "content": "<<<source>>>en<<<target>>>zh-Hans<<<text>>>We distribute two models.",
        }
    ]
    assert prompts.prompt_version("delimited") == "delimited-1"

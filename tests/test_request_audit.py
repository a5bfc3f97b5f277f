"""The request audit (issue 22 items 7-8): what a reader of the requests would flag."""

from __future__ import annotations

from bench.requests import requests_listing
from translation.read.request_audit import audit, flags

WHOLE = "We present a model for learning representations of scientific papers."
TAIL = "pretrained on citation graphs, and we achieve substantial improvements over baselines."


def test_a_whole_sentence_is_not_flagged() -> None:
    found = flags(WHOLE)
    assert found.prose and not found.broken and not found.ends_inside and not found.cut_words


def test_a_request_starting_in_lower_case_starts_inside_a_sentence() -> None:
    assert flags(TAIL).starts_inside and flags(TAIL).broken
    assert flags("where {v1} is the embedding of the paper and {v2} its citation set.").broken


def test_names_in_lower_case_and_placeholders_do_not_start_inside() -> None:
    assert not flags("arXiv preprints are cited here by many of the papers we read.").broken
    assert not flags("{v1} denotes the embedding of the paper in the space we learn.").broken


def test_a_word_cut_at_the_end_and_its_other_half_are_counted() -> None:
    first = "We present a model that is pretrained on a large corpus of cita-"
    second = "tions and we achieve substantial improvements over the baselines."
    assert flags(first).ends_cut and flags(first).cut_words == 1
    assert flags(second, previous=first).cut_words == 1
    result = audit([first, second])
    assert (result.prose, result.broken, result.cut_words) == (2, 2, 2)
    assert result.broken_share == 1.0


def test_a_compound_at_the_end_is_cut_but_no_fragment() -> None:
    text = "We compare our approach against the strongest of the state-"
    found = flags(text)
    assert found.ends_cut and found.cut_words == 0


def test_a_break_left_inside_a_text_is_a_word_cut_in_two() -> None:
    assert flags("avoided by using the deep se- mantic information of the graph.").cut_words == 1
    assert flags("both pre- and post-processing steps of the pipeline are shown.").cut_words == 0


def test_short_requests_are_not_prose() -> None:
    result = audit(["results and discussion", "table cell text", WHOLE])
    assert (result.requests, result.prose, result.broken) == (3, 1, 0)


def test_long_hangul_runs_are_words_run_together() -> None:
    result = audit(
        ["패키지를이용하여문서를빠르게검토 할 수 있다", "패키지를 이용하여 문서를 빠르게 검토"]
    )
    assert (result.hangul_runs, result.long_hangul_runs) == (9, 1)
    assert result.long_hangul_share == 1 / 9


def test_the_listing_has_one_request_a_line_with_its_flags() -> None:
    listing = requests_listing(
        [("p0-b1", WHOLE), ("p0-b2", "a short\nheading"), ("p1-b1", TAIL)], "en"
    )
    lines = listing.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("p0-b1") and "<" not in lines[0][:16]
    assert lines[1].endswith("a short heading")
    assert lines[2][11:15] == "<   "


def test_style_tags_are_markup_not_words() -> None:
    tagged = flags("<b>Finding</b>: annotating clauses improves agreement between the raters.")
    assert not tagged.starts_inside
    assert flags(
        "<i>while</i> the others wait for the model to answer every request."
    ).starts_inside

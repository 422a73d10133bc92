from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.claims.sentences import split_sentences
from verification.claims.tokens import content_stems
from verification.retrieval.citations import covered_phrases
from verification.retrieval.index import SourceIndex, is_heading, retrieve
from verification.types import Source

POLICY = Source(
    id="policy",
    text=(
        "Refund policy.\nAnnual plans can be refunded in full within 30 days of purchase. "
        "Approved refunds reach the original card within 5 to 10 business days. "
        "Dr. Lee wrote this policy in Jan. 2024, e.g. for U.S. customers."
    ),
)
RETENTION = Source(id="retention", text="Data of a cancelled account is kept for 30 days, then deleted.")


def test_sentences_keep_exact_offsets_and_respect_abbreviations():
    spans = split_sentences(POLICY.text)
    sentences = [POLICY.text[start:end] for start, end in spans]
    assert sentences == [
        "Refund policy.",
        "Annual plans can be refunded in full within 30 days of purchase.",
        "Approved refunds reach the original card within 5 to 10 business days.",
        "Dr. Lee wrote this policy in Jan. 2024, e.g. for U.S. customers.",
    ]


def test_search_returns_the_supporting_sentence_first_from_the_right_source():
    index = SourceIndex([POLICY, RETENTION])
    (best, *_) = index.search("How long is data kept after cancelling?", k=3)
    assert best.source_id == "retention"
    assert best.quote == RETENTION.text


def test_every_span_is_an_exact_slice_of_its_source():
    sources = {s.id: s for s in (POLICY, RETENTION)}
    for span in retrieve("refund within 30 days to the original card", list(sources.values()), k=3):
        assert sources[span.source_id].text[span.start : span.end] == span.quote


def test_a_query_sharing_no_word_with_the_sources_finds_nothing():
    assert SourceIndex([POLICY]).search("quantum chromodynamics lattice", k=3) == []


def test_coverage_prefers_sentences_that_add_missing_parts_of_the_claim():
    source = Source(
        id="s",
        text="The X200 costs $99. The X200 costs $99 in stores. It ships with a 2-year warranty.",
    )
    quotes = [span.quote for span in SourceIndex([source]).search("The X200 costs $99 with a 2-year warranty", k=2)]
    assert "It ships with a 2-year warranty." in quotes


_SENTENCE = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1, max_size=60
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_SENTENCE, st.sampled_from([" ", "\n", "  ", ". ", "? ", ".\n"])), min_size=1, max_size=12),
       st.text(min_size=1, max_size=40))
def test_spans_always_equal_the_source_slice(pieces, query):
    text = "".join(sentence + joint for sentence, joint in pieces)
    if not text.strip():
        return
    source = Source(id="doc", text=text)
    for start, end in split_sentences(text):
        assert text[start:end] == text[start:end].strip() and start < end
    for span in SourceIndex([source]).search(query, k=3):
        assert source.text[span.start : span.end] == span.quote


def _filler(first: int) -> str:
    return " ".join(f"The band played show number {n} in a city hall that night." for n in range(first, first + 4))


def test_of_two_sentences_adding_the_same_word_the_one_next_to_the_evidence_is_chosen():
    # "Megadeth toured." is shorter, so BM25 alone ranks it above the sentence told right after the first.
    page = Source(
        id="page",
        text=(
            "Criss turned down the offer and stayed with Savatage. "
            "Dave Mustaine had wanted him as the new guitarist of Megadeth. "
            + _filler(0)
            + " Megadeth toured."
        ),
    )
    quotes = [span.quote for span in SourceIndex([page]).search(
        "Criss turned down the offer to join Megadeth and stayed with Savatage.", k=2
    )]
    assert quotes == [
        "Criss turned down the offer and stayed with Savatage.",
        "Dave Mustaine had wanted him as the new guitarist of Megadeth.",
    ]


def test_a_sentence_about_the_claim_beats_a_stray_line_sharing_one_rarer_word():
    page = Source(
        id="page",
        text=(
            "Winslet married Rocknroll in New York in December 2012. " + _filler(0)
            + " Winslet and Rocknroll married in a ceremony in New York, her spokesman said. " + _filler(10)
            + " Quiet please. " + _filler(20) + " The ceremony hall was closed."
        ),
    )
    quotes = [span.quote for span in SourceIndex([page]).search(
        "Winslet married Rocknroll in a quiet ceremony in New York in December 2012.", k=2
    )]
    assert quotes[1] == "Winslet and Rocknroll married in a ceremony in New York, her spokesman said."
    assert "Quiet please." not in quotes


def test_what_a_sentence_covers_is_written_as_the_claim_writes_it():
    claim = "The Team plan costs $20 per user per month."
    price = (claim.index("$20"), claim.index("$20") + 3)
    line = frozenset(content_stems("Team plan: $20 per user per month, billed monthly"))
    assert covered_phrases(claim, line, [price]) == ["Team plan", "$20", "user per month"]
    # A number the sentence has for something else ("10 seats") does not cover the claim's "$10".
    claim = "The Basic plan costs $10 per month."
    price = (claim.index("$10"), claim.index("$10") + 3)
    other = frozenset(content_stems("The Team plan costs $25 per month and includes up to 10 seats."))
    assert covered_phrases(claim, other, unstated=[price]) == ["plan costs", "month"]


@pytest.mark.parametrize(
    ("line", "heading"),
    [("Refund policy", True), ("Weight: 1.2 kg", False), ("Refunds take 5 days.", False)],
)
def test_a_short_first_line_without_punctuation_is_a_heading(line, heading):
    assert is_heading(line) is heading


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("refund plan day annual card seat price team 30 2024".split()), max_size=9),
             min_size=1, max_size=12),
    st.lists(st.sampled_from("refund plan day annual card seat price team 30 2024".split()), min_size=1, max_size=8),
)
def test_bm25_scores_are_bm25s_scores_to_the_bit(documents, query):
    """The index scores sentences itself; its float32 scores must be exactly bm25s's, or rankings and
    the features that read the best score would drift."""
    import bm25s
    import numpy as np

    from verification.retrieval.index import _Bm25

    class _Sentence:
        def __init__(self, stems: list[str]) -> None:
            self.stems = stems

    frequency: dict[str, int] = {}
    for stems in documents:
        for word in set(stems):
            frequency[word] = frequency.get(word, 0) + 1
    indexed = [word for word in query if word in frequency]
    if not indexed:
        return
    reference = bm25s.BM25()
    reference.index(documents, show_progress=False)
    ours = _Bm25([_Sentence(stems) for stems in documents], frequency)  # type: ignore[arg-type]
    expected, scores = reference.get_scores(indexed), ours.scores(indexed)
    assert scores.dtype == expected.dtype == np.float32
    assert scores.tobytes() == expected.tobytes()

"""Sources of hundreds of thousands of characters: sentences stay bounded, evidence stays a sentence's worth,
and reading a long text's values gives what reading it the slow way gives."""

from __future__ import annotations

import random

import pytest

from verification.claims.commitments import find_mentions
from verification.claims.commitments.spans import TakenSpans
from verification.claims.commitments.values import _RANGE_OPENER, _opens_range
from verification.claims.sentences import MAX_SENTENCE_CHARS, split_sentences
from verification.engine import check_case
from verification.retrieval.index import SourceIndex
from verification.types import Case, Source


def _run_of_words(count: int) -> str:
    """`count` words with no sentence punctuation: a scraped table, a transcript."""
    return " ".join(f"depot {number % 97} stores {number % 13 + 2} pallets of model K{number % 53}"
                    for number in range(count))


def test_a_long_run_without_punctuation_is_cut_into_pieces_at_spaces():
    text = _run_of_words(1_000)

    pieces = split_sentences(text, bounded=True)

    assert split_sentences(text) == [(0, len(text))]  # unbounded, it is one sentence
    assert len(pieces) > 1
    assert all(end - start <= MAX_SENTENCE_CHARS for start, end in pieces)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    for (_, end), (start, _) in zip(pieces, pieces[1:], strict=False):
        assert text[end:start].isspace()  # cut at a space; nothing lost between pieces
    assert all(not text[start:end][-1].isspace() for start, end in pieces)


def test_a_run_without_spaces_is_cut_at_the_limit_and_ordinary_sentences_are_untouched():
    blob = "QUJD" * 2_000  # base64, 8,000 characters
    prose = "Refunds take 14 days. The annual plan costs $240 per year."

    assert split_sentences(blob, bounded=True) == [
        (start, min(start + MAX_SENTENCE_CHARS, len(blob))) for start in range(0, len(blob), MAX_SENTENCE_CHARS)
    ]
    assert split_sentences(prose, bounded=True) == split_sentences(prose) == [(0, 21), (22, 58)]


def test_evidence_in_a_long_unpunctuated_source_is_the_piece_that_says_it():
    text = _run_of_words(4_000) + " refunds for the annual plan are paid within 14 days " + _run_of_words(4_000)
    case = Case(question="How fast are refunds?", answer="Refunds for the annual plan are paid within 14 days.",
                sources=[Source(id="transcript", text=text)])

    record = check_case(case)

    [claim] = record.candidates[0].claims
    [evidence, *_] = claim.evidence
    assert "refunds for the annual plan are paid within 14 days" in evidence.quote
    assert len(evidence.quote) <= MAX_SENTENCE_CHARS
    assert text[evidence.start : evidence.end] == evidence.quote


def test_an_index_of_the_same_sources_is_built_once_and_answers_alike():
    sources = [Source(id="a", text="Refunds take 14 days. Shipping is free."), Source(id="b", text="Plans cost $9.")]

    first, second = SourceIndex(sources), SourceIndex(list(sources))

    assert second.passages is first.passages  # the second candidate of a case reuses the first one's sentences
    assert [hit.passage.text for hit in second.rank("refund days")] == ["Refunds take 14 days."]
    assert SourceIndex([Source(id="c", text="Other text.")]).passages is not first.passages
    assert second.source_stems("b") == frozenset({"plan", "cost", "9"})


def test_taken_spans_answer_as_checking_every_span_does():
    rng = random.Random(5)
    for _ in range(300):
        taken = TakenSpans()
        spans: list[tuple[int, int]] = []
        for _ in range(rng.randint(0, 40)):
            start = rng.randint(0, 200)
            span = (start, start + rng.randint(0, 15))
            expected = any(span[0] < end and start_ < span[1] for start_, end in spans)
            assert taken(span) == expected, (spans, span)
            if rng.random() < 0.6 and span[0] < span[1]:
                spans.append(span)
                taken.add(span)


@pytest.mark.parametrize("seed", range(5))
def test_a_range_opener_is_found_as_a_search_from_the_start_finds_it(seed):
    rng = random.Random(seed)
    words = ["between", "from", "Between", "FROM", "x", "tween", "5", "and", "\n", "  ", "\t", "-from", "_from"]
    text = " ".join(rng.choice(words) for _ in range(400))
    for end in range(len(text) + 1):
        assert _opens_range(text, end) == (_RANGE_OPENER.search(text, 0, end) is not None), (text[:end][-30:],)


def test_the_values_of_a_long_line_are_read_as_in_a_short_one():
    line = "Team plan: $20 per user per month, between 5 and 10 seats, from 2018 to 2020 "
    long_text = line * 2_000  # one line of 160,000 characters, labels and ranges throughout

    mentions = find_mentions(long_text)

    first = find_mentions(line)
    assert [(m.kind, m.text, m.value, m.bounds, m.label) for m in mentions[: len(first)]] == [
        (m.kind, m.text, m.value, m.bounds, m.label) for m in first
    ]
    assert [m.text for m in mentions if m.kind == "money"] == ["$20"] * 2_000

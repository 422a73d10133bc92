"""Each shortcut the offline verifier takes for speed finds exactly what the long way finds.

Value scans try their pattern only where a match can start; cheap word tests rule a pattern out before
it is run; a glance at the first word stands in for reading a whole slice; a sentence is passed over
when it has none of the words a check looks for. A shortcut that missed one match would change a
verdict without any test of verdicts noticing on the cases at hand, so each is compared here with the
long way on texts chosen to sit on its edges. (`benchmarks/engine_golden.py` compares whole verdicts,
decisions apart from diagnostics.)
"""

from __future__ import annotations

import pytest

from verification.checks.denied import negates as _negates
from verification.claims.clauses import clause_tokens, content_keys
from verification.claims.commitments import values
from verification.claims.tokens import after_negation_stems, first_word, words
from verification.retrieval.index import SourceIndex
from verification.types import Source

TEXTS = [
    "The Team 42 plan costs $20 per user per month when billed monthly.",
    "US$ 5 million was raised; us$5 more came later, and US$  7 did not parse.",
    "Prices: £20 per month, €1,000.50 a year, ¥300, ₹45 and 12 dollars or 30 cents.",
    "Five to ten business days; Thirty days; fifteen minutes; a fortnight or 2 weeks.",
    "Version 3.1 shipped in 2018–19, then 2016-08 and 1999–00; v2.0 and A1:30 are not times.",
    "Open 9am to 5 p.m., or 12:30; the 24:00 slot does not exist.",
    "Held on May 5, 2019, 5 March 2020, March of 2021, 2021-03-04 and in the 1990s.",
    "Growth was 3.5% or ten percent, 4 per cent, 2 percentage points; 1500 employees, 230 meters.",
    "Weight: 1.2 kg\nBattery: 70 Wh, up to 18 hours\nTeam plan: $25 per user per month",
    "A lifetime warranty, unlimited seats, cancel at any time, anytime support, forever free.",
    "Within 30 days, after 30 days, at least 2, no later than the first 3 days, 40 days ago.",
    "Between 5 and 10 mg, 200 to 400 mg, 1 or 2 tablets, 2 tablets or 400 mg.",
    "Fiftyfive isn't a number word, nor is oneself; sixty-one is, and so are ninety and a dozen.",
    "Non-ASCII text: ſix days, Ｋelvin, İstanbul paid 5 € and 7 €uros; ＄5 is not a sign here.",
    "Don't, can't, won't and shan't; the U.K. and e.g. Dr. Smith said so in 2020.",
    "Plan x's seats are not x, and we never offer refunds without a receipt; nobody pays 2.",
    "Seats are not x.",
    "The warranty does not cover accidents. Accidental drops are not covered, nor is water.",
    "",
    "12",
    "$",
]


@pytest.mark.parametrize("text", TEXTS)
def test_each_value_scan_finds_what_a_full_scan_finds(text):
    counts = [match.start() for match in values._COUNTS.finditer(text)]
    for kind, pattern in values._PATTERNS:
        full = [match.span() for match in pattern.finditer(text)]
        assert [match.span() for match in values._scan(kind, pattern, text, 0, counts)] == full, kind


@pytest.mark.parametrize("text", TEXTS)
def test_a_word_test_never_rules_out_a_pattern_that_matches(text):
    for kind, pattern in values._PATTERNS:
        if kind in values._NEEDS_WORD and pattern.search(text):
            assert values._NEEDS_WORD[kind](text), kind
    if values._UNBOUNDED.search(text):
        assert values._may_say(text, values._UNBOUNDED_WORDS)


def test_the_first_word_of_a_slice_is_the_first_of_its_words():
    for text in TEXTS:
        for start in range(len(text)):
            piece = text[start : start + 40]
            read = words(piece)
            assert first_word(piece) == (read[0][0] if read else None), piece


@pytest.mark.parametrize("text", TEXTS)
def test_content_keys_are_the_keys_of_the_content_tokens(text):
    assert content_keys(text) == {token.key for token in clause_tokens(text) if token.content}


def test_the_index_finds_a_sentence_by_its_start_and_gathers_a_sources_words():
    index = SourceIndex([
        Source(id="a", text="Refunds take 5 days. Invoices are monthly."),
        Source(id="b", text="Refunds take 9 days."),
    ])
    second = index.passages[1]
    assert index.passage_at("a", second.start) is second
    assert index.passage_at("b", second.start) is None
    assert {"refund", "invoic", "5"} <= index.source_stems("a")
    assert "9" not in index.source_stems("a")
    assert "9" in index.source_stems("b")


def test_a_sentence_negates_a_word_exactly_when_the_long_way_says_so():
    index = SourceIndex([Source(id=f"s{number}", text=text) for number, text in enumerate(TEXTS) if text.strip()])
    asked = [set(after_negation_stems(passage.text)) | set(passage.stem_set) for passage in index.passages]
    asked += [{"x"}, {"refund", "x"}, {"cover"}, {"2"}]
    for passage in index.passages:
        for denied in asked:
            long_way = bool(denied & after_negation_stems(passage.text))
            assert _negates(passage, denied) == long_way, (passage.text, denied)

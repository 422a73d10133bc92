from __future__ import annotations

from verification.claims.tokens import negated_stems, stem
from verification.claims.view import read_claim
from verification.retrieval.index import SourceIndex
from verification.scorers.novelty import claim_words, unsupported_words
from verification.types import Source

PAGE = Source(
    id="page",
    text=(
        "Thomas Arnold is the publisher and editorial director of Media Play News. "
        "Media Play News covers the home entertainment industry."
    ),
)


def test_the_unsaid_words_are_the_likeliest_unsupported():
    claim = "Arnold is the publisher of Media Play News and a noted radiologist."
    index = SourceIndex([PAGE])
    probabilities = unsupported_words(read_claim(claim), index.select(claim, 3), index)
    words = [word.stem for word, _ in claim_words(read_claim(claim))]
    ranked = [word for _, word in sorted(zip(probabilities, words, strict=True), reverse=True)]
    assert set(ranked[:2]) == {stem("noted"), stem("radiologist")}
    assert max(probabilities) > 0.5 > probabilities[words.index(stem("publisher"))]


def test_claim_words_are_content_words_once_each_with_offsets():
    claim = "Media Play News covers news."
    found = claim_words(read_claim(claim))
    assert [word.stem for word, _ in found] == [stem(w) for w in ("media", "play", "news", "covers")]
    assert [claim[start:start + 3].lower() for _, start in found] == ["med", "pla", "new", "cov"]
    assert found[1][0].is_name and not found[0][0].is_name


def test_negated_stems_are_the_words_a_negation_applies_to():
    assert negated_stems("Version 4.2 does not support Python 3.12.") == {"support"}
    assert negated_stems("He was never formally identified by police.") == {stem("formally")}
    assert negated_stems("Barton burned, and it never had active mining again.") == {stem("active")}
    assert negated_stems("Sales rose.") == frozenset()

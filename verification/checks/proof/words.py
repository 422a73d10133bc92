"""How a proof reads words: the content words of a claim or a source sentence, each keyed so that both sides
compare alike, and the function words that qualify what a text commits to."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from verification.claims.commitments.value_patterns import WORD_NUMBERS
from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, denied_quality, initialism, stem, words

# Function words that change what a sentence commits to, each with the key it compares by: a claim and
# its span must have the same ones. "can" and "may" both grant a permission; "might" and "could" hedge.
_QUALIFIERS = {
    **dict.fromkeys(("can", "may", "allowed", "permitted"), "can"),
    **dict.fromkeys(("might", "could", "possibly", "perhaps", "likely"), "might"),
    **dict.fromkeys(("will", "shall", "ll"), "will"),
    **{word: word for word in (
        "would", "must", "should", "all", "every", "each", "any", "some", "only", "always", "sometimes",
        "often", "usually", "most", "many", "few", "several", "more", "less", "fewer", "least", "than",
        "both", "either", "before", "after", "above", "below", "over", "under", "until", "since",
        "between", "against", "except", "up", "down", "almost", "nearly", "about", "approximately",
        "around", "first", "last", "also", "too", "again", "still", "already", "yet",
    )},
    **dict.fromkeys((*NEGATION_WORDS, "non"), "not"),
}
_FUSED = {"cannot": ("can", "not")}
"""A modal and its negation written as one word: "cannot" qualifies as "can" and "n't" of "can't" do."""


@dataclass(frozen=True)
class Word:
    """A content word of a claim or a span, keyed to compare alike."""

    key: str
    start: int
    end: int
    """Offsets in the claim's text, or in the source's text for a word of the span."""


def content_words(read: Sequence[tuple[str, int, int]], offset: int, text: str) -> list[Word]:
    """The words of `text` that carry content, keyed so that both sides compare alike, offsets shifted by
    `offset`: "unavailable" by "available", its "un" read as the "not" it is (`tokens.denied_quality`). A
    word in capitals is a name whatever it is in lower case: "US" of "the US home" is no "us"."""
    return [
        Word(_key(denied_quality(word) or word), offset + start, offset + end)
        for at, (word, start, end) in enumerate(read)
        if (word not in STOP_WORDS and word not in _QUALIFIERS and (len(word) > 1 or word.isalpha()))
        or word[:1].isdigit() or initialism(text, start, end) or _in_a_name(read, at, text)
    ]


def _in_a_name(read: Sequence[tuple[str, int, int]], at: int, text: str) -> bool:
    """Whether a function word is written with a capital as the last word of a name: "Like" of "Jokers of the
    Like and DJ Philly". Not the first word of a text, nor one after a mark (a sentence or a quote opens
    there), nor "I"; nor one a capitalised word follows ("New" of "New Paltz", "The" of "The Guardian"), which
    may open the text on the other side, where no such word counts."""
    word, start, end = read[at]
    if at == 0 or not text[start].isupper() or word == "i" or word not in STOP_WORDS:
        return False
    if text[read[at - 1][2]:start].strip():
        return False
    return at + 1 == len(read) or not text[read[at + 1][1]].isupper() or bool(text[end:read[at + 1][1]].strip())


@lru_cache(maxsize=8192)
def sentence_words(text: str, start: int) -> tuple[Word, ...]:
    """A source sentence's content words, read once per sentence (a case's sentences are asked for every
    claim)."""
    return tuple(content_words(words(text), start, text))


def _key(word: str) -> str:
    number = WORD_NUMBERS.get(word)
    return str(number) if number is not None else stem(word)


def is_qualifier(word: str) -> bool:
    """Whether a word qualifies what a text commits to (`qualifiers`) rather than carrying content."""
    return word in _QUALIFIERS or word in _FUSED


def qualifiers(read: Sequence[tuple[str, int, int]]) -> list[str]:
    """The keys of the words that qualify what a text commits to (`_QUALIFIERS`), sorted: both sides of a
    proof must have the same ones."""
    keys = [key for word, _, _ in read for key in _FUSED.get(word, (_QUALIFIERS.get(word),)) if key]
    return sorted(keys + ["not" for word, _, _ in read if denied_quality(word)])


def keyed(found: Iterable[Word]) -> dict[str, list[Word]]:
    """Words by key, each key's in the order given: a claim word's options in a span are looked up, not
    sought among every word of the span."""
    out: dict[str, list[Word]] = {}
    for word in found:
        out.setdefault(word.key, []).append(word)
    return out

"""A name or number in a claim where its source, in the very same words around it, has another.

"Russia's invasion of Ukraine" against a source saying "the U.S.'s invasion of Ukraine" differs by
one name; coverage barely moves, and the swapped name may well appear elsewhere in the source. What
gives it away is alignment: the words just before and after the claim's name are the same in the
source, and between them the source has another name.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from verification.claims.tokens import STOP_WORDS, stem, words
from verification.claims.view import ClaimView

_MAX_NAME_WORDS = 3
"""Longest name, in words, compared as one."""


_Token = tuple[str, str, bool, int, int]
"""(lower-cased word, stem, whether it names something: capitalised or a number, start, end)."""


def swapped_name(claim_view: str | ClaimView, passage_text: str) -> tuple[str, str] | None:
    """(claim's words, source's words) when the source has another name or number in the same place."""
    if isinstance(claim_view, str):
        claim_text = claim_view
        claim, claim_runs, _ = _read(claim_text)
    else:  # the claim's words are read already
        claim_text = claim_view.text
        claim, claim_runs, _ = _parse(claim_text, claim_view.words)
    passage, passage_runs, passage_words = _read(passage_text)
    for start, end in claim_runs:
        if start == 0 or end >= len(claim):
            continue
        said = " ".join(token[0] for token in claim[start:end])
        if f" {said} " in passage_words:
            continue  # the source says it too
        left, right = claim[start - 1], claim[end]
        # Two function words around a name ("of the X in") align by chance; one side must say something.
        if left[0] in STOP_WORDS and right[0] in STOP_WORDS:
            continue
        for found_start, found_end in passage_runs:
            if found_start == 0 or found_end >= len(passage):
                continue
            if passage[found_start - 1][1] != left[1] or passage[found_end][1] != right[1]:
                continue
            found = " ".join(token[0] for token in passage[found_start:found_end])
            # "2018–19" and "2018-2019" split differently; a number that ends the other is the same. The
            # same words in another order are the same name or date: "May 3, 1896" is "3 May 1896".
            if not (found.endswith(said) or said.endswith(found)) and sorted(found.split()) != sorted(said.split()):
                return _surface(claim_text, claim, start, end), _surface(passage_text, passage, found_start, found_end)
    return None


def _surface(text: str, tokens: tuple[_Token, ...], start: int, end: int) -> str:
    """The words tokens[start:end] as the text writes them."""
    return text[tokens[start][3] : tokens[end - 1][4]]


def _name_runs(tokens: tuple[_Token, ...]) -> list[tuple[int, int]]:
    """(start, end) of each run of up to a few naming words ("Maria Alvarez", "2015"), then of each word
    of a longer run on its own, so "Tier 2" against "Tier 1" is caught as well as a whole name."""
    runs = []
    i = 0
    while i < len(tokens):
        if tokens[i][2] and tokens[i][0] not in STOP_WORDS:
            end = i + 1
            while end < len(tokens) and end - i < _MAX_NAME_WORDS and tokens[end][2]:
                end += 1
            runs.append((i, end))
            runs.extend((j, j + 1) for j in range(i, end) if end - i > 1)
            i = end
        else:
            i += 1
    return runs


# A sentence is compared with every claim it is evidence for: it is read once.
@lru_cache(maxsize=8192)
def _read(text: str) -> tuple[tuple[_Token, ...], tuple[tuple[int, int], ...], str]:
    """The tokens of `text`, its runs of naming words, and its words joined by spaces (with one at each end)."""
    return _parse(text, words(text))


def _parse(
    text: str, text_words: Sequence[tuple[str, int, int]]
) -> tuple[tuple[_Token, ...], tuple[tuple[int, int], ...], str]:
    tokens = tuple(
        (word, stem(word), text[start].isupper() or text[start].isdigit(), start, end)
        for word, start, end in text_words
    )
    return tokens, tuple(_name_runs(tokens)), f" {' '.join(token[0] for token in tokens)} "

"""What a searched word asks of a text, in scripts written with spaces between words and in those without.

Chinese and Japanese are written without spaces, so a reviewer's "西湖放晴" names two words ("西湖", "放晴")
that a text holds apart ("西湖会放晴"): no substring finds it. Within a run of those scripts each pair of
neighbouring characters (a bigram) stands for the words, and a text holds the run when it holds more than
half of its pairs. A text that holds the run as typed holds them all; for two-character words typed
together ("西湖放晴": 西湖, 湖放, 放晴) the pairs inside the words are just enough. Nothing here needs a
dictionary, a segmenter or a database extension: each pair is a substring, so PostgreSQL and SQLite
answer alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewconsole.review.scripts import UNSPACED

_UNSPACED_RUN = re.compile(f"[{UNSPACED}]+")
MAX_PAIRS = 8
"""Character pairs one search looks for at most (past them, one for each further run): each is one more
pass over the texts, and the first eight of a pasted sentence tell it from others."""


@dataclass(frozen=True)
class SearchTerm:
    """Substrings of which a text must contain at least `needed` (in any case) to hold a searched word."""

    parts: tuple[str, ...]
    needed: int


def search_terms(words: list[str]) -> list[SearchTerm]:
    """The terms a text must all meet to hold every one of `words`: a word of a script with spaces is one
    term (itself), a run of Chinese or Japanese characters one term of its character pairs, and what
    stands between such runs in a word ("30" in "30日以内") a term of its own."""
    terms: list[SearchTerm] = []
    pairs_left = MAX_PAIRS
    for word in words:
        cursor = 0
        for run in _UNSPACED_RUN.finditer(word):
            if run.start() > cursor:
                terms.append(SearchTerm((word[cursor:run.start()],), 1))
            cursor = run.end()
            pairs = tuple(dict.fromkeys(run.group()[at:at + 2] for at in range(max(1, len(run.group()) - 1))))
            pairs = pairs[:max(1, pairs_left)]
            pairs_left -= len(pairs)
            terms.append(SearchTerm(pairs, len(pairs) // 2 + 1))
        if cursor < len(word):
            terms.append(SearchTerm((word[cursor:],), 1))
    return terms

"""Words a span offers as alternatives ("Monday or Tuesday"), and when a claim may keep one of them.

"Or" under a negation or a permission reaches each alternative: "We do not sell or rent your data" says
"We do not rent your data", and "You can pay by card or transfer" says "You can pay by card". Stated
plainly it hedges: "The parcel arrives on Monday or Tuesday" does not say that it arrives on Tuesday, nor
"Refunds are sent by cheque or credited to your card" that they are credited to your card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from verification.checks.proof.order import PHRASE_MARK
from verification.claims.tokens import words
from verification.retrieval.index import Passage

ALTERNATIVE = re.compile(r",?\s+(?:or|nor)\s+", re.IGNORECASE)
"""What joins a word to its alternative."""
_OPTIONS = frozenset({"not", "can"})
"""Qualifier keys under which alternatives are each stated: a negation, a permission."""


class _Word(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


def hedged(text: str, span: Sequence[Passage], source_words: Sequence[_Word], used: set[int],
           qualifiers: Callable[[Sequence[tuple[str, int, int]]], list[str]]) -> bool:
    """Whether the claim keeps one of two alternatives the span joins by "or" and leaves the other out, in a
    clause that offers them as neither options nor denials. `used`: where the matched words of the span
    start; `qualifiers`: the proof's reading of a text's qualifiers."""
    for before, after in zip(source_words, source_words[1:], strict=False):
        if (before.start in used) == (after.start in used) or not ALTERNATIVE.fullmatch(text, before.end, after.start):
            continue
        sentence = next(passage for passage in span if passage.start <= before.start < passage.end)
        if not _OPTIONS & set(qualifiers(words(_clause(text, sentence, before.start, after.end)))):
            return True
    return False


def _clause(text: str, sentence: Passage, start: int, end: int) -> str:
    """The sentence's text around two words, from the mark before them to the mark after them: "You can
    cancel any time, and refunds are sent by cheque or ..." offers no options."""
    marks = [mark.end() for mark in PHRASE_MARK.finditer(text, sentence.start, start)]
    stop = PHRASE_MARK.search(text, end, sentence.end)
    return text[max([sentence.start, *marks]):stop.start() if stop else sentence.end]

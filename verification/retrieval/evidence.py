"""The evidence for one claim: the sentences retrieval chose, those worth comparing values with, and how
the sources speak to each value the claim commits to. Gathered once per claim; every check, the
features and the citations read it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from verification.claims.language import ENGLISH
from verification.claims.speaker import SPEAKER, said_words
from verification.claims.tokens import content_stems, spelled_out, words
from verification.claims.view import ClaimView
from verification.retrieval.index import Hit, Passage, SourceIndex
from verification.retrieval.values import ValueCheck, check_values


@dataclass(frozen=True, eq=False)
class Evidence:
    """What the case's sources hold for one claim."""

    index: SourceIndex
    """The case's sources, split into sentences and indexed once per case."""
    hits: list[Hit]
    """The sentences selected for the claim, best first."""
    candidates: list[Passage]
    """Every sentence the claim's values were compared with: the hits, their neighbours, other BM25 hits."""
    values: list[ValueCheck]
    """One check per typed value of the claim: the sentences that state it, and those that say otherwise."""
    copied: tuple[Passage, int] | None = None
    """The sentence that says the claim word for word, and the number of the word it opens at (of its words
    spelled out, `tokens.spelled_out`): a retrieved sentence that is the claim whole, or, for a claim of
    function words only (no word to retrieve by), a sentence that says it as a conjunct (`_copied_run`)."""

    @property
    def window(self) -> frozenset[str]:
        """The stems of the selected sentences."""
        return frozenset().union(*(hit.passage.stem_set for hit in self.hits))


def gather(claim: ClaimView, index: SourceIndex) -> Evidence:
    """Retrieve the evidence for a claim. Retrieval reads the claim alone, never the question: the
    question may name things the answer never commits to."""
    hits = index.select(claim.text, 3, stems=claim.stems)
    line = _same_line(claim, index) if claim.language == ENGLISH else None
    if line is not None and line not in (hit.passage for hit in hits):
        hits = [Hit(line, 0.0), *hits[:2]]
    copied = _copied(claim, index, hits) if claim.language == ENGLISH else None
    if not claim.unique_stems and copied is not None:
        return Evidence(index=index, hits=[Hit(copied[0], 0.0)], candidates=[], values=[], copied=copied)
    if not claim.unique_stems or claim.language != ENGLISH:
        # Other languages' values are compared by their own check (`checks/stated_values.py`).
        return Evidence(index=index, hits=hits, candidates=[], values=[])
    candidates = _candidates(claim, index, hits)
    values = check_values(claim, candidates, index)
    return Evidence(index=index, hits=hits, candidates=candidates, values=values, copied=copied)


def _candidates(claim: ClaimView, index: SourceIndex, hits: list[Hit]) -> list[Passage]:
    """Sentences worth comparing values with: the selected evidence, its neighbours, other BM25 hits."""
    seen: dict[int, Passage] = {}
    for hit in hits:
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in index.rank(claim.text, stems=claim.stems):
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in hits:
        for passage in index.neighbours(hit.passage):
            seen.setdefault(passage.position, passage)
    return list(seen.values())


_COPIED_MIN_WORDS = 3
"""`_copied_run`: fewer words ("It is.") say too little to be a statement of their own."""
_LENGTH_SLACK = 3
"""Characters a whole copy's length may differ by beside a tenth of the claim's: spaces and marks."""
_CONJUNCT_END = re.compile(r"\s*(?:[.!?,;:()—–]|(?:and|but|or)\b|$)", re.IGNORECASE)
_CONJUNCT_START = re.compile(r"(?:^|[,;:()—–]|\b(?:and|but|or))\s*$", re.IGNORECASE)


def _copied(claim: ClaimView, index: SourceIndex, hits: list[Hit]) -> tuple[Passage, int] | None:
    """The sentence of the case that says the claim word for word: of its hits, one that is the claim from
    end to end ("Client: No, I have not."); for a claim of function words alone ("I had to have them all."),
    which retrieval cannot find, the first sentence of the case that says it as a conjunct (`_copied_run`),
    every sentence read."""
    said = _plain(claim.words)
    if len(said) < _COPIED_MIN_WORDS or all(len(word) == 1 for word in said):
        return None
    if claim.unique_stems:
        # A whole copy is about as long as the claim (spacing and marks aside): most hits are read no further.
        return next(((hit.passage, 0) for hit in hits
                     if abs(len(hit.passage.text) - len(claim.text)) <= _LENGTH_SLACK + len(claim.text) // 10
                     and _plain(words(hit.passage.text)) == said), None)
    for passage in index.passages:
        opening = _copied_run(said, passage)
        if opening is not None:
            return passage, opening
    return None


def _same_line(claim: ClaimView, index: SourceIndex) -> Passage | None:
    """For a line said by someone that says next to nothing of its own ("Project Manager: and this one
    does ."), the first line of the case that says the same words, by whomever: retrieval finds the
    speaker's other lines by the label alone, and what the line says, and who says it, is read against
    this one (`checks.altered`)."""
    label = SPEAKER.match(claim.text)
    if label is None or len(content_stems(claim.text[label.end():])) > 1:
        return None  # (one word, "one" of "this one does", retrieves the speaker's lines no better)
    said = _plain(said_words(label, claim.text, claim.words))
    if len(said) < _COPIED_MIN_WORDS - 1:
        return None
    for passage in index.passages:
        theirs = SPEAKER.match(passage.text)
        if theirs is not None and _plain(said_words(theirs, passage.text)) == said:
            return passage
    return None


def _plain(read: Sequence[tuple[str, int, int]]) -> list[str]:
    """The words as a copy is compared by (`tokens.spelled_out`): "No, I haven't." copies "No, I have not."."""
    return [word for word, _, _ in spelled_out(read)]


def _copied_run(said: list[str], passage: Passage) -> int | None:
    """Where a sentence says the words `said`, all and in order, as a whole conjunct: the whole sentence, or
    a run of it bounded by its edges, a mark or "and", "but", "or" ("I have said it before" of "I have said
    it before and I will say it again", never "It is not" of "It is not true"). The number of the word the
    run opens at, of the sentence's words spelled out (`tokens.spelled_out`), or None."""
    read = spelled_out(words(passage.text))
    plain = [word for word, _, _ in read]
    text, n = passage.text, len(said)
    for i in range(len(read) - n + 1):
        if plain[i:i + n] != said:
            continue
        if _CONJUNCT_START.search(text, 0, read[i][1]) and _CONJUNCT_END.match(text, read[i + n - 1][2]):
            return i
    return None

"""What the grounding checks share: which sentences a claim restates, which are near or wide of its
evidence, and how a check asks every restating sentence. The claim's tokens come from its view; a source
sentence is read through `claims.clauses.clause_tokens`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypeVar

from verification.checks.grounding.finding import Finding
from verification.claims.clauses import SHORTEST_PREFIX, Token, content_keys
from verification.claims.tokens import CONTRACTED, TEXT_CACHE_SIZE
from verification.claims.view import ClaimView
from verification.retrieval.index import Hit, Passage, SourceIndex
from verification.types import State

T = TypeVar("T")

RESTATES = 0.8
"""Share of a claim's content words a sentence must say to be one the claim restates."""
MIN_RESTATED_WORDS = 2
"""A claim needs this many content words to restate a sentence: a bare name ("Panzer") restates none."""


def restated(claim: ClaimView, passages: Iterable[Passage]) -> list[Passage]:
    """The sentences the claim restates: those saying at least RESTATES of its content words (as
    `covered_keys` matches them). The checks of what else such a sentence says (a condition, a hedge,
    another doer) ask only about these."""
    claim_keys = claim.content_keys
    if len(claim_keys) < MIN_RESTATED_WORDS:
        return []
    needed = RESTATES * len(claim_keys)
    # Each key's shorter forms are made once for the claim, not again for every sentence asked.
    wanted = [(key, frozenset(key[:end] for end in range(SHORTEST_PREFIX, len(key)))) for key in claim_keys]
    return [passage for passage in passages if _keys_said(wanted, passage.text) >= needed]


def first_words(phrases: Iterable[str]) -> re.Pattern[str]:
    """A search for the first word of any of `phrases`: a cheap look for whether a text may say one.

    The words are read as `tokens.words` reads them, contractions too: "couldn't" says "could" and
    "won't" says "will", though neither is a word of its own in the text."""
    first = sorted({phrase.split()[0] for phrase in phrases})
    contracted = sorted(spelling for spelling, word in CONTRACTED.items() if word in first)
    either = "|".join(first) + "".join(f"|{spelling}(?=n['’]t)" for spelling in contracted)
    # A look at the first letter, which every word starts with, lets the search pass over most positions at once.
    letters = "".join(sorted({word[0] for word in (*first, *contracted)}))
    return re.compile(rf"(?=[{letters}])\b(?:" + either + r")(?:n['’]t)?\b", re.IGNORECASE)


def any_says(passages: Iterable[Passage], pattern: re.Pattern[str]) -> bool:
    """Whether any of the sentences has a match of `pattern`: a cheap look before a check reads them."""
    return any(says(passage.text, pattern) for passage in passages)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def says(text: str, pattern: re.Pattern[str]) -> bool:
    """Whether `text` has a match of `pattern`; kept, as the same sentences are asked for every claim."""
    return pattern.search(text) is not None


def in_every(restating: list[Passage], find: Callable[[Passage], T | None]) -> tuple[Passage, T] | None:
    """What `find` finds in the first of the sentences the claim restates, when it finds something in
    each of them; None as soon as one has nothing: that sentence says the claim without it."""
    first: tuple[Passage, T] | None = None
    for passage in restating:
        found = find(passage)
        if not found:
            return None
        first = first or (passage, found)
    return first


def unsaid_in_every(
    restating: list[Passage], find: Callable[[Passage], str | None], reason: str, rationale: Callable[[str], str]
) -> Finding | None:
    """INSUFFICIENT_EVIDENCE, citing the first sentence, when `find` finds what the claim leaves unsaid (a
    condition, a hedge) in every sentence the claim restates (`in_every`)."""
    found = in_every(restating, find)
    if found is None:
        return None
    passage, what = found
    return Finding(State.INSUFFICIENT_EVIDENCE, (passage,), reason, rationale(what), what)


def _keys_said(wanted: Sequence[tuple[str, frozenset[str]]], text: str) -> int:
    """How many of the keys a key of `text` matches (`same_key`), looked up rather than compared pairwise;
    `wanted` has each key with its prefixes at least SHORTEST_PREFIX long and shorter than itself."""
    pool, prefixes = _key_index(text)
    return sum(
        1 for key, shorter in wanted
        if key in pool or (len(key) >= SHORTEST_PREFIX and key in prefixes) or not pool.isdisjoint(shorter)
    )


@lru_cache(maxsize=16384)
def _key_index(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content keys of `text`, and every prefix of them at least SHORTEST_PREFIX long."""
    pool = content_keys(text)
    prefixes = frozenset(key[:end] for key in pool for end in range(SHORTEST_PREFIX, len(key)))
    return pool, prefixes


@lru_cache(maxsize=64)
def by_first_word(phrases: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """`phrases` grouped by their first word, so a scan asks each word only about phrases it can start."""
    grouped: dict[str, list[str]] = {}
    for phrase in phrases:
        grouped.setdefault(phrase.split()[0], []).append(phrase)
    return {word: tuple(group) for word, group in grouped.items()}


def phrase_at(tokens: Sequence[Token], i: int, phrase: str) -> bool:
    parts = phrase.split()
    if i + len(parts) > len(tokens):
        return False
    return all(tokens[i + k].word == part and tokens[i + k].clause == tokens[i].clause
               for k, part in enumerate(parts))


def near_passages(hits: list[Hit], index: SourceIndex) -> list[Passage]:
    """The cited sentences and the ones around them, in order of relevance, without repeats."""
    seen: dict[int, Passage] = {}
    for hit in hits:
        seen.setdefault(hit.passage.position, hit.passage)
    for hit in hits:
        for passage in index.neighbours(hit.passage):
            seen.setdefault(passage.position, passage)
    return list(seen.values())


def wide_passages(claim: ClaimView, near: list[Passage], index: SourceIndex) -> list[Passage]:
    """The sentences near the evidence and the other sentences ranked for the claim."""
    seen = {passage.position: passage for passage in near}
    for hit in index.rank(claim.text, stems=claim.stems):
        seen.setdefault(hit.passage.position, hit.passage)
    return list(seen.values())

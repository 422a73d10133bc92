"""Words, clauses and keys: how the grounding checks read a claim and a source sentence.

Each text is read once into tokens that carry a matching key and the number of the clause they are in
(a qualifier or a negation does not reach across a clause); claims and source sentences alike are read
through `clause_tokens`, which keeps what it has read, so a sentence cited for ten claims is read once.
The word lists here are shared by the negation and qualifier checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple, TypeVar

from verification.evidence import Hit, Passage, SourceIndex
from verification.grounding.finding import Finding
from verification.tokens import NEGATION_WORDS, STOP_WORDS, TEXT_CACHE_SIZE, stem, words
from verification.types import State

T = TypeVar("T")

NEGATORS = frozenset({"not", "n't", "never", "cannot"})
BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "am"})
CONDITIONS = frozenset({"if", "unless", "whether", "when", "whenever", "until", "ask", "asks", "asked"})
_CLAUSE_WORDS = frozenset({
    "but", "while", "whereas", "although", "though", "because", "since", "unless", "if", "when",
    "whether", "which", "who", "whom", "whose", "where",
})
"""Words that open a new clause: a qualifier or a negation does not reach across them."""
_BOUNDARY_MARKS = frozenset(",;:()[]\"“”—–!?\n")


class Token(NamedTuple):
    """One word of a text as the grounding checks read it.

    A named tuple rather than a dataclass: every word of every sentence the checks read is one, and a
    tuple is several times cheaper to make.
    """

    word: str
    key: str
    start: int
    end: int
    clause: int
    content: bool
    capitalised: bool
    """Written with a capital or a digit first: part of a name."""


@lru_cache(maxsize=16384)
def clause_tokens(text: str) -> tuple[Token, ...]:
    """The words of `text` with a matching key and the number of the clause each is in."""
    out = []
    clause, previous_end = 0, 0
    for word, start, end in words(text):
        if not _BOUNDARY_MARKS.isdisjoint(text[previous_end:start]) or word in _CLAUSE_WORDS:
            clause += 1
        previous_end = end
        capital = text[start].isupper() or word[:1].isdigit()
        out.append(Token(word, _key(word), start, end, clause, _is_content(word), capital))
    return tuple(out)


@lru_cache(maxsize=16384)
def content_keys(text: str) -> frozenset[str]:
    """The keys of the content words of `text`, as `clause_tokens` has them.

    Far cheaper than the tokens: a check looking for a word asks this first, and passes over a sentence
    that has none of the words it looks for without reading it into tokens.
    """
    return frozenset(_key(word) for word, _, _ in words(text) if _is_content(word))


def _is_content(word: str) -> bool:
    return (word not in STOP_WORDS and word not in NEGATION_WORDS and len(word) > 1) or word[:1].isdigit()


# Asked for every word of every text the grounding checks read; a word's key never changes.
@lru_cache(maxsize=65536)
def _key(word: str) -> str:
    """A stem that also maps "covers" and "covered" together (the shared stemmer splits them)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "'s")):
        word = word[:-3] + "y" if word.endswith("ies") else word[:-1]
    return stem(word)


def same_key(a: str, b: str) -> bool:
    """Whether two keys name the same thing: equal, or one a longer form ("accident", "accidental")."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= _SHORTEST_PREFIX and long_.startswith(short)


def covered_keys(keys: Iterable[str], pool: Iterable[str]) -> list[str]:
    """The keys among `keys` that some key of `pool` matches."""
    pool = list(pool)
    return [key for key in keys if any(same_key(key, other) for other in pool)]


RESTATES = 0.8
"""Share of a claim's content words a sentence must say to be one the claim restates."""
MIN_RESTATED_WORDS = 2
"""A claim needs this many content words to restate a sentence: a bare name ("Panzer") restates none."""


def restated(claim_text: str, passages: Iterable[Passage]) -> list[Passage]:
    """The sentences the claim restates: those saying at least RESTATES of its content words (as
    `covered_keys` matches them). The checks of what else such a sentence says (a condition, a hedge,
    another doer) ask only about these."""
    claim_keys = [token.key for token in clause_tokens(claim_text) if token.content]
    if len(claim_keys) < MIN_RESTATED_WORDS:
        return []
    needed = RESTATES * len(claim_keys)
    return [passage for passage in passages if _keys_said(claim_keys, passage.text) >= needed]


def first_words(phrases: Iterable[str]) -> re.Pattern[str]:
    """A search for the first word of any of `phrases`: a cheap look for whether a text may say one."""
    return re.compile(r"\b(?:" + "|".join(sorted({phrase.split()[0] for phrase in phrases})) + r")\b", re.IGNORECASE)


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


def _keys_said(keys: Sequence[str], text: str) -> int:
    """How many of `keys` a key of `text` matches (`same_key`), looked up rather than compared pairwise."""
    pool, prefixes = _key_index(text)
    said = 0
    for key in keys:
        if key in pool or (len(key) >= _SHORTEST_PREFIX and key in prefixes) or any(
            key[:end] in pool for end in range(_SHORTEST_PREFIX, len(key))
        ):
            said += 1
    return said


_SHORTEST_PREFIX = 5
"""`same_key`: a key this long or longer also matches the longer forms it starts ("accident", "accidental")."""


@lru_cache(maxsize=16384)
def _key_index(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The content keys of `text`, and every prefix of them at least _SHORTEST_PREFIX long."""
    pool = content_keys(text)
    prefixes = frozenset(key[:end] for key in pool for end in range(_SHORTEST_PREFIX, len(key)))
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


def wide_passages(claim_text: str, near: list[Passage], index: SourceIndex) -> list[Passage]:
    """The sentences near the evidence and the other sentences ranked for the claim."""
    seen = {passage.position: passage for passage in near}
    for hit in index.rank(claim_text):
        seen.setdefault(hit.passage.position, hit.passage)
    return list(seen.values())

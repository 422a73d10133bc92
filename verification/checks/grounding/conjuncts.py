"""Both sides of "both A and B": "Both Ana Lima and Rui Costa were elected" commits to each of them."""

from __future__ import annotations

from verification.checks.grounding.finding import Finding
from verification.claims.clauses import Token, clause_tokens, content_keys, covered_keys
from verification.claims.tokens import stem
from verification.retrieval.index import Hit, Passage, SourceIndex
from verification.types import State

MISSES_PER_WORD = 4
"""A sentence must state the rest of a clause to be about it: one miss allowed per this many words."""


def each_conjunct(word: str, conjuncts: tuple[tuple[int, ...], ...], predicate: list[str],
                  claim: tuple[Token, ...], hits: list[Hit], index: SourceIndex) -> Finding | None:
    """"Both A and B are P" commits to each: some sentence about A says P, and some sentence about B.

    Each name is looked up across the sources with the sentence after it (the predicate is often
    there, "he was inducted"), unless that sentence is about the other name. Words of P no source
    uses are left to coverage.
    """
    predicate = [key for key in predicate if stem(key) in index.vocabulary]
    named = [[stem(claim[j].word) for j in conjunct] for conjunct in conjuncts]
    for conjunct, names in zip(conjuncts, named, strict=True):
        others = [other for other in named if other is not names]
        about = [p for p in index.passages if all(name in p.stem_set for name in names)]
        if not any(_states_of(predicate, passage, index, names, others) for passage in about):
            cited = about[:1] or [hit.passage for hit in hits[:1]]
            name = " ".join(claim[j].word for j in conjunct)
            return Finding(State.INSUFFICIENT_EVIDENCE, tuple(cited), "qualifier-unstated",
                           f"Nothing the sources say states \"{word}\": no sentence says it of \"{name}\".", word)
    return None


def _states_of(predicate: list[str], passage: Passage, index: SourceIndex, names: list[str],
               others: list[list[str]]) -> bool:
    """Whether the sentence, or it and the next, says the predicate of the name (a miss in four allowed).

    Where the sentence also names the other side ("A is Canadian. B is American." run together), only
    the words between the other's mentions around this name count.
    """
    following = [p for p in index.neighbours(passage) if p.position > passage.position
                 and not any(all(name in p.stem_set for name in other) for other in others)]
    keys = _segment(passage, names, others) + [key for p in following for key in content_keys(p.text)]
    return len(predicate) - len(covered_keys(predicate, keys)) <= len(predicate) // MISSES_PER_WORD


def _segment(passage: Passage, names: list[str], others: list[list[str]]) -> list[str]:
    tokens = clause_tokens(passage.text)
    stems = [stem(token.word) for token in tokens]
    here = next((k for k, word in enumerate(stems) if word == names[0]), 0)
    # A name joined to this one ("both Sam Witwer and Katee Sackhoff reprise ...") shares its predicate:
    # only a mention said apart from it ends this name's part of the sentence.
    other_mentions = [k for other in others for k, word in enumerate(stems) if word == other[0]
                      and not _joined(stems, min(here, k), max(here, k))]
    low = max((k + 1 for k in other_mentions if k < here), default=0)
    high = min((k for k in other_mentions if k > here), default=len(tokens))
    return [token.key for token in tokens[low:high] if token.content]


_JOINS = frozenset({"and", "or", "&"})


def _joined(stems: list[str], low: int, high: int) -> bool:
    """Whether the names at `low` and `high` are one coordination: between them only the first name's
    words and one joining word ("Sam Witwer and Katee")."""
    between = stems[low + 1:high]
    return sum(word in _JOINS for word in between) == 1 and between[-1] in _JOINS and len(between) <= 4

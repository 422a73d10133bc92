"""Conditions and exceptions: "refunds go to the original payment method" where the source adds "if you
have a receipt".

A source that states something only under a condition ("if", "unless", "as long as", "provided") or
with an exception ("except", "other than") does not state it outright. A claim that says every other
word of such a sentence, but not its condition, promises more than the source does. The condition is
unsaid, not contradicted: the claim may still be true for the reader, so a person decides.
"""

from __future__ import annotations

from verification.checks.grounding.clauses import (
    any_says,
    by_first_word,
    first_words,
    phrase_at,
    says,
    unsaid_in_every,
)
from verification.checks.grounding.finding import Finding
from verification.claims.clauses import Token, clause_tokens, covered_keys
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage

CONDITION_MARKERS = (
    "if", "unless", "only if", "only when", "as long as", "so long as", "provided", "providing",
    "on condition", "subject to", "except", "excluding", "other than", "apart from",
)
"""Words that open a condition or an exception in a source sentence."""
_MARKER_HINT = first_words(CONDITION_MARKERS)
_CONDITION_KEPT = 0.5
"""Share of a condition's content words the claim must say to have kept the condition."""


def may_apply(near: list[Passage]) -> bool:
    """Whether any sentence near the evidence has a condition or an exception at all: a cheap look first."""
    return any_says(near, _MARKER_HINT)


def check_conditions(claim_view: ClaimView, restating: list[Passage]) -> Finding | None:
    """INSUFFICIENT_EVIDENCE when every sentence the claim restates (`clauses.restated`) adds a condition
    the claim leaves out."""
    claim = claim_view.clause_tokens
    if not restating or _conditions(claim):
        return None  # the claim states a condition of its own; relations and coverage judge it
    claim_keys = [token.key for token in claim if token.content]

    def unmet(passage: Passage) -> str | None:
        if not says(passage.text, _MARKER_HINT):
            return None  # the sentence says it with no condition at all
        dropped = [
            words for words, keys in _conditions(clause_tokens(passage.text))
            if len(covered_keys(keys, claim_keys)) < _CONDITION_KEPT * len(keys)
        ]
        return dropped[0] if dropped else None

    return unsaid_in_every(restating, unmet, "condition-dropped",
                           lambda condition: f"The source says this only with \"{condition}\", which the claim "
                           "leaves out.")


def _conditions(tokens: tuple[Token, ...]) -> list[tuple[str, list[str]]]:
    """Each condition or exception in `tokens`: its words as written, and the keys of its content words.

    A condition runs from its marker to the end of the clause after it; one with no content word
    ("if so", "if any") is no condition.
    """
    found = []
    # Each word is asked only about the markers it can start, in CONDITION_MARKERS order.
    starting = by_first_word(CONDITION_MARKERS)
    i = 0
    while i < len(tokens):
        marker = next((m for m in starting.get(tokens[i].word, ()) if phrase_at(tokens, i, m)), None)
        if marker is None:
            i += 1
            continue
        start = i + len(marker.split())
        clause = tokens[start].clause if start < len(tokens) else -1
        end = start
        while end < len(tokens) and tokens[end].clause == clause:
            end += 1
        keys = [token.key for token in tokens[start:end] if token.content]
        if keys:
            found.append((" ".join(token.word for token in tokens[i:end]), keys))
        i = max(end, i + 1)
    return found

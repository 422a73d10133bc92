"""Comparisons and the order of what they compare: "the Basic plan is faster than the Pro plan" where the
source says "the Pro plan is faster than the Basic plan".

Both sentences have the same words; only the order says which is faster. A comparison is read as its
word ("faster", "more expensive") and its two sides: what comes before it in its clause, and what
comes after "than". A source sentence with the same comparison grounds the claim when its sides are
the claim's in the same order, and contradicts it when they are swapped; so does one with the opposite
comparison ("slower") and the sides in the same order. A comparison no sentence makes in words is left
to coverage: it may follow from the values the sources give.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verification.checks.grounding.finding import Finding
from verification.claims.antonyms import OPPOSITES
from verification.claims.clauses import Token, clause_tokens, covered_keys
from verification.claims.tokens import stem
from verification.claims.view import ClaimView
from verification.retrieval.index import Passage
from verification.types import State

_COMPARATIVE = re.compile(r"\b(?:(?P<degree>more|less|fewer)\s+(?P<word>[a-z]+)|(?P<er>[a-z]{3,}er))\s+than\b",
                          re.IGNORECASE)
_NOT_COMPARATIVES = frozenset({"other", "rather", "order", "either", "whether", "never", "ever", "number",
                               "member", "under", "after", "later", "sooner", "longer"})
"""Words ending in "er" before "than" that compare nothing ("other than", "no later than"), or whose
"than" is about time, which the value checks read."""
_SIDE_WORDS = 4
"""How many content words of each side are read: enough for "the Basic plan", not the whole sentence."""


@dataclass(frozen=True)
class _Comparison:
    key: str
    """The comparative's degree and stem ("more fast" for "faster", "less expens")."""
    left: tuple[str, ...]
    """Keys of what is compared (the side before)."""
    right: tuple[str, ...]
    """Keys of what it is compared with (after "than")."""
    text: str


def check_comparison(claim: ClaimView, passages: list[Passage]) -> Finding | None:
    """REFUTED when a source compares the claim's two sides the other way round."""
    for passage in passages:
        said = _compared(claim, passage.text)
        if said is True:
            return None
        if said is False:
            comparison = _comparisons(claim.text, claim.clause_tokens)[0]
            return Finding(State.REFUTED, (passage,), "comparison-reversed",
                           f"The claim says \"{comparison.text}\"; the source compares them the other way: "
                           f"\"{passage.text.strip()}\"", comparison.text)
    # No sentence makes the comparison in words: it may follow from values the sources give ("13.8 percent,
    # up from 13.1"), which coverage and the value checks weigh.
    return None


def states_comparison(claim: ClaimView, passage_text: str) -> bool:
    """Whether the sentence makes the claim's comparison, in its words or the opposite ones with the sides
    swapped ("the Enterprise plan is more expensive than the Pro plan" for "the Pro plan is cheaper")."""
    return " than " in claim.text.lower() and _compared(claim, passage_text) is True


def _compared(claim: ClaimView, passage_text: str) -> bool | None:
    """True when the sentence makes the claim's comparison, False when it makes it the other way round,
    None when it makes neither (or the claim compares nothing whose sides can be told apart)."""
    claimed = _comparisons(claim.text, claim.clause_tokens)
    if not claimed:
        return None
    comparison = claimed[0]
    left = [key for key in comparison.left if key not in comparison.right]
    right = [key for key in comparison.right if key not in comparison.left]
    if not left or not right:
        return None  # "older than its sister": the sides cannot be told apart by their words
    for found in _comparisons(passage_text):
        if found.key == comparison.key:
            same, swapped = (found.left, found.right), (found.right, found.left)
        elif _opposite(found.key, comparison.key):
            same, swapped = (found.right, found.left), (found.left, found.right)
        else:
            continue
        if _sides(left, right, *same):
            return True
        if _sides(left, right, *swapped):
            return False
    return None


def _sides(left: list[str], right: list[str], found_left: tuple[str, ...], found_right: tuple[str, ...]) -> bool:
    return covered_keys(left, found_left) == left and covered_keys(right, found_right) == right


def _opposite(a: str, b: str) -> bool:
    """"more expens" and "less expens", or "more fast" ("faster") and "more slow" ("slower")."""
    degree_a, _, word_a = a.partition(" ")
    degree_b, _, word_b = b.partition(" ")
    if word_a == word_b:
        return {degree_a, degree_b} in ({"more", "less"}, {"more", "fewer"})
    return degree_a == degree_b and word_b in OPPOSITES.get(word_a, ())


def _comparisons(text: str, tokens: tuple[Token, ...] | None = None) -> list[_Comparison]:
    """The comparisons `text` makes; `tokens` are its clause tokens where they are already read (a claim's)."""
    if " than " not in text.lower():
        return []
    tokens = clause_tokens(text) if tokens is None else tokens
    out = []
    for match in _COMPARATIVE.finditer(text):
        word = (match["word"] or match["er"]).lower()
        if match["er"] and word in _NOT_COMPARATIVES:
            continue
        # "faster" is "more fast": either form compares with "less fast" and with "slower".
        key = f"{(match['degree'] or 'more').lower()} {stem(word)}"
        at = next((i for i, t in enumerate(tokens) if t.start >= match.start()), None)
        than = next((i for i, t in enumerate(tokens) if t.start >= match.end() - 4 and t.word == "than"), None)
        if at is None or than is None:
            continue
        left = _content(tokens, range(at - 1, -1, -1), tokens[at].clause)
        right = _content(tokens, range(than + 1, len(tokens)), tokens[than].clause)
        if left and right:
            out.append(_Comparison(key, tuple(left), tuple(right), match.group(0)))
    return out


def _content(tokens: tuple[Token, ...], positions: range, clause: int) -> list[str]:
    """The keys of up to _SIDE_WORDS content words at `positions`, staying in the comparison's clause."""
    keys: list[str] = []
    for i in positions:
        if tokens[i].clause != clause or len(keys) >= _SIDE_WORDS:
            break
        if tokens[i].content:
            keys.append(tokens[i].key)
    return keys

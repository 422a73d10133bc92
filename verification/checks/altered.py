"""A claim that restates one source sentence with a name, a number or the polarity changed.

An answer that copies a sentence and swaps one name for another the source mentions elsewhere ("Valiant
consumed four titles other than Deciphering") covers every word of the claim, so word overlap and the
scorer read it as support. A word-level diff against the sentence it restates shows what changed: where
the claim follows the sentence for most of its words and, in a stretch it replaces, says a name or a
number the sentence does not say there, or adds or drops a negation, the claim is not what the sentence
says. A phrase moved ("in 2010" from the front to the back) is no change: its words are on both sides of
the diff. Values the value checks find stated in the sentence ("$20" / "20 dollars") compare as equal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.claims.commitments import VALUE_KINDS
from verification.claims.commitments.value_patterns import WORD_NUMBERS
from verification.claims.tokens import NEGATION_WORDS, STOP_WORDS, stem, words
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.types import State

_RESTATES = 0.6
"""Share of the claim's words that must follow the sentence, in order, before it counts as restating it."""
_MIN_WORDS = 3
"""A claim shorter than this is too short to tell a restatement from a chance overlap."""
_SWAP = 3
"""Most words on either side of a substitution ("Ravens" for "Falcons", "New York" for "Boston")."""
_NEGATION = "<not>"


@dataclass(frozen=True)
class _Token:
    key: str
    surface: str
    named: bool
    """A name or a number: capitalised past the first word, or a digit."""


class Altered(Check):
    """Never SUPPORTED: the claim restates a sentence but changes a name, a number or its polarity."""

    name = "altered"
    version = 2
    role = Role.RESEMBLANCE

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        return altered(claim, evidence)


def altered(claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """The change against the retrieved sentence the claim restates most closely, or None: a claim that
    restates one sentence with a change and another word for word is the other's."""
    # The claim's tokens for each set of its values a sentence states (most sentences state none): read
    # once for all the retrieved sentences, not again for each.
    claim_tokens: dict[tuple[tuple[int, int, int], ...], list[_Token]] = {}
    restated = [(diff, hit.passage) for hit in evidence.hits
                if (diff := _diff(claim, evidence, hit.passage, claim_tokens))]
    if any(diff.whole and diff.change is None for diff, _ in restated):
        return None
    changed = [(diff.matched, diff.change, passage) for diff, passage in restated if diff.change is not None]
    if not changed:
        return None
    _, (said, instead), passage = max(changed, key=lambda found: found[0])
    return CheckFinding(
        state=State.INSUFFICIENT_EVIDENCE,
        method=PREFIX + Altered.name,
        evidence=(citations.span(passage, claim, evidence, [said]),),
        confidence=0.8,
        rationale=f"The claim restates the cited sentence but says \"{said}\" where it says \"{instead}\".",
    )


@dataclass(frozen=True)
class _Diff:
    matched: int
    """How many of the claim's words follow the sentence, in order."""
    whole: bool
    """Every word of the claim follows the sentence."""
    change: tuple[str, str] | None
    """(what the claim says, what the sentence says there) for the first change that matters."""


def _diff(claim: ClaimView, evidence: Evidence, passage: Passage,
          claim_tokens: dict[tuple[tuple[int, int, int], ...], list[_Token]]) -> _Diff | None:
    """How the claim differs from a sentence it restates; None when it does not restate it. `claim_tokens`:
    the claim's tokens read so far, by the values stated."""
    stated = [
        (check.claim_value.start, check.claim_value.end, mention.start, mention.end)
        for check in evidence.values if check.claim_value.kind in VALUE_KINDS
        for found, mention in check.grounding if found is passage
    ]
    # A value stated in the sentence is one token on each side, keyed by where the claim has it.
    spans = tuple((start, end, start) for start, end, _, _ in stated)
    ours = claim_tokens.get(spans)
    if ours is None:
        ours = claim_tokens[spans] = _tokens(claim.text, claim.words, spans)
    if len(ours) < _MIN_WORDS:
        return None
    # Most retrieved sentences share too few of the claim's words to restate it: ruled out before the diff.
    stems = passage.stem_set  # the index's stems of the sentence: numbers spelled out aside, the diff's keys
    if sum(token.key in stems or token.key[:1] in "<0123456789" for token in ours) < _RESTATES * len(ours):
        return None
    theirs = _tokens(passage.text, words(passage.text), [(start, end, key) for key, _, start, end in stated]) \
        if stated else _sentence_tokens(passage.text)
    matcher = SequenceMatcher(None, [token.key for token in ours], [token.key for token in theirs], autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    matched = sum(block.size for block in blocks)
    if matched < _RESTATES * len(ours):
        return None
    # Only the stretch of the sentence the claim restates counts, and what the claim puts in place of the
    # words just before and just after it: the rest of the sentence the claim may leave out.
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size
    opcodes = [_edge(op, first, theirs) if op[3] < first else op for op in matcher.get_opcodes()
               if op[0] != "equal" and (first <= op[3] or op[4] == first)
               and (op[4] <= last or op[0] == "replace" and op[3] <= last)]
    return _Diff(matched, matched == len(ours), _first_change(ours, theirs, [op for op in opcodes if op], last))


_Opcode = tuple[str, int, int, int, int]


def _edge(op: _Opcode, first: int, theirs: list[_Token]) -> _Opcode | None:
    """An edit that ends where the restated stretch begins, cut to the sentence's words just before it:
    the name the claim opens with in place of the sentence's ("Rob Jenkins (born 1975) is" / "Peter
    Spierig (born 1975) is"), or a negation the claim drops just before its first word ("is not a
    problem" / "is a problem"). What the sentence says further back the claim may leave out."""
    kind, i1, i2, _, j2 = op
    if kind == "replace":
        return kind, i1, i2, max(op[3], j2 - _SWAP), j2
    # Nothing of the claim in its place: only a negation right before the stretch changes what it says.
    return (kind, i1, i2, j2 - 1, j2) if theirs[first - 1].key == _NEGATION else None


def _first_change(ours: list[_Token], theirs: list[_Token], opcodes: Sequence[_Opcode],
                  last: int) -> tuple[str, str] | None:
    """(what the claim says, what the sentence says there) for the first change that matters, or None."""
    added = Counter(ours[i].key for op in opcodes for i in range(op[1], op[2]))
    dropped = Counter(theirs[j].key for op in opcodes for j in range(op[3], op[4]))
    moved = added & dropped  # a phrase moved is on both sides of the diff
    everywhere = {token.key for token in theirs}
    for kind, i1, i2, j1, j2 in opcodes:
        said = [ours[i] for i in range(i1, i2) if not moved[ours[i].key]]
        instead = [theirs[j] for j in range(j1, j2) if not moved[theirs[j].key]]
        if len(said) > _SWAP or len(instead) > _SWAP:
            continue  # a longer stretch is the claim saying other things, which is the scorer's to weigh
        there = " ".join(token.surface for token in instead) or "nothing"
        if any(token.key == _NEGATION for token in said + instead) and j2 <= last:
            return (" ".join(token.surface for token in said) or "no negation", there)
        # A substitution is a name for a name or a number for a number the sentence does not say at all.
        new = {_sort(token) for token in said if token.named and token.key not in everywhere}
        if kind == "replace" and new & {_sort(token) for token in instead if token.named}:
            return " ".join(token.surface for token in said), there
    return None


def _sort(token: _Token) -> str:
    return "number" if token.key[:1].isdigit() else "name"


@lru_cache(maxsize=8192)
def _sentence_tokens(text: str) -> list[_Token]:
    """A sentence's tokens where it states none of the claim's values: read once per sentence."""
    return _tokens(text, words(text), [])


def _tokens(text: str, read: Sequence[tuple[str, int, int]], values: Sequence[tuple[int, int, int]]) -> list[_Token]:
    """The words that carry content, and negations, keyed to compare alike; each stated value (start, end,
    key) is one token."""
    tokens: list[_Token] = []
    for index, (word, start, end) in enumerate(read):
        value = next(((low, high, key) for low, high, key in values if low <= start < high), None) if values else None
        if value is not None:
            key = f"<value {value[2]}>"
            if not tokens or tokens[-1].key != key:
                tokens.append(_Token(key, text[value[0]:value[1]], False))
        elif word in NEGATION_WORDS:
            tokens.append(_Token(_NEGATION, text[start:end], False))
        elif (word not in STOP_WORDS and len(word) > 1) or word[:1].isdigit():
            number = WORD_NUMBERS.get(word)
            named = word[:1].isdigit() or (text[start].isupper() and not _opens_line(text, index, start))
            tokens.append(_Token(str(number) if number is not None else stem(word), text[start:end], named))
    return tokens


def _opens_line(text: str, index: int, start: int) -> bool:
    """Whether the word at `start` opens a line: a capital after a colon or a quote ("Ann: Darling, ...")
    opens one rather than names. The character before it is found by stepping back over spaces, not by
    copying the text before every capitalised word."""
    if index == 0:
        return True
    before = start
    while before > 0 and text[before - 1].isspace():
        before -= 1
    # Nothing but spaces before it opens the text, as the first word does.
    return before == 0 or text[before - 1] in ":;\"“(["


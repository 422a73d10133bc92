"""The cohesion pass after an omission: remove connectives left dangling, add nothing.

Cutting "This was due to inflation." out of an answer can leave "Therefore, we must cut costs." leaning
on a premise that is gone. The pass strips the leading connective of the sentence that followed a cut;
it never writes a replacement premise, because that would be a new, unverified assertion. A sentence
that opens with a bare pronoun ("It", "He", "This") whose referent may have been cut is reported, not fixed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from verification.claims.sentences import split_sentences

# Words that tie a sentence to the one before it; once that one is gone they point at nothing.
_CONNECTIVE = re.compile(
    r"^(?:therefore|thus|hence|however|consequently|as a result|because of (?:this|that)|for (?:this|that) "
    r"reason|so|also|in addition|additionally|furthermore|moreover|besides|this means(?: that)?|"
    r"that means(?: that)?|which means(?: that)?|this is why|that is why|that said|even so)\b"
    r"\s*,?\s*",
    re.IGNORECASE,
)
# Words whose referent is in the sentence before: "He", "Her album" and "This change" as much as "It".
_PRONOUN_START = re.compile(
    r"^(?:this|that|these|those|it|its|they|their|them|he|she|his|her|him)\b"
    r"(?!\s+(?:plan|policy|product|service)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CohesionResult:
    """The text after the pass and what it did."""

    text: str
    """The text with dangling connectives removed."""
    edits: tuple[str, ...]
    """One line per connective removed."""
    warnings: tuple[str, ...]
    """Sentences that open with a pronoun whose referent may have been cut."""


def strip_connective(sentence: str) -> str:
    """`sentence` without a leading connective, its first letter capitalised; unchanged when it has none."""
    match = _CONNECTIVE.match(sentence)
    if not match or match.end() >= len(sentence):
        return sentence
    rest = sentence[match.end() :]
    return rest[:1].upper() + rest[1:]


def restore_cohesion(text: str, cut_points: Sequence[int]) -> CohesionResult:
    """Strip the leading connective of each sentence that starts at or after a cut point.

    `cut_points` are offsets in `text` where material was removed; only the first sentence after each
    cut can have lost its premise.
    """
    spans = split_sentences(text)
    followers = []
    for point in sorted(set(cut_points)):
        after = next(((start, end) for start, end in spans if start >= point), None)
        if after is not None and after not in followers:
            followers.append(after)
    pieces = []
    cursor = 0
    edits = []
    warnings = []
    for start, end in followers:
        sentence = text[start:end]
        fixed = strip_connective(sentence)
        if fixed != sentence:
            edits.append(f"removed the dangling {sentence[: len(sentence) - len(fixed)].strip()!r}")
        elif opening_pronoun(sentence):
            warnings.append(f"{sentence!r} opens with a pronoun whose referent may have been omitted")
        pieces.append(text[cursor:start])
        pieces.append(fixed)
        cursor = end
    pieces.append(text[cursor:])
    return CohesionResult("".join(pieces), tuple(edits), tuple(warnings))


def opening_pronoun(sentence: str) -> str | None:
    """The pronoun a sentence opens with, whose referent is outside it ("It", "He", "This change"), lower-cased;
    None when it opens otherwise."""
    match = _PRONOUN_START.match(sentence.lstrip())
    return match.group().lower() if match else None


def claim_core(text: str) -> str:
    """A claim's words for comparing versions: no leading connective, no edge punctuation, any case.

    The cohesion pass may strip "Therefore," from a claim it did not otherwise touch; that claim is
    unchanged for every purpose that matters (its id, the protected-claim invariant).
    """
    stripped = strip_connective(text.strip())
    return " ".join(re.sub(r"^\W+|\W+$", "", stripped).split()).casefold()

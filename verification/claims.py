"""Splitting an answer into atomic, self-contained claims with exact spans."""

from __future__ import annotations

import re
from dataclasses import dataclass

from verification.commitments import VALUE_KINDS, find_mentions
from verification.sentences import split_sentences
from verification.severity import classify
from verification.tokens import content_stems
from verification.types import Commitment, Severity


@dataclass(frozen=True)
class ExtractedClaim:
    """One atomic assertion found in a candidate's text, before verification."""

    id: str
    """Stable id ("k1", "k2", ...) assigned in text order."""
    text: str
    """The claim; equals the candidate's text[start:end]."""
    start: int
    """Character offset in the candidate's text."""
    end: int
    """End offset (exclusive)."""
    commitments: tuple[Commitment, ...] = ()
    """What the claim commits to."""
    severity: Severity = Severity.MINOR
    """CRITICAL for money, dosage, legal, safety and policy promises."""
    checkable: bool = True
    """False when nothing in it can be checked against a source (opinion, advice)."""


def _phrases(*phrases: str, anchored: bool = False) -> re.Pattern[str]:
    """A case-insensitive pattern matching any of the phrases as whole words."""
    return re.compile(("^" if anchored else "") + r"\b(?:" + "|".join(phrases) + r")\b", re.IGNORECASE)


# Sentences that carry no assertion: salutations, sign-offs, offers of further help.
_NON_CLAIM = _phrases(
    "hi", "hello", "hey", "dear", "greetings", "good (?:morning|afternoon|evening)", "thanks", "thank you",
    "many thanks", "cheers", "(?:best |kind )?regards", "sincerely", "sure", "certainly", "of course",
    "absolutely", "great question", "okay", "ok", "yes", "no problem", "(?:happy|glad) to help", "i hope",
    "hope (?:this|that) helps", "(?:please )?let me know", "feel free", "(?:don't|do not) hesitate",
    "if you have any (?:other |more |further )?questions", "(?:is there )?anything else",
    anchored=True,
)
_BULLET = re.compile(r"(?:[-*•]|\d+[.)])\s+")  # used with match() at the sentence start
# "Yes, both bands are American." answers and then asserts: the assertion after the comma is a claim.
_ANSWER_WORD = re.compile(r"(?:yes|no|sure|certainly|of course|absolutely|indeed|okay|ok)\s*,\s+", re.IGNORECASE)

# Opinion and advice: a person can disagree with them, but no source can confirm them.
_OPINION = _phrases(
    "i (?:think|believe|feel|suggest)", "in my (?:opinion|view)", "(?:we|i) recommend", "i'?d recommend",
    "i would recommend", "we suggest", "you should", "you (?:might|may) want", "it'?s (?:a )?good idea",
    "it is (?:a )?good idea", "consider", "make sure", "remember to", "be sure to", "try to", "personally",
)
_IMPERATIVE = _phrases(
    "(?:please |always )?(?:always|try|consider|remember|make sure|be sure|contact|reach out|check|visit|"
    "keep|avoid|read|register|follow|use|ask|call|email|go|click|see|note|don't|do not|let|feel)",
    anchored=True,
)

# Where one sentence joins two assertions: "X costs $20 and it includes 5 seats".
_JOINT = re.compile(r"\s*(?:;|,?\s+(?:and|but|while|whereas|although|though)\s+|,\s+(?:and|but)\s+)\s*")
_SUBJECT_START = re.compile(
    r"^(?:it|they|he|she|we|you|i|this|that|these|those|there|its|their|his|her|our|your|the|a|an|each|"
    r"every|all|both|[A-Z][\w&'.-]*)\b"
)
_FINITE_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|should|does|do|did|"
    r"[a-z]{2,}(?:ed|es|s))\b"
)


def extract_claims(text: str) -> list[ExtractedClaim]:
    """Every claim of `text` in order, with exact spans; non-assertions are left out."""
    claims: list[ExtractedClaim] = []
    for sentence_start, sentence_end in split_sentences(text):
        start = sentence_start
        bullet = _BULLET.match(text, start, sentence_end)
        if bullet:
            start = bullet.end()
        answer_word = _ANSWER_WORD.match(text, start, sentence_end)
        if answer_word:
            start = answer_word.end()
        sentence = text[start:sentence_end]
        if _is_non_claim(sentence):
            continue
        for piece_start, piece_end in _split_conjoined(sentence):
            span_start, span_end = start + piece_start, start + piece_end
            claims.append(_make_claim(f"k{len(claims) + 1}", text[span_start:span_end], span_start, span_end))
    return claims


def _make_claim(claim_id: str, text: str, start: int, end: int) -> ExtractedClaim:
    mentions = find_mentions(text)
    return ExtractedClaim(
        id=claim_id,
        text=text,
        start=start,
        end=end,
        commitments=tuple(mention.to_commitment() for mention in mentions),
        severity=classify(text, mentions),
        checkable=_is_checkable(text, mentions),
    )


def _is_non_claim(sentence: str) -> bool:
    stripped = sentence.strip(" \"'“”")
    # Questions ask, and a line ending in a colon introduces what follows ("Plan details:").
    if stripped.endswith(("?", ":")) or _NON_CLAIM.match(stripped):
        return True
    # A word or two with nothing typed in it ("Great!", "Good luck.") asserts nothing.
    return len(content_stems(stripped)) < 2 and not any(ch.isdigit() for ch in stripped)


def _is_checkable(text: str, mentions: list) -> bool:
    has_typed_value = any(mention.kind in VALUE_KINDS for mention in mentions)
    if (_OPINION.search(text) or _IMPERATIVE.match(text)) and not has_typed_value:
        return False
    return bool(content_stems(text))


def _split_conjoined(sentence: str) -> list[tuple[int, int]]:
    """Sub-spans of a sentence that each assert one thing; the whole sentence when unsure."""
    pieces: list[tuple[int, int]] = []
    piece_start = 0
    for joint in _JOINT.finditer(sentence):
        left = sentence[piece_start : joint.start()]
        right = sentence[joint.end() :]
        if _is_clause(left) and _is_clause(right) and _SUBJECT_START.match(right):
            pieces.append((piece_start, joint.start()))
            piece_start = joint.end()
    pieces.append((piece_start, len(sentence)))
    return [(start, end) for start, end in pieces if end > start]


def _is_clause(text: str) -> bool:
    """Enough of a sentence to stand alone: a few words including something verb-like."""
    words = text.split()
    return len(words) >= 3 and bool(_FINITE_VERB.search(" ".join(words[1:6])))

"""Support proven by rule where word overlap doubts it: the sentences that state a claim's values,
their labels and their source's title account for every other word of the claim.
"""

from __future__ import annotations

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.checks.grounding import check as grounding_check
from verification.claims.commitments import Mention, value_words
from verification.claims.tokens import content_stems, stem, words
from verification.claims.view import ClaimView
from verification.retrieval import citations
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Passage
from verification.retrieval.values import ValueCheck
from verification.types import State

# Words that complete a value rather than add to it: the period of a rate, the "ago" of a time passed.
_VALUE_COMPLETERS = frozenset(
    stem(word) for word in
    "day days week weeks month months quarter quarters year years annum daily weekly monthly quarterly "
    "yearly annually ago since earlier old".split()
)
# A price states what it is the price of: "costs $20" says no more than "$20" on the plan's line.
_MONEY_WORDS = frozenset(stem(word) for word in "cost costs price priced charge charged pay paid fee".split())
# What a time passed is counted from ("bought 40 days ago"), as a window in a source counts it ("within
# 30 days of purchase"): any of these on one side grounds any on the other.
_ELAPSED_ANCHORS = frozenset(
    stem(word) for word in
    "buy bought purchase purchased order ordered deliver delivered delivery receive received receipt "
    "sign signed join joined start started subscribe subscribed subscription renew renewed renewal".split()
)


class GroundedSupport(Check):
    """SUPPORTED by rule where word overlap doubts it: every word of the claim is accounted for."""

    name = "grounded-support"
    version = 3
    role = Role.RULE_SUPPORT
    reasons = ("window", "label-value", "grounded")

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        return grounded_support(claim, evidence)


def grounded_support(claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
    """SUPPORTED when the sentences that state the claim's values account for every other word of it.

    Word overlap doubts "The Arden 14 weighs 1.2 kg" against the line "Weight: 1.2 kg": the name is
    only in the source's title and "weighs" is not "Weight". Here each word is looked for where it can
    soundly be: in a sentence that states one of the claim's values, in that sentence's label
    ("Weight"), in its source's title or heading (the subject), or, for a time passed ("bought 40
    days ago"), in the window that applies to it and the sentence beside it ("within 30 days of
    purchase" / "After 30 days, annual plans are not refundable"). Polarity must match too.
    """
    checks, index = evidence.values, evidence.index
    if not checks or any(not check.grounding for check in checks):
        return None
    text, claim_stems = claim.text, set(claim.unique_stems)
    elapsed = any(check.claim_value.role == "elapsed" for check in checks)
    chosen = {check.claim_value.start: _closest_pair(check, claim_stems) for check in checks}
    subject = set().union(*(index.subject_stems(passage.source_id) for passage, _ in chosen.values()))
    grounding: dict[int, Passage] = {}
    named: dict[int, list[str]] = {}  # position -> claim words a sentence grounds beyond its shared stems
    labels: dict[str, int] = {}  # label stem -> position of its line
    for check in checks:
        passage, found = chosen[check.claim_value.start]
        if check.claim_value.kind == "number" and found.kind == "number" and found.unit != check.claim_value.unit \
                and set(content_stems(check.claim_value.text)) & subject:
            continue  # the "14" of "Arden 14" is named by the title, not by a "14-inch" display
        grounding.setdefault(passage.position, passage)
        if found.label:
            labels.update({stem(word): passage.position for word, _, _ in words(found.label)})
    allowed = set(subject)
    for passage in grounding.values():
        allowed |= passage.stem_set
    beside = [other for passage in grounding.values() for other in index.neighbours(passage)] if elapsed else []
    # The value's own words are grounded with it: its number, and a unit the source's value shares
    # ("1.2 kg"); a word the parser took for a unit ("14 weighs") must be grounded like any other.
    excluded = _completing_negation(claim)
    for check in checks:
        value = check.claim_value
        stated = set().union(*(content_stems(found.text) for _, found in check.grounding))
        excluded |= {word for word in content_stems(value.text) if word[:1].isdigit() or word in stated}
        excluded |= set(content_stems(value_words(text, value))) & _VALUE_COMPLETERS
        if value.kind == "money":
            excluded |= _MONEY_WORDS
    for word in claim_stems - excluded - allowed:
        label = next((label for label in labels if _same_word(word, label)), None)
        if label is not None:
            named.setdefault(labels[label], []).append(_surface(claim, word))
            continue
        # A time passed and the window it falls in count from the same event ("bought" / "of purchase"),
        # often named in the sentence before the window's rule.
        helper = next((other for other in beside if word in other.stem_set or (
            word in _ELAPSED_ANCHORS and other.stem_set & _ELAPSED_ANCHORS)), None)
        if helper is None:
            return None
        grounding.setdefault(helper.position, helper)
        named.setdefault(helper.position, []).append(_surface(claim, word))
    grounding_passages = sorted(grounding.values(), key=lambda passage: passage.position)
    claim_negated = claim.negated_stems
    source_negated = frozenset().union(*(passage.negated_stems for passage, _ in chosen.values()))
    if claim_negated - source_negated or (source_negated - claim_negated) & claim_stems:
        return None
    # Quantifiers, qualifiers and relations are function words to the check above ("only", "all"):
    # the grounding checks must find each of them stated too.
    if grounding_check(claim, evidence.hits, index, unsaid=True) is not None:
        return None
    if elapsed:
        method = PREFIX + "window"
        passed = next(check for check in checks if check.claim_value.role == "elapsed")
        limit = chosen[passed.claim_value.start][1]
        rationale = (
            f"\"{value_words(text, passed.claim_value)}\" falls under the source's \"{limit.text}\" rule, "
            "and the cited sentences state what applies then."
        )
    elif labels:
        method = PREFIX + "label-value"
        rationale = "The source's labelled lines state the claim's values, of the subject its title names."
    else:
        method = PREFIX + "grounded"
        rationale = "Every word and value of the claim is stated by the cited sentences or their source's title."
    return CheckFinding(
        state=State.SUPPORTED,
        method=method,
        evidence=tuple(
            citations.span(passage, claim, evidence, named.get(passage.position, ())) for passage in grounding_passages
        ),
        confidence=0.8,
        rationale=rationale,
    )


def _closest_pair(check: ValueCheck, claim_stems: set[str]) -> tuple[Passage, Mention]:
    """Of the sentences stating a value, the one sharing the most of the claim's words."""
    return max(check.grounding, key=lambda pair: len(pair[0].stem_set & claim_stems))


def _surface(claim: ClaimView, word_stem: str) -> str:
    """The claim's word with this stem, as the claim writes it."""
    return next((claim.text[start:end] for word, start, end in claim.words if stem(word) == word_stem), word_stem)


def _same_word(a: str, b: str) -> bool:
    """"weigh" and "weight": one stem starts the other and the shorter has four letters or more."""
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= 4 and longer.startswith(shorter)


def _completing_negation(claim: ClaimView) -> set[str]:
    """The word that completes a negation ("longer" in "no longer"): part of the negation, not content."""
    tokens = [token for token, _, _ in claim.words]
    return {
        stem(token) for i, token in enumerate(tokens)
        if i and (tokens[i - 1], token) in (("no", "longer"), ("not", "longer"), ("never", "again"))
    }

"""Grounding what a claim commits to beyond its values: the relation or comparison, the order of its
arguments and whom it is said of, negation and its scope, quantifiers and absolute qualifiers, and the
conditions and hedges a source states them under.

Coverage asks whether the evidence has a claim's words. A claim can have them all and still say what
the evidence does not: "Tessaly acquired Corvane" where Corvane acquired Tessaly, "covers accidental
drops" where accidents "are not covered", "both plans" where "only the Enterprise plan" does. Each
check here aligns one commitment of the claim with the evidence sentences that bear on it and answers
one of three ways: stated (nothing to report), contradicted (REFUTED, whatever coverage says) or left
unsaid (INSUFFICIENT_EVIDENCE, which only matters when coverage would call the claim SUPPORTED).

One module per commitment: `relations`, `comparisons`, `directions`, `subjects`, `negation`, `qualifiers`,
`conditions`, `hedges`; `clauses` reads the texts for all of them. The word lists are module constants
on purpose: they change verdicts, so a change to any of them bumps the "grounding" stage's version in
`offline.CHECKS`, and with it the verifier's fingerprint.
"""

from __future__ import annotations

from itertools import chain

from verification.commitments import find_relations
from verification.evidence import Hit, SourceIndex
from verification.grounding import conditions, hedges, subjects
from verification.grounding.clauses import clause_tokens, near_passages, restated, wide_passages
from verification.grounding.comparisons import check_comparison
from verification.grounding.directions import check_direction
from verification.grounding.finding import Finding
from verification.grounding.negation import check_polarity
from verification.grounding.qualifiers import (
    IDIOMS,
    QUALIFIER_HINT,
    QUALIFIER_WORDS,
    QUALIFIERS,
    Qualifier,
    check_qualifier,
    find_qualifiers,
)
from verification.grounding.relations import PRONOUNS, SYMMETRIC_ACTS, check_relation
from verification.methods import Method
from verification.types import State
from verification.verifier import Verdict

__all__ = [
    "IDIOMS", "QUALIFIERS", "QUALIFIER_WORDS", "SYMMETRIC_ACTS", "Finding", "Qualifier", "check", "grounding_verdict",
]


def grounding_verdict(claim_text: str, hits: list[Hit], index: SourceIndex, probability: float,
                      threshold: float, extra: dict[str, object]) -> Verdict | None:
    """REFUTED or INSUFFICIENT_EVIDENCE when a commitment of the claim is contradicted or left unsaid.

    What is left unsaid is reported only when coverage alone would call the claim SUPPORTED.
    """
    finding = check(claim_text, hits, index, unsaid=probability >= threshold)
    if finding is None:
        return None
    refuted = finding.state is State.REFUTED
    release_score = 0.0 if refuted else min(probability, 0.5 * threshold)
    return Verdict(
        state=finding.state,
        evidence=tuple(passage.span() for passage in finding.passages),
        confidence=0.75 if refuted else round(1 - release_score, 3),
        release_score=release_score,
        method=Method(f"offline:{finding.reason}"),
        rationale=finding.rationale,
        extra={**extra, "ungrounded": finding.commitment},
    )


def check(claim_text: str, hits: list[Hit], index: SourceIndex, *, unsaid: bool = True) -> Finding | None:
    """The first commitment the evidence contradicts, else (when `unsaid`) the first it leaves unsaid."""
    near = near_passages(hits, index)
    relations = [
        relation for relation in find_relations(claim_text)
        if not {relation.parts[0], relation.parts[1]} & PRONOUNS
    ]
    uses = find_qualifiers(claim_text) if QUALIFIER_HINT.search(claim_text) else []
    compares = " than " in claim_text.lower()
    directs = "from " in claim_text.lower()
    wide = wide_passages(claim_text, near, index) if relations or uses or compares or directs else near
    # The sentences the claim restates are found only when one of the checks reading them can apply.
    restating = (
        restated(claim_text, near)
        if conditions.may_apply(near) or hedges.may_apply(near) or subjects.may_apply(claim_text)
        else []
    )
    findings = chain(
        (check_relation(relation, wide) for relation in relations),
        (check_comparison(claim_text, wide) if compares else None,),
        (check_direction(claim_text, wide) if directs else None,),
        (check_polarity(claim_text, near, index),),
        (check_qualifier(use, clause_tokens(claim_text), wide, hits, index) for use in uses),
        (conditions.check_conditions(claim_text, restating),),
        (hedges.check_hedges(claim_text, restating),),
        (subjects.check_subject(claim_text, restating),),
    )
    unstated: Finding | None = None
    for finding in findings:
        if finding is not None and finding.state is State.REFUTED:
            return finding
        unstated = unstated or finding
    return unstated if unsaid else None

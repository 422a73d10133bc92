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
on purpose: they change verdicts, so a change to any of them bumps `Grounding.version`, and with it the
verifier's fingerprint.
"""

from __future__ import annotations

from itertools import chain

from verification.checks.check import PREFIX, Check, CheckFinding, Role
from verification.checks.grounding import conditions, hedges, subjects
from verification.checks.grounding.clauses import near_passages, restated, wide_passages
from verification.checks.grounding.comparisons import check_comparison
from verification.checks.grounding.directions import check_direction
from verification.checks.grounding.finding import Finding
from verification.checks.grounding.negation import check_polarity
from verification.checks.grounding.qualifiers import (
    IDIOMS,
    QUALIFIER_HINT,
    QUALIFIER_WORDS,
    QUALIFIERS,
    Qualifier,
    check_qualifier,
    find_qualifiers,
)
from verification.checks.grounding.relations import PRONOUNS, SYMMETRIC_ACTS, check_relation
from verification.claims.view import ClaimView
from verification.retrieval.evidence import Evidence
from verification.retrieval.index import Hit, SourceIndex
from verification.types import State

__all__ = [
    "IDIOMS", "QUALIFIERS", "QUALIFIER_WORDS", "SYMMETRIC_ACTS", "Finding", "Grounding", "Qualifier", "check",
]


class Grounding(Check):
    """A commitment of the claim beyond its values that the evidence contradicts or leaves unsaid."""

    name = "grounding"
    version = 15
    role = Role.COMMITMENT
    reasons = (
        "relation-negated", "relation-unstated", "comparison-reversed", "direction-reversed", "negation-scope",
        "qualifier-restricted", "qualifier-unstated", "condition-dropped", "restriction-dropped", "scope-dropped",
        "limit-dropped",
        "unasserted", "subject-unstated",
    )

    def run(self, claim: ClaimView, evidence: Evidence) -> CheckFinding | None:
        finding = check(claim, evidence.hits, evidence.index)
        if finding is None:
            return None
        refuted = finding.state is State.REFUTED
        if not refuted and evidence.copied is not None:
            # The sentence that says the claim word for word leaves none of its qualifiers, conditions or
            # subjects unsaid ("both FUNCINPEC and the CPP began ..." is the sentence's "both").
            return None
        return CheckFinding(
            state=finding.state,
            method=PREFIX + finding.reason,
            evidence=tuple(passage.span() for passage in finding.passages),
            confidence=0.75 if refuted else 0.0,
            rationale=finding.rationale,
            extra={"ungrounded": finding.commitment},
        )


def check(claim: ClaimView, hits: list[Hit], index: SourceIndex, *, unsaid: bool = True) -> Finding | None:
    """The first commitment the evidence contradicts, else (when `unsaid`) the first it leaves unsaid."""
    claim_text = claim.text
    near = near_passages(hits, index)
    relations = [relation for relation in claim.relations if not {relation.parts[0], relation.parts[1]} & PRONOUNS]
    uses = find_qualifiers(claim) if QUALIFIER_HINT.search(claim_text) else []
    compares = " than " in claim_text.lower()
    directs = "from " in claim_text.lower()
    wide = wide_passages(claim, near, index) if relations or uses or compares or directs else near
    # The sentences the claim restates are found only when one of the checks reading them can apply.
    restating = (
        restated(claim, near)
        if conditions.may_apply(claim, near) or hedges.may_apply(near) or subjects.may_apply(claim)
        else []
    )
    findings = chain(
        (check_relation(relation, wide) for relation in relations),
        (check_comparison(claim, wide) if compares else None,),
        (check_direction(claim, wide) if directs else None,),
        (check_polarity(claim, near, index),),
        (check_qualifier(use, claim.clause_tokens, wide, hits, index) for use in uses),
        (conditions.check_conditions(claim, restating),),
        (conditions.check_restrictions(claim, restating),),
        (conditions.check_limits(claim, restating),),
        (conditions.check_scope(claim, restating),),
        (hedges.check_hedges(claim, restating),),
        (subjects.check_subject(claim, restating),),
        (subjects.check_subject_nearby(claim, near) if subjects.may_apply(claim) else None,),
        (subjects.check_names_apart(claim, index.passages) if subjects.may_apply(claim) else None,),
    )
    unstated: Finding | None = None
    for finding in findings:
        if finding is not None and finding.state is State.REFUTED:
            return finding
        unstated = unstated or finding
    return unstated if unsaid else None

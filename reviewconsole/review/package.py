"""The review package as the case page shows it: about the versions on screen.

The engine writes its package once, about its own run (the client's answer to its last candidate). A
reviewer's edit adds a version after that, and the engine's package would go on saying "c0 → c1, rule
failures none" while c2 is on screen and fails a rule. So the page builds the package from the stored
versions, and takes from the engine's only what is about the run itself: why it stopped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewconsole.intake.models import Candidate, Claim, RuleVerdict
from reviewconsole.review.diff import claim_diff
from reviewconsole.review.models import EditVerification, EditVerificationStatus
from reviewconsole.review.states import FAILING_STATES


@dataclass(frozen=True)
class ReviewPackage:
    """What failed in the current version, against the client's original, and why the run stopped."""

    original: Candidate
    current: Candidate
    target_failures: list[Claim]
    """Claims of the current version that are not supported."""
    new_failures: list[Claim]
    """Of those, the ones that did not fail (or did not exist) in the original."""
    rule_failures: list[RuleVerdict]
    """Rules the current version fails."""
    evidence_used: int
    """Distinct source spans the current version's verdicts rest on."""
    attempts: int
    """Repairs the engine tried, failed ones included."""
    budget_reason: str
    policy_reason: str
    unverified: str = ""
    """Why the current version's failures are not known yet ("" when they are)."""
    from_engine: bool = True
    """False when the engine left no package (a spot check of a case it released)."""


def review_package(
    candidates: Sequence[Candidate],
    *,
    repairs: Sequence[Any],
    engine_package: dict[str, Any] | None,
    verification: EditVerification | None,
) -> ReviewPackage | None:
    """The package for the first and the last of `candidates` (claims and rule verdicts prefetched)."""
    if not candidates:
        return None
    original, current = candidates[0], candidates[-1]
    claims = list(current.claims.all())
    failing = [claim for claim in claims if claim.state in FAILING_STATES]
    # Paired with the original's claims by what they say, as the diff pairs them: a reviewer's edit is
    # verified by a fresh run, whose claim ids mean nothing in the original.
    new_failures = [
        change.new
        for change in claim_diff(original.claims.all(), claims)
        if change.new is not None and change.new in failing
        and (change.old is None or change.old.state not in FAILING_STATES)
    ]
    spans = {(span.get("source_id"), span.get("start"), span.get("end")) for claim in claims for span in claim.evidence}
    engine_package = engine_package or {}
    return ReviewPackage(
        original=original,
        current=current,
        target_failures=failing,
        new_failures=new_failures,
        rule_failures=[verdict for verdict in current.rule_verdicts.all() if verdict.passed is False],
        evidence_used=len(spans),
        attempts=len(repairs),
        budget_reason=str(engine_package.get("budget_reason") or ""),
        policy_reason=str(engine_package.get("policy_reason") or ""),
        unverified=_unverified(verification),
        from_engine=bool(engine_package),
    )


def _unverified(verification: EditVerification | None) -> str:
    if verification is None or verification.status == EditVerificationStatus.DONE:
        return ""
    if verification.status == EditVerificationStatus.FAILED:
        return "not known: the edit could not be verified"
    return "not known yet: the edit is being verified"

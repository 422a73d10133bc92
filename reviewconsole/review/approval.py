"""The approval rule: approving an answer whose claims still fail, or that holds a claim the deciding
reviewer found wrong, needs a written override reason.

A failing claim (FAILING_STATES) that the deciding reviewer labelled SUPPORTED after reading the sources
no longer counts as failing: the reviewer has checked it and says the engine was wrong. A failing claim
not labelled at all still needs the override reason. A claim the reviewer labelled REFUTED or
NOT_IN_SOURCES needs it whatever the engine said of it (a wrongly supported claim is the reason people
check): approving it is a conflict with the reviewer's own label, named claim by claim.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from reviewconsole.intake.models import Candidate
from reviewconsole.review.labels import UNSAFE_LABELS
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind
from reviewconsole.review.states import FAILING_STATES


@dataclass(frozen=True)
class LabelConflict:
    """A claim of the answer being approved that the approving reviewer labelled unsafe."""

    claim_id: str
    """The claim's id within its run ("k1")."""
    text: str
    label: str
    """The reviewer's label: REFUTED or NOT_IN_SOURCES."""

    @property
    def said(self) -> str:
        """The conflict in words: “text” refuted."""
        words = "refuted" if self.label == ClaimLabelKind.REFUTED else "not in the sources"
        return f"“{self.text}” {words}"


@dataclass(frozen=True)
class ApprovalCheck:
    """What stands between a reviewer and approving a candidate without an override reason."""

    failing: int
    """Claims the engine found failing, whoever labelled them."""
    unlabelled_failing: int
    """Of those, claims the deciding reviewer has not labelled supported: each needs the override."""
    edit_unverified: bool = False
    """The reviewer's edit could not be verified again."""
    conflicts: tuple[LabelConflict, ...] = ()
    """Claims the deciding reviewer labelled refuted or not in the sources, in answer order."""
    not_labelled: int = 0
    """Failing claims the reviewer has not labelled at all: labelling them supported would lift the override."""

    @property
    def needs_override(self) -> bool:
        return bool(self.unlabelled_failing or self.conflicts) or self.edit_unverified

    @property
    def why(self) -> str:
        """Why an override reason is needed, as the page and the refusal say it ("" when it is not)."""
        reasons = []
        if self.conflicts:
            said = [conflict.said for conflict in self.conflicts]
            reasons.append("you labelled " + (said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]))
        count = self.not_labelled
        if count:
            reasons.append("1 claim still fails and is not labelled supported" if count == 1
                           else f"{count} claims still fail and are not labelled supported")
        if self.edit_unverified:
            reasons.append("the edit could not be verified")
        return " and ".join(reasons)


def approval_check(*, candidate: Candidate, reviewer: AbstractBaseUser, edit_unverified: bool = False) -> ApprovalCheck:
    """Count the failing claims of `candidate`, those `reviewer` has not labelled supported, and name the
    ones they labelled unsafe (two queries)."""
    labels = dict(
        ClaimLabel.objects.filter(claim__candidate=candidate, reviewer_id=reviewer.pk).values_list("claim_id", "label")
    )
    failing = unlabelled = not_labelled = 0
    conflicts = []
    claims = candidate.claims.order_by("position").values_list("pk", "claim_id", "text", "state")
    for pk, claim_id, text, state in claims:
        label = labels.get(pk)
        if state in FAILING_STATES:
            failing += 1
            unlabelled += label != ClaimLabelKind.SUPPORTED
            not_labelled += label is None
        if label in UNSAFE_LABELS:
            conflicts.append(LabelConflict(claim_id, text, label))
    return ApprovalCheck(
        failing=failing, unlabelled_failing=unlabelled, edit_unverified=edit_unverified, conflicts=tuple(conflicts),
        not_labelled=not_labelled,
    )

"""The approval rule: approving an answer whose claims still fail needs labels or a written override reason.

A failing claim (FAILING_STATES) that the deciding reviewer labelled SUPPORTED after reading the sources
no longer counts as failing: the reviewer has checked it and says the engine was wrong. A failing claim
labelled REFUTED or NOT_IN_SOURCES, or not labelled at all, still needs the override reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Exists, OuterRef

from reviewconsole.intake.models import Candidate
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind
from reviewconsole.review.states import FAILING_STATES


@dataclass(frozen=True)
class ApprovalCheck:
    """What stands between a reviewer and approving a candidate without an override reason."""

    failing: int
    """Claims the engine found failing, whoever labelled them."""
    unlabelled_failing: int
    """Of those, claims the deciding reviewer has not labelled supported: each needs the override."""
    edit_unverified: bool = False
    """The reviewer's edit could not be verified again."""

    @property
    def needs_override(self) -> bool:
        return bool(self.unlabelled_failing) or self.edit_unverified

    @property
    def why(self) -> str:
        """Why an override reason is needed, as the page and the refusal say it ("" when it is not)."""
        reasons = []
        if self.unlabelled_failing:
            count = self.unlabelled_failing
            reasons.append("1 claim still fails and is not labelled supported" if count == 1
                           else f"{count} claims still fail and are not labelled supported")
        if self.edit_unverified:
            reasons.append("the edit could not be verified")
        return " and ".join(reasons)


def approval_check(*, candidate: Candidate, reviewer: AbstractBaseUser, edit_unverified: bool = False) -> ApprovalCheck:
    """Count the failing claims of `candidate` and those `reviewer` has not labelled supported (one query)."""
    labelled_supported = ClaimLabel.objects.filter(
        claim=OuterRef("pk"), reviewer_id=reviewer.pk, label=ClaimLabelKind.SUPPORTED
    )
    states = list(
        candidate.claims.filter(state__in=FAILING_STATES)
        .annotate(supported_by_reviewer=Exists(labelled_supported))
        .values_list("supported_by_reviewer", flat=True)
    )
    return ApprovalCheck(
        failing=len(states),
        unlabelled_failing=sum(1 for supported in states if not supported),
        edit_unverified=edit_unverified,
    )

"""What the case page's decision controls offer one viewer: decide or only read, edit or not, the
double-review state they may see, and the assignment controls of a review lead.

Decided by the services' own tests (services/decisions.py, double_review.py), so the page never offers what the
service would refuse; a post made anyway is still refused there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User

from reviewconsole.review import double_review, leases
from reviewconsole.review.access import is_lead
from reviewconsole.review.models import Escalation, EscalationStatus, Review


@dataclass(frozen=True)
class DecisionPanel:
    """The decision controls as one viewer sees them."""

    decidable: bool
    """Approve and reject are offered (and edit, unless `independent`)."""
    independent: bool
    """A double-reviewed case in its independent reviews: approve and reject record a review, and no
    edit is offered (it would show the other reviewer this one's judgement)."""
    adjudicating: bool
    """A review lead looking at a case whose reviews disagree: both reviews are shown; they decide it (and
    may edit) unless they gave one of the reviews (`own_review`)."""
    lead: bool
    """The viewer is a review lead."""
    is_open: bool
    """The case waits in the queue (not in adjudication, not decided)."""
    own_review: Review | None = None
    """The viewer's own review of a double-reviewed case, the only review they see while it is open."""
    reviews: list[Review] = field(default_factory=list)
    """Both reviews, side by side: only for a lead, only once the case is in adjudication."""
    others_notes_hidden: bool = False
    """Whether the viewer sees only their own case notes: while reviews are independent, anyone else's
    (the other reviewer's, or those of someone who held the case and handed it back) would sway them."""

    @property
    def edits_offered(self) -> bool:
        return self.decidable and not self.independent

    @property
    def no_edit_reason(self) -> str:
        return double_review.NO_EDIT_WHILE_INDEPENDENT if self.independent else ""

    @property
    def adjudication_refused(self) -> str:
        """Why a lead looking at the disagreement may not settle it: they gave one of its reviews ("" else)."""
        return double_review.OWN_DISAGREEMENT if self.adjudicating and self.own_review is not None else ""

    @property
    def assignable(self) -> bool:
        """A lead may give an open case to a reviewer, or take it back."""
        return self.lead and self.is_open


def decision_panel(escalation: Escalation, viewer: User, now: datetime) -> DecisionPanel:
    lead = is_lead(viewer)
    own_review = double_review.review_by(escalation, viewer) if escalation.reviews_required > 1 else None
    if escalation.status == EscalationStatus.ADJUDICATION:
        # A lead who gave one of the two reviews sees them side by side, but another lead decides.
        return DecisionPanel(
            decidable=lead and own_review is None, independent=False, adjudicating=lead, lead=lead, is_open=False,
            own_review=own_review, reviews=double_review.reviews_of(escalation) if lead else [],
        )
    is_open = escalation.status == EscalationStatus.OPEN
    independent = double_review.is_independent(escalation)
    # Only the reviewer holding the case decides it (the service refuses anyone else), and the service
    # refuses a second review by the same person, so the page offers neither.
    decidable = is_open and leases.lease_held(escalation, viewer, now) \
        and not (independent and own_review is not None)
    return DecisionPanel(
        decidable=decidable, independent=independent, adjudicating=False, lead=lead, is_open=is_open,
        own_review=own_review,
        others_notes_hidden=independent,
    )

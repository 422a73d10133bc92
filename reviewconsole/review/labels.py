"""Claim labels: what a reviewer found when they read a claim against the case's sources.

A label is the ground truth the engine is measured against: blind spot checks of released answers give
the unsafe release rate, and labelled claims become regression fixtures and calibration data. One label
per claim and reviewer; labelling again replaces it.

A spot check is reviewed blind: until the reviewer has labelled every claim of the answer the engine
released, the case page shows none of the engine's verdicts, and the labels made meanwhile are stored
with `blind=True`. So is an answer the engine would have released that the gate held for a person (shadow
mode, an open breaker): its labels are calibration data, and the reviewer is not told what to find.

This module reads labels and says who may label; setting a label, or taking it back, is services/labels.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from reviewconsole.accounts.roles import Role, has_role
from reviewconsole.intake.models import Candidate, Claim
from reviewconsole.review import double_review
from reviewconsole.review.models import ClaimLabel, ClaimLabelKind, Escalation, EscalationStatus
from verification import Origin

# The key that sets each label on the case page, in the order the buttons show them.
LABEL_KEYS: dict[str, str] = {
    ClaimLabelKind.SUPPORTED.value: "1",
    ClaimLabelKind.REFUTED.value: "2",
    ClaimLabelKind.NOT_IN_SOURCES.value: "3",
}
# Labels that say the claim should not have gone out as written.
UNSAFE_LABELS = frozenset({ClaimLabelKind.REFUTED.value, ClaimLabelKind.NOT_IN_SOURCES.value})


def label_refusal(escalation: Escalation, viewer: User, now: datetime) -> str:
    """Why `viewer` may not label the case's claims now; "" when they may.

    An open case is labelled by whoever holds its lease; a case whose two reviews disagree, by a review
    lead deciding it (it has no lease) who gave neither review; a decided case by nobody.
    """
    if escalation.status == EscalationStatus.ADJUDICATION:
        if not has_role(viewer, Role.REVIEW_LEAD):
            return "The two reviews of this case disagree: a review lead labels and decides it."
        # Relabelling would change one side of the disagreement from the chair that settles it.
        return double_review.OWN_DISAGREEMENT if double_review.review_by(escalation, viewer) is not None else ""
    if escalation.status != EscalationStatus.OPEN:
        return "This case is no longer open for review: its claims cannot be labelled now."
    until = escalation.lease_expires_at
    if escalation.holder_id != viewer.pk or until is None or until <= now:
        return "You do not hold this case: claim it (or take the next case) before labelling."
    return ""


def may_label(escalation: Escalation, viewer: User | None, now: datetime) -> bool:
    """Whether the case page offers `viewer` the label buttons."""
    return viewer is not None and viewer.is_authenticated and not label_refusal(escalation, viewer, now)


def released_candidate(candidates: Iterable[Candidate]) -> Candidate | None:
    """The engine's last version among `candidates` (in chain order): the answer a spot check released.

    A reviewer's edit comes after it and was never released by the engine, so it is skipped.
    """
    engine = [candidate for candidate in candidates if candidate.origin != Origin.REVIEWER.value]
    return engine[-1] if engine else None


def case_labels(case_id: int) -> list[ClaimLabel]:
    """Every label of the case's claims, with who made it."""
    labels = ClaimLabel.objects.filter(case_id=case_id).select_related("reviewer")
    return list(labels.order_by("claim_id", "created_at"))


def labels_by_claim(labels: Iterable[ClaimLabel]) -> dict[int, list[ClaimLabel]]:
    by_claim: dict[int, list[ClaimLabel]] = {}
    for label in labels:
        by_claim.setdefault(label.claim_id, []).append(label)
    return by_claim


def reviewed_blind(escalation: Escalation) -> bool:
    """A spot check of a released answer, or an answer the gate held that the engine would have released:
    the reviewer labels its claims before the engine's verdicts are shown."""
    return escalation.is_spot_check or escalation.held_release


def blind_remaining(escalation: Escalation, claims: Iterable[Claim], labels: Iterable[ClaimLabel],
                    viewer: User | None) -> int:
    """How many of `claims` (those of the released answer) `viewer` has still to label before the engine's
    verdicts are shown: 0 unless the case is an open spot check. An unknown viewer has labelled nothing."""
    if not reviewed_blind(escalation) or escalation.status != EscalationStatus.OPEN:
        return 0
    labelled = {label.claim_id for label in labels if viewer is not None and label.reviewer_id == viewer.pk}
    return sum(claim.pk not in labelled for claim in claims)


def escalation_blind_remaining(escalation: Escalation, viewer: User) -> int:
    """`blind_remaining` from the database, for a view that has not loaded the case page."""
    if not reviewed_blind(escalation) or escalation.status != EscalationStatus.OPEN:
        return 0
    candidates = Candidate.objects.filter(case_id=escalation.case_id).only("pk", "origin").order_by("position")
    released = released_candidate(candidates)
    if released is None:
        return 0
    claims = list(Claim.objects.filter(candidate=released).only("pk"))
    mine = ClaimLabel.objects.filter(claim__in=claims, reviewer=viewer).only("claim_id", "reviewer_id")
    return blind_remaining(escalation, claims, mine, viewer)


@dataclass(frozen=True)
class LabelCell:
    """A claim's label as its row on the case page shows it, with the controls to change it."""

    case_id: int
    claim: Claim
    anchor: str
    mine: ClaimLabel | None
    """The viewer's own label."""
    others: list[ClaimLabel] = field(default_factory=list)
    """Other reviewers' labels: shown only once the case is no longer open, so reviews stay independent."""
    can_label: bool = False
    """The viewer may label now (`may_label`)."""
    error: str = ""
    undo_until: datetime | None = None
    """Until when the viewer may undo their last change to this label; None when there is nothing to undo."""

    @property
    def choices(self) -> list[tuple[str, str, str, bool]]:
        """(value, words, key, chosen) for each label button."""
        chosen = self.mine.label if self.mine is not None else None
        return [(kind.value, kind.label, LABEL_KEYS[kind.value], kind.value == chosen) for kind in ClaimLabelKind]


def label_cell(*, case_id: int, claim: Claim, anchor: str, labels: list[ClaimLabel], viewer: User | None,
               show_others: bool, can_label: bool, error: str = "") -> LabelCell:
    mine = next((label for label in labels if viewer is not None and label.reviewer_id == viewer.pk), None)
    others = [label for label in labels if label is not mine] if show_others else []
    undo_until = None
    if can_label and mine is not None and mine.undo_open:
        until = mine.updated_at + timedelta(seconds=settings.REVIEW_UNDO_SECONDS)
        undo_until = until if until > timezone.now() else None
    return LabelCell(case_id, claim, anchor, mine, others, can_label, error, undo_until)


def spot_check_outcome(claim_ids: Iterable[int], labels: Iterable[tuple[int, str]]) -> bool | None:
    """A spot check's verdict from its labels: True (unsafe: a claim labelled refuted or not in the
    sources), False (every claim labelled, none unsafe), None (some claim not labelled yet)."""
    wanted = set(claim_ids)
    seen: set[int] = set()
    unsafe = False
    for claim_id, label in labels:
        if claim_id in wanted:
            seen.add(claim_id)
            unsafe = unsafe or label in UNSAFE_LABELS
    if not wanted <= seen:
        return None
    return unsafe

"""The review queue: escalations waiting for a person, and the decisions people make."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from reviewconsole.intake.models import Candidate, Case


class EscalationStatus(models.TextChoices):
    OPEN = "OPEN", "Open"
    DECIDED = "DECIDED", "Decided"


class Escalation(models.Model):
    """A case in the review queue. Higher priority first, then older first, then by id (so that the
    order is total, and paging by cursor neither skips nor repeats a case)."""

    case = models.OneToOneField(Case, on_delete=models.CASCADE, related_name="escalation")
    status = models.CharField(max_length=10, choices=EscalationStatus.choices, default=EscalationStatus.OPEN)
    priority = models.PositiveIntegerField(default=0)
    reason = models.CharField(max_length=40)
    severity = models.CharField(max_length=10, help_text="Highest severity among the failing claims")
    is_spot_check = models.BooleanField(default=False, help_text="Released automatically, sampled for a check")
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="escalations"
    )
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-priority", "created_at", "id"]
        indexes = [
            # The queue: open items by priority, then age, then id. With the id, a page that starts after
            # a given case is an index range scan (review/queue.py, _seek) and needs no sort.
            models.Index(fields=["status", "-priority", "created_at", "id"], name="escalation_queue"),
            models.Index(fields=["status", "reason"], name="escalation_reason"),
            models.Index(fields=["status", "severity"], name="escalation_severity"),
            models.Index(fields=["status", "assignee"], name="escalation_assignee"),
            models.Index(fields=["status", "is_spot_check"], name="escalation_spot_check"),
        ]

    def __str__(self) -> str:
        return f"escalation of case {self.case_id}"


class DecisionKind(models.TextChoices):
    APPROVE = "APPROVE", "Approve"
    EDIT = "EDIT", "Edit"
    REJECT = "REJECT", "Reject"


class Decision(models.Model):
    """What a reviewer decided about a case, and about exactly which candidate."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="decisions")
    kind = models.CharField(max_length=10, choices=DecisionKind.choices)
    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="decisions")
    reason_code = models.CharField(max_length=40, blank=True)
    note = models.TextField(blank=True)
    override_reason = models.TextField(blank=True, help_text="Why a candidate with failing claims was approved")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["reviewer", "-created_at"], name="decision_by_reviewer")]


class CaseNote(models.Model):
    """A reviewer's note on a case, for the next person who opens it."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="review_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="case_notes")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "created_at"]


class EditVerificationStatus(models.TextChoices):
    PENDING = "PENDING", "Waiting for a worker"
    RUNNING = "RUNNING", "Being verified"
    DONE = "DONE", "Verified"
    FAILED = "FAILED", "Verification failed"


class EditVerification(models.Model):
    """The re-verification of a reviewer's edit: it cannot be approved until a worker checked it."""

    candidate = models.OneToOneField(Candidate, on_delete=models.CASCADE, related_name="edit_verification")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(
        max_length=10, choices=EditVerificationStatus.choices, default=EditVerificationStatus.PENDING
    )
    terminal = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A worker holds the verification until run_deadline; past it, the worker is known dead and the
    # sweeper runs it again, until `attempts` (claims so far) reaches the cap and it is failed instead.
    started_at = models.DateTimeField(null=True, blank=True)
    claim_token = models.UUIDField(null=True, blank=True, editable=False)
    run_deadline = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)

    @property
    def is_finished(self) -> bool:
        return self.status in (EditVerificationStatus.DONE, EditVerificationStatus.FAILED)

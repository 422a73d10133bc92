"""The review queue: escalations waiting for a person, and the decisions people make."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from reviewconsole.intake.models import Candidate, Case, Claim
from reviewconsole.work_claims import ClaimedRun, WorkKind


class EscalationStatus(models.TextChoices):
    OPEN = "OPEN", "Open"
    ADJUDICATION = "ADJUDICATION", "Reviewers disagree"
    """Double review: the two independent reviews disagree, and a review lead decides."""
    DECIDED = "DECIDED", "Decided"


class Escalation(models.Model):
    """A case in the review queue. Higher priority first, then older first, then by id (so that the
    order is total, and paging by cursor neither skips nor repeats a case)."""

    case = models.OneToOneField(Case, on_delete=models.CASCADE, related_name="escalation")
    status = models.CharField(max_length=12, choices=EscalationStatus.choices, default=EscalationStatus.OPEN)
    priority = models.PositiveIntegerField(default=0)
    reason = models.CharField(max_length=40)
    severity = models.CharField(max_length=10, help_text="Highest severity among the failing claims")
    is_spot_check = models.BooleanField(default=False, help_text="Released automatically, sampled for a check")
    held_release = models.BooleanField(
        default=False, help_text="The engine would have released it and the gate held it (shadow mode, an open "
        "breaker): reviewed blind, and never shown to the reviewer as such",
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="held_escalations",
        help_text="The reviewer working on it now, while the lease lasts",
    )
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    lease_claimed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the holder claimed the case: the start of the time a decision took",
    )
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="assigned_escalations", help_text="The reviewer a review lead gave the case to",
    )
    reviews_required = models.PositiveSmallIntegerField(
        default=1, help_text="Independent reviews before a decision: 2 when the constitution asks for double review",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    overdue_notified_at = models.DateTimeField(
        null=True, blank=True, help_text="When people were told it is past its time to decision (once per case)",
    )

    class Meta:
        ordering = ["-priority", "created_at", "id"]
        indexes = [
            # The queue: open items by priority, then age, then id. With the id, a page that starts after
            # a given case is an index range scan (review/queue.py, _seek) and needs no sort.
            models.Index(fields=["status", "-priority", "created_at", "id"], name="escalation_queue"),
            # The queue sorted by waiting time (review/queue_order.py), paged the same way.
            models.Index(fields=["status", "created_at", "id"], name="escalation_age"),
            models.Index(fields=["status", "reason"], name="escalation_reason"),
            models.Index(fields=["status", "severity"], name="escalation_severity"),
            models.Index(fields=["status", "holder"], name="escalation_holder"),
            models.Index(fields=["status", "assigned_to"], name="escalation_assigned"),
            models.Index(fields=["status", "is_spot_check"], name="escalation_spot_check"),
        ]

    def __str__(self) -> str:
        return f"escalation of case {self.case_id}"


class QueueCount(models.Model):
    """How many open escalations have this reason, severity and spot-check flag: the queue page's counts.

    Kept exactly, in the same transaction as every change that opens an escalation or moves one out of
    the open queue (review/queue_counts.py), so that the page reads a few rows instead of counting the
    queue. Each key is spread over several rows (`shard`): every change adds to one of them, picked at
    random, so concurrent changes of a busy reason seldom wait for the same row lock. The count of a key
    is the sum of its shards; a single shard may be negative (a case counted in one shard may leave from
    another).
    """

    reason = models.CharField(max_length=40)
    severity = models.CharField(max_length=10)
    is_spot_check = models.BooleanField()
    shard = models.PositiveSmallIntegerField()
    open = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reason", "severity", "is_spot_check", "shard"], name="queue_count_key"),
        ]

    def __str__(self) -> str:
        return f"{self.open} open: {self.reason}/{self.severity}{' spot check' if self.is_spot_check else ''}"


class EscalationSkip(models.Model):
    """A reviewer skipped this case: "Next case" does not serve it to them again until `until`."""

    escalation = models.ForeignKey(Escalation, on_delete=models.CASCADE, related_name="skips")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    until = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["escalation", "reviewer"], name="one_skip_per_reviewer")]


class SavedQueueFilter(models.Model):
    """A reviewer's named search and filters of the queue, to get back in one click; theirs alone."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_queue_filters")
    name = models.CharField(max_length=60)
    query = models.CharField(max_length=1000, help_text="The queue's query string, as its filters form writes it")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["owner", "name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="saved_queue_filter_name")]

    def __str__(self) -> str:
        return f"{self.name}: ?{self.query}"


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
    adjudicated = models.BooleanField(
        default=False, help_text="A review lead took it, settling two independent reviews that disagreed",
    )
    seconds_spent = models.PositiveIntegerField(
        null=True, blank=True, help_text="From the reviewer's claim of the case to this decision; none without a lease",
    )
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


class EditVerification(ClaimedRun):
    """The re-verification of a reviewer's edit: it cannot be approved until a worker checked it."""

    candidate = models.OneToOneField(Candidate, on_delete=models.CASCADE, related_name="edit_verification")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(
        max_length=10, choices=EditVerificationStatus.choices, default=EditVerificationStatus.PENDING
    )
    terminal = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # A worker claims the verification (reviewconsole/work_claims.py), named by its candidate's id, as the task
    # names it: a candidate has at most one verification.
    work_kind = WorkKind(
        doing="verifying the edit", waiting=EditVerificationStatus.PENDING, running=EditVerificationStatus.RUNNING,
        failed=EditVerificationStatus.FAILED, id_field="candidate_id",
    )

    @property
    def is_finished(self) -> bool:
        return self.status in (EditVerificationStatus.DONE, EditVerificationStatus.FAILED)


class Review(models.Model):
    """One reviewer's independent judgement of a double-reviewed case, taken before any decision.

    The second reviewer does not see the first's review; when the two agree, the decision is taken,
    when they do not, the case waits for a review lead (EscalationStatus.ADJUDICATION).
    """

    escalation = models.ForeignKey(Escalation, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reviews")
    kind = models.CharField(max_length=10, choices=DecisionKind.choices)
    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    reason_code = models.CharField(max_length=40, blank=True)
    note = models.TextField(blank=True)
    override_reason = models.TextField(blank=True)
    seconds_spent = models.PositiveIntegerField(null=True, blank=True, help_text="From the claim to this review")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["escalation", "reviewer"], name="one_review_per_reviewer"),
        ]


class ClaimLabelKind(models.TextChoices):
    """What a person found when they read a claim against the case's sources."""

    SUPPORTED = "SUPPORTED", "Supported"
    REFUTED = "REFUTED", "Refuted"
    NOT_IN_SOURCES = "NOT_IN_SOURCES", "Not in the sources"


class ClaimLabel(models.Model):
    """A reviewer's label of one claim: the ground truth spot checks and calibration are measured against."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="labels")
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="claim_labels")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="claim_labels")
    label = models.CharField(max_length=20, choices=ClaimLabelKind.choices)
    blind = models.BooleanField(
        default=False, help_text="Labelled before the engine's verdicts were shown (a blind spot check)",
    )
    # The last change can be undone for a short while (review/undo.py): what the label was before it
    # ("" when there was none, and the undo removes the label), and whether that undo is still open.
    previous_label = models.CharField(max_length=20, choices=ClaimLabelKind.choices, blank=True)
    undo_open = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["claim_id", "created_at"]
        constraints = [models.UniqueConstraint(fields=["claim", "reviewer"], name="one_label_per_reviewer")]
        indexes = [models.Index(fields=["case", "reviewer"], name="claim_label_case")]


class ClaimComment(models.Model):
    """A reviewer's comment on one claim, shown beside it to the reviewers who open the case later."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="comments")
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="claim_comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="claim_comments")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "created_at", "id"]


class ErrorTag(models.Model):
    """A reviewer's tag of a kind of error on one claim, or on a whole answer (no claim). The kinds are the
    taxonomy of the constitution version the case pinned; the label is kept as it read when tagged."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="error_tags")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="error_tags")
    claim = models.ForeignKey(Claim, null=True, blank=True, on_delete=models.CASCADE, related_name="error_tags")
    kind = models.CharField(max_length=40)
    kind_label = models.CharField(max_length=80)
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="error_tags")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "created_at", "id"]
        constraints = [
            # Tagging a kind again takes the tag away: one row per reviewer, kind and claim (or answer).
            models.UniqueConstraint(fields=["claim", "reviewer", "kind"], condition=models.Q(claim__isnull=False),
                                    name="error_tag_once_per_claim"),
            models.UniqueConstraint(fields=["candidate", "reviewer", "kind"], condition=models.Q(claim__isnull=True),
                                    name="error_tag_once_per_answer"),
        ]
        indexes = [models.Index(fields=["created_at"], name="error_tag_created")]

"""What a client submitted and everything the engine made of it: the stored candidate chain."""

from __future__ import annotations

from typing import Any

from django.db import models

from reviewconsole.work_claims import ClaimedRun, WorkKind


class Client(models.Model):
    """An application allowed to submit cases, identified by its API token."""

    name = models.CharField(max_length=100, unique=True)
    # Only a sha256 of the token is kept; the token itself is shown once, when it is made.
    token_hash = models.CharField(max_length=64, unique=True)
    token_prefix = models.CharField(max_length=12, help_text="First characters of the token, to tell tokens apart")
    webhook_url = models.URLField(max_length=500, blank=True)
    # Standard Webhooks secret ("whsec_" + base64), used to sign deliveries.
    webhook_secret = models.CharField(max_length=100, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A team admin's limits for this client (reviewconsole/intake/quotas.py); null: the setting's default, 0: none.
    requests_per_second = models.PositiveIntegerField(null=True, blank=True)
    cases_per_day = models.PositiveIntegerField(null=True, blank=True)
    body_bytes_per_day = models.PositiveBigIntegerField(null=True, blank=True)
    # Reviewers' labels of this client's cases train the scorer for its constitutions only, unless a team
    # admin lets them train models used for other clients' cases too (reviewconsole/workbench/training_set.py).
    labels_shared = models.BooleanField(
        default=False, help_text="Its cases' labels may train scorer models used for other clients' cases",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class CaseStatus(models.TextChoices):
    QUEUED = "QUEUED", "Queued"
    RUNNING = "RUNNING", "Running"
    RELEASED = "RELEASED", "Released"
    ESCALATED = "ESCALATED", "In review"
    REJECTED = "REJECTED", "Rejected"
    FAILED = "FAILED", "Failed"


class Case(ClaimedRun):
    """One submitted answer with its sources, and where its run ended."""

    client = models.ForeignKey(Client, on_delete=models.PROTECT, related_name="cases")
    external_id = models.CharField(max_length=200, null=True, blank=True)
    question = models.TextField()
    answer = models.TextField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    constitution_name = models.CharField(max_length=100, blank=True)
    constitution_version = models.CharField(max_length=100, blank=True, help_text="Pinned when the case is submitted")
    constitution_pin = models.ForeignKey(
        "policy.ConstitutionVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="cases",
        help_text="The exact constitution version pinned at submission; the case runs under it",
    )

    status = models.CharField(max_length=10, choices=CaseStatus.choices, default=CaseStatus.QUEUED)
    terminal = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=40, blank=True)
    release_held = models.CharField(
        max_length=10, blank=True, choices=[("SHADOW", "Shadow mode"), ("BREAKER", "Breaker open")],
        help_text="The engine would have released it, and the gate sent it to a person instead: why",
    )
    final_answer = models.TextField(blank=True)
    verifier = models.CharField(max_length=100, blank=True)
    run_record = models.JSONField(null=True, blank=True)

    submitted_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # A worker claims the case to run the engine on it (reviewconsole/work_claims.py: the claim's columns too).
    work_kind = WorkKind(
        doing="running the case", waiting=CaseStatus.QUEUED, running=CaseStatus.RUNNING, failed=CaseStatus.FAILED,
        waiting_since="submitted_at",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["client", "external_id"],
                condition=models.Q(external_id__isnull=False),
                name="case_external_id_unique_per_client",
            )
        ]
        indexes = [
            models.Index(fields=["status", "submitted_at"], name="case_status_submitted"),
            models.Index(fields=["status", "run_deadline"], name="case_status_deadline"),
            # A client's backlog, recounted after each of its cases finishes (fair_share.py): unfinished rows only.
            models.Index(
                fields=["client"], name="case_unfinished_by_client",
                condition=models.Q(status__in=["QUEUED", "RUNNING"]),
            ),
        ]

    def __str__(self) -> str:
        return f"case {self.pk}"

    @classmethod
    def on_work_failed(cls, work_id: Any, reason: str) -> None:
        # Imported here: the services import this module.
        from reviewconsole.intake.services import case_run_failed

        case_run_failed(case_id=work_id, error=reason)


class Source(models.Model):
    """One piece of admissible evidence, exactly as the client sent it."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveIntegerField()
    source_id = models.CharField(max_length=200)
    title = models.CharField(max_length=500, blank=True)
    uri = models.CharField(max_length=2000, blank=True)
    text = models.TextField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["case", "position"]
        constraints = [models.UniqueConstraint(fields=["case", "source_id"], name="source_id_unique_per_case")]


class ImmutableQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError(f"{self.model.__name__} rows are immutable once written")


class ImmutableModel(models.Model):
    """A row that is written once: the chain a reviewer sees must be the chain the engine produced."""

    objects = ImmutableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError(f"{type(self).__name__} rows are immutable once written")
        super().save(*args, **kwargs)


class Candidate(ImmutableModel):
    """One version of the answer in a case's chain."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="candidates")
    position = models.PositiveIntegerField()
    candidate_id = models.CharField(max_length=20, help_text="Id within the run, such as c0")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    origin = models.CharField(max_length=10)
    operation = models.CharField(max_length=40, blank=True)
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "position"]
        constraints = [
            models.UniqueConstraint(fields=["case", "candidate_id"], name="candidate_id_unique_per_case"),
            models.UniqueConstraint(fields=["case", "position"], name="candidate_position_unique_per_case"),
        ]


class Claim(ImmutableModel):
    """One claim of a candidate, with its verdict and evidence."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="claims")
    position = models.PositiveIntegerField()
    claim_id = models.CharField(max_length=20)
    text = models.TextField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    state = models.CharField(max_length=30, db_index=True)
    severity = models.CharField(max_length=10, db_index=True)
    question = models.TextField(blank=True)
    evidence = models.JSONField(default=list)
    method = models.CharField(max_length=100)
    confidence = models.FloatField()
    release_score = models.FloatField(
        null=True, blank=True, help_text="How safe the claim is to release as written (0..1); empty when unscored"
    )
    commitments = models.JSONField(default=list)
    rationale = models.TextField(blank=True)
    model_record = models.JSONField(null=True, blank=True)
    decided_by = models.CharField(
        max_length=200, blank=True,
        help_text="In a cascade, the model verifier (name and fingerprint) that decided it; empty: the run's own",
    )
    escalation = models.TextField(blank=True, help_text="In a cascade, why the claim was sent to the model")
    alignment = models.JSONField(
        default=list, blank=True,
        help_text="For a proven claim: each of its words with the evidence word that states it",
    )
    language = models.CharField(
        max_length=8, default="en",
        help_text="The language the claim is written in (ISO 639-1), as the verifier read it",
    )

    class Meta:
        ordering = ["candidate", "position"]


def decided_by_model() -> models.Q:
    """Claims a model decided: in a cascade (`decided_by` names it), or in a run that sent it every claim."""
    return models.Q(decided_by__gt="") | models.Q(method__startswith="model:")


def sent_to_model() -> models.Q:
    """Claims a model was asked about: those it decided, and those it failed on (the cascade's escalations)."""
    return models.Q(escalation__gt="") | models.Q(method__startswith="model:")


class RuleVerdict(ImmutableModel):
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="rule_verdicts")
    position = models.PositiveIntegerField()
    rule = models.CharField(max_length=100)
    passed = models.BooleanField(null=True)
    critique = models.TextField(blank=True)
    checked_by = models.CharField(max_length=100)
    blocking = models.BooleanField(default=False, help_text="The constitution rejects the answer when this rule fails")

    class Meta:
        ordering = ["candidate", "position"]


class Finding(ImmutableModel):
    """One problem the critic found in a candidate."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="findings")
    position = models.PositiveIntegerField()
    claim = models.TextField()
    problem = models.CharField(max_length=20)
    evidence = models.TextField(blank=True)

    class Meta:
        ordering = ["candidate", "position"]


class RepairAttempt(ImmutableModel):
    """One bounded repair the engine tried, kept whether it was accepted or not."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="repairs")
    position = models.PositiveIntegerField()
    from_candidate = models.CharField(max_length=20)
    to_candidate = models.CharField(max_length=20, blank=True)
    operation = models.CharField(max_length=40)
    target_claim_ids = models.JSONField(default=list)
    protected_claim_ids = models.JSONField(default=list)
    outcome = models.CharField(max_length=10)
    supported_removed = models.PositiveIntegerField(default=0)
    failure = models.TextField(blank=True)
    details = models.JSONField(default=dict, help_text="Everything else the engine recorded about the attempt")

    class Meta:
        ordering = ["case", "position"]

"""Policy as versioned data: constitutions and critic rubrics, their immutable versions, calibration runs.

A version is written once. Only its status (draft, published, superseded) and its publication time
ever change, so a case that pinned a version can always show exactly the rules it ran under.
"""

from __future__ import annotations

from typing import TypeVar

from django.conf import settings
from django.db import models

from reviewconsole.work_claims import ClaimedRun, WorkKind
from verification import Constitution


class VersionStatus(models.TextChoices):
    DRAFT = "DRAFT", "Draft"
    PUBLISHED = "PUBLISHED", "Published"
    SUPERSEDED = "SUPERSEDED", "Superseded"


# What may change on a version after it is written: its place in the publication history, never its content.
_MUTABLE_VERSION_FIELDS = frozenset({"status", "published_at"})


class VersionQuerySet(models.QuerySet):
    def update(self, **kwargs):
        if set(kwargs) - _MUTABLE_VERSION_FIELDS:
            raise TypeError(f"{self.model.__name__} content is immutable; save a new version instead")
        return super().update(**kwargs)


class DocumentVersion(models.Model):
    """One immutable version of a policy document (its parent is `document` in the concrete model)."""

    number = models.PositiveIntegerField(help_text="1, 2, 3... within the document")
    content = models.JSONField()
    sha256 = models.CharField(max_length=64, help_text="sha256 of the canonical JSON of the content")
    status = models.CharField(max_length=10, choices=VersionStatus.choices, default=VersionStatus.DRAFT)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Empty for the built-in versions the console seeded",
    )
    note = models.CharField(max_length=200, blank=True, help_text="What changed, in the author's words")
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    objects = VersionQuerySet.as_manager()

    # Each concrete version declares the document it versions as a ForeignKey named `document`.
    document: NamedConstitution | Rubric
    document_id: int

    class Meta:
        abstract = True
        ordering = ["document", "-number"]

    def save(self, *args, **kwargs):
        update_fields = kwargs.get("update_fields")
        if not self._state.adding and (update_fields is None or set(update_fields) - _MUTABLE_VERSION_FIELDS):
            raise TypeError(f"{type(self).__name__} content is immutable; save a new version instead")
        super().save(*args, **kwargs)

    @property
    def short_sha(self) -> str:
        """The first 12 hex digits: for a constitution, the engine's own version string."""
        return self.sha256[:12]

    @property
    def label(self) -> str:
        return f"{self.document.name} v{self.number}"

    def __str__(self) -> str:
        return f"{self.label} ({self.short_sha})"


def version_constraints(kind: str) -> list[models.BaseConstraint]:
    """Numbers are unique per document, and exactly one version of a document is in force: publishing
    supersedes the previous one first, so the database refuses a second published version outright."""
    return [
        models.UniqueConstraint(fields=["document", "number"], name=f"{kind}_version_number_unique"),
        models.UniqueConstraint(
            fields=["document"], condition=models.Q(status=VersionStatus.PUBLISHED), name=f"{kind}_one_published"
        ),
    ]


class NamedConstitution(models.Model):
    """A constitution a case can name; its rules live in its versions."""

    name = models.CharField(max_length=100, unique=True)
    # For reviewers, not the engine: what to check and examples, shown on the case page. Kept outside the
    # versions (a run never reads it, so it is not part of the content hash a case pins); every change is
    # an audit event holding the text (policy/guidelines.py).
    guidelines = models.TextField(blank=True)
    guidelines_updated_at = models.DateTimeField(null=True, blank=True)
    guidelines_updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ConstitutionVersion(DocumentVersion):
    """The JSON of the engine's `Constitution`, exactly as a run uses it."""

    document = models.ForeignKey(NamedConstitution, on_delete=models.PROTECT, related_name="versions")

    class Meta(DocumentVersion.Meta):
        constraints = version_constraints("constitution")

    def constitution(self) -> Constitution:
        return Constitution.model_validate(self.content)


class Rubric(models.Model):
    """A critic rubric, with the catch-rate threshold below which the nightly canary raises a banner."""

    name = models.CharField(max_length=100, unique=True)
    canary_threshold = models.FloatField(
        default=0.8, help_text="The banner shows when the latest canary's catch rate falls below this share"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class RubricVersion(DocumentVersion):
    """The JSON of a `RubricContent`: the critic's instructions and its known-bad and known-good fixtures."""

    document = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="versions")

    class Meta(DocumentVersion.Meta):
        constraints = version_constraints("rubric")


AnyVersion = TypeVar("AnyVersion", ConstitutionVersion, RubricVersion)
"""A version of either kind of policy document, for code that handles both alike (publishing, saving)."""


class CalibrationTrigger(models.TextChoices):
    MANUAL = "MANUAL", "On demand"
    CANARY = "CANARY", "Nightly canary"


class CalibrationStatus(models.TextChoices):
    QUEUED = "QUEUED", "Queued"
    RUNNING = "RUNNING", "Running"
    DONE = "DONE", "Done"
    FAILED = "FAILED", "Failed"


class CalibrationRun(ClaimedRun):
    """One run of the critic over a rubric version's fixtures, kept as history."""

    rubric_version = models.ForeignKey(RubricVersion, on_delete=models.PROTECT, related_name="calibration_runs")
    trigger = models.CharField(max_length=10, choices=CalibrationTrigger.choices, default=CalibrationTrigger.MANUAL)
    status = models.CharField(max_length=10, choices=CalibrationStatus.choices, default=CalibrationStatus.QUEUED)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    critic = models.CharField(max_length=200, blank=True, help_text="Which critic ran: offline or model:<id>")
    constitution_pinned = models.CharField(max_length=120, blank=True, help_text="name@version the critic judged under")
    fixtures_total = models.PositiveIntegerField(default=0)
    fixtures_done = models.PositiveIntegerField(default=0)
    results = models.JSONField(default=list, help_text="Per fixture: name, bad, caught or passed, findings")
    catch_rate = models.FloatField(null=True, blank=True)
    false_alarm_rate = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # A worker claims the run to score the critic (reviewconsole/work_claims.py).
    work_kind = WorkKind(
        doing="running the calibration", waiting=CalibrationStatus.QUEUED, running=CalibrationStatus.RUNNING,
        failed=CalibrationStatus.FAILED,
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["trigger", "status", "-created_at"], name="calibration_by_trigger")]

    @property
    def is_finished(self) -> bool:
        return self.status in (CalibrationStatus.DONE, CalibrationStatus.FAILED)

    @property
    def progress_percent(self) -> int:
        return int(100 * self.fixtures_done / self.fixtures_total) if self.fixtures_total else 0


class ScorerModel(models.Model):
    """An immutable version of the learned scorer's model: a cross-encoder retrained on an organisation's
    labels. The file travels in the database, so every worker host scores with the same bytes; a worker
    writes it to its own disk once (policy/scorer_models.py) and checks the hash as it does."""

    number = models.PositiveIntegerField(unique=True, help_text="1, 2, 3... across the deployment")
    sha256 = models.CharField(max_length=64, unique=True, help_text="sha256 of model.int8.onnx")
    onnx = models.BinaryField(help_text="model.int8.onnx")
    tokenizer = models.TextField(help_text="tokenizer.json")
    figures = models.JSONField(help_text="figures.json as the trainer wrote it: settings, training counts, checks")
    base_sha256 = models.CharField(max_length=64, help_text="sha256 of the model it was fine-tuned from")
    base = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="The version it was fine-tuned from; empty when that was the deployment's own model",
    )
    constitution = models.ForeignKey(NamedConstitution, on_delete=models.PROTECT, related_name="scorer_models",
                                     help_text="Whose labels trained it: the only constitution it may be promoted for")
    client_ids = models.JSONField(default=list, help_text="The API clients whose cases' labels it was trained on")
    training = models.JSONField(help_text="Pairs trained on: organisation's, public replay, per label")
    held_out = models.JSONField(help_text="Old against new on the held-out labels: 'old', 'new' figures, 'verdict'")
    verifier = models.CharField(max_length=100, help_text="The offline verifier with this model: name fingerprint")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("ScorerModel is immutable; train a new version instead")
        super().save(*args, **kwargs)

    @property
    def short_sha(self) -> str:
        return self.sha256[:12]

    @property
    def label(self) -> str:
        return f"scorer model v{self.number}"

    @property
    def promotable(self) -> bool:
        """The held-out comparison found it not worse than the model it would replace."""
        return bool(self.held_out.get("not_worse"))

    def __str__(self) -> str:
        return f"{self.label} ({self.short_sha})"


class PromotionAction(models.TextChoices):
    PROMOTE = "PROMOTE", "Promoted"
    ROLLBACK = "ROLLBACK", "Rolled back"


class ScorerPromotion(models.Model):
    """One change of the scorer model a constitution's claims are scored with, and the version of the
    constitution that put it in force (its `scorer_model` pin and its calibration, in one publication)."""

    constitution = models.ForeignKey(NamedConstitution, on_delete=models.PROTECT, related_name="scorer_promotions")
    action = models.CharField(max_length=10, choices=PromotionAction.choices)
    model = models.ForeignKey(ScorerModel, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                              help_text="The model put in force; empty: the deployment's own")
    previous_model = models.ForeignKey(ScorerModel, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                       help_text="The model in force before; empty: the deployment's own")
    version = models.ForeignKey(ConstitutionVersion, on_delete=models.PROTECT, related_name="+",
                                help_text="The constitution version published with the new pin and calibration")
    previous_version = models.ForeignKey(ConstitutionVersion, on_delete=models.PROTECT, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]


class ReleaseBreaker(models.Model):
    """One opening of a constitution's release breaker: blind spot checks showed its released answers to be
    unsafe beyond its risk budget, so its releases stopped. Open while `closed_at` is empty; a person closes
    it after recalibrating. The rows are the breaker's history."""

    constitution = models.ForeignKey(NamedConstitution, on_delete=models.PROTECT, related_name="breakers")
    stratum = models.CharField(
        max_length=10, blank=True,
        help_text="The calibration stratum whose releases it stops (what their evidence was); empty: all of them",
    )
    opened_at = models.DateTimeField()
    evidence = models.JSONField(
        help_text="What tripped it: spot checks counted and unsafe, the Wilson interval, the budget, the cases",
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
    )
    close_note = models.CharField(max_length=500, blank=True, help_text="Why it is safe to release again")
    recalibrated_version = models.ForeignKey(
        ConstitutionVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="The version in force when it was closed: published after the breaker opened",
    )

    class Meta:
        ordering = ["-opened_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["constitution", "stratum"], condition=models.Q(closed_at__isnull=True),
                                    name="one_open_breaker"),
        ]

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    @property
    def scope(self) -> str:
        """What it stops, in words: the constitution's releases, or those of one stratum of them."""
        name = self.constitution.name
        return f"{name} ({self.stratum} answers)" if self.stratum else name

    @property
    def reason(self) -> str:
        """Why it opened, in one sentence."""
        from reviewconsole.policy.breaker import breaker_reason  # the breaker's services import this module

        return breaker_reason(self.evidence)

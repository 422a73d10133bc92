"""How often reviewers tagged each kind of error, per constitution, over the metrics page's period: on
claims and on whole answers, and in how many cases. Kinds are counted by code; the label shown is the
latest one the taxonomy gave it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q

from reviewconsole.review.models import ErrorTag
from verification import DEFAULT_CONSTITUTION


@dataclass(frozen=True)
class KindCount:
    constitution: str
    kind: str
    label: str
    on_claims: int
    on_answers: int
    cases: int

    @property
    def total(self) -> int:
        return self.on_claims + self.on_answers


def error_kind_counts(*, since: datetime, until: datetime) -> list[KindCount]:
    """Per constitution and kind, the tags made in [since, until): most tagged first within a constitution."""
    rows = (
        ErrorTag.objects.filter(created_at__gte=since, created_at__lt=until)
        .values("case__constitution_name", "kind")
        .annotate(on_claims=Count("id", filter=Q(claim__isnull=False)),
                  on_answers=Count("id", filter=Q(claim__isnull=True)), cases=Count("case", distinct=True))
    )
    labels = dict(
        ErrorTag.objects.filter(created_at__gte=since, created_at__lt=until).order_by("created_at")
        .values_list("kind", "kind_label")
    )
    counts = [
        KindCount(row["case__constitution_name"] or DEFAULT_CONSTITUTION.name, row["kind"],
                  labels.get(row["kind"], row["kind"]), row["on_claims"], row["on_answers"], row["cases"])
        for row in rows
    ]
    return sorted(counts, key=lambda count: (count.constitution, -count.total, count.kind))

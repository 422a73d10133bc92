"""What the model endpoint costs and buys, per constitution: the share of claims sent to the model, the
model calls per case, and how many answers each path released without a person.

A case took the model path when the model decided a claim of the answer as submitted (in a cascade, a
claim the offline verifier could not settle; with every claim sent, all of them); the others were settled
by the offline verifier alone. Counted over the cases finished in the period that ran with a model
endpoint configured; a deployment without one has no rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, IntegerField, Q, QuerySet
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from reviewconsole.intake.models import Case, CaseStatus, Claim, decided_by_model, sent_to_model
from reviewconsole.support.safety import percent
from verification import DEFAULT_CONSTITUTION

_MODEL_VERIFIERS = Q(verifier__startswith="cascade/") | Q(verifier__startswith="cove/")


@dataclass(frozen=True)
class PathCount:
    cases: int = 0
    released: int = 0
    """Released without a person first (a spot check's answer went out before it was checked)."""

    @property
    def automation(self) -> float | None:
        return self.released / self.cases if self.cases else None

    @property
    def text(self) -> str:
        return f"{self.released} of {self.cases} ({percent(self.released / self.cases)})" if self.cases else ""


@dataclass(frozen=True)
class ModelPathUse:
    """One constitution's cases that ran with a model endpoint."""

    constitution: str
    cases: int
    claims: int
    """Claims of the answers as submitted."""
    sent: int
    """Of those, the claims the model was asked about."""
    model_calls: int
    """Every model call of those runs (verification, critic, repairs), retries included."""
    model_tokens: int
    """The tokens the model server reported for those calls (runs stored before it counted them add 0)."""
    model_path: PathCount
    offline_path: PathCount

    @property
    def sent_share(self) -> float | None:
        return self.sent / self.claims if self.claims else None

    @property
    def sent_text(self) -> str:
        return f"{self.sent} of {self.claims}" + (f" ({percent(self.sent / self.claims)})" if self.claims else "")

    @property
    def calls_per_case(self) -> float:
        return self.model_calls / self.cases if self.cases else 0.0

    @property
    def tokens_per_case(self) -> float:
        return self.model_tokens / self.cases if self.cases else 0.0


def model_path_use(*, since: datetime, until: datetime) -> list[ModelPathUse]:
    """Per constitution (by name), the cases finished in [since, until) with a model endpoint, most cases first."""
    finished = Case.objects.filter(finished_at__gte=since, finished_at__lt=until).exclude(terminal="")
    with_model = finished.filter(_MODEL_VERIFIERS)
    cases = list(
        with_model.annotate(model_calls=Cast(KT("run_record__metrics__model_calls"), IntegerField()),
                            model_tokens=Cast(KT("run_record__metrics__model_tokens"), IntegerField()))
        .values_list("pk", "constitution_name", "model_calls", "model_tokens")
    )
    if not cases:
        return []
    # As the page's automation rate counts them: released, and no person was asked first.
    automated = set(with_model.filter(status=CaseStatus.RELEASED).exclude(escalation__is_spot_check=False)
                    .values_list("pk", flat=True))
    first = Claim.objects.filter(candidate__position=0, candidate__case_id__in=[pk for pk, *_ in cases])
    claims, sent = _per_case(first), _per_case(first.filter(sent_to_model()))
    by_model = set(first.filter(decided_by_model()).values_list("candidate__case_id", flat=True))
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for pk, name, calls, tokens in cases:
        row = rows[name or DEFAULT_CONSTITUTION.name]
        path = "model" if pk in by_model else "offline"
        row["cases"] += 1
        row["claims"] += claims.get(pk, 0)
        row["sent"] += sent.get(pk, 0)
        row["model_calls"] += calls or 0
        row["model_tokens"] += tokens or 0
        row[f"{path}_cases"] += 1
        row[f"{path}_released"] += pk in automated
    uses = [
        ModelPathUse(
            constitution=name, cases=row["cases"], claims=row["claims"], sent=row["sent"],
            model_calls=row["model_calls"], model_tokens=row["model_tokens"],
            model_path=PathCount(row["model_cases"], row["model_released"]),
            offline_path=PathCount(row["offline_cases"], row["offline_released"]),
        )
        for name, row in rows.items()
    ]
    return sorted(uses, key=lambda use: (-use.cases, use.constitution))


def _per_case(claims: QuerySet[Claim]) -> dict[int, int]:
    """Case id -> how many of `claims` it has."""
    counts = claims.values("candidate__case_id").annotate(n=Count("pk")).values_list("candidate__case_id", "n")
    return dict(counts)

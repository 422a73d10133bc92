"""Any case, found by number, ticket id or words: open, decided, or released by the engine without a
person. Reviewers and review leads read each one; the case page says whether they may decide it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F
from django.db.models.functions import Left

from reviewconsole.intake.models import Case
from reviewconsole.review.models import EscalationStatus
from reviewconsole.review.queue import QUESTION_PREVIEW_CHARS, answer_preview, case_matching

FOUND_LIMIT = 50


@dataclass(frozen=True)
class FoundCase:
    """One row of the results: what a reviewer needs to tell cases apart before opening one."""

    case_id: int
    external_id: str
    client: str
    question: str
    answer_start: str
    where: str
    """Where the case stands, as a reviewer may know it: an open spot check reads "In review", not the
    engine's release, so that the search does not tell a reviewer what the blind check hides."""


def case_number(search: str) -> int | None:
    """The case number a search is, alone ("123" or "#123"); None for anything else."""
    number = search.strip().removeprefix("#")
    return int(number) if number.isdigit() and len(number) < 19 else None


def cases_found(search: str, *, limit: int = FOUND_LIMIT) -> list[FoundCase]:
    """The newest cases matching `search` (queue.case_matching), at most `limit`."""
    if not search.strip():
        return []
    rows = (
        Case.objects.filter(case_matching(search))
        .annotate(question_preview=Left("question", QUESTION_PREVIEW_CHARS), answer_preview=answer_preview(),
                  escalation_status=F("escalation__status"), client_name=F("client__name"))
        .values("pk", "external_id", "status", "client_name", "question_preview", "answer_preview",
                "escalation_status")
        .order_by("-submitted_at", "-id")[:limit]
    )
    labels = dict(Case._meta.get_field("status").choices or [])
    found = []
    for row in rows:
        escalation = row["escalation_status"]
        if escalation == EscalationStatus.OPEN:
            where = "In review"
        elif escalation == EscalationStatus.ADJUDICATION:
            where = EscalationStatus.ADJUDICATION.label
        else:
            where = str(labels.get(row["status"], row["status"]))
        found.append(FoundCase(row["pk"], row["external_id"] or "", row["client_name"], row["question_preview"],
                               row["answer_preview"], where))
    return found

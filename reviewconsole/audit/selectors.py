"""Reads of the audit log that other modules need: the newest signed head, the heads since one, the backlog."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min, QuerySet

from reviewconsole.audit.models import AuditEvent, AuditTreeHead


def latest_tree_head() -> AuditTreeHead | None:
    return AuditTreeHead.objects.order_by("-tree_size").first()


def tree_heads_since(tree_size: int) -> QuerySet[AuditTreeHead]:
    """Heads that cover more than `tree_size` events, oldest first."""
    return AuditTreeHead.objects.filter(tree_size__gt=tree_size).order_by("tree_size")


@dataclass(frozen=True)
class Backlog:
    """Events appended but not sealed yet."""

    events: int
    oldest_at: datetime | None
    oldest_id: int | None


def unsealed_backlog() -> Backlog:
    unsealed = AuditEvent.objects.filter(seq__isnull=True)
    summary = unsealed.aggregate(events=Count("id"), oldest_id=Min("id"), oldest_at=Min("created_at"))
    return Backlog(events=summary["events"], oldest_at=summary["oldest_at"], oldest_id=summary["oldest_id"])


def unsealed_before(moment: datetime) -> QuerySet[AuditEvent]:
    """Events appended before `moment` and still not sealed, oldest first."""
    return AuditEvent.objects.filter(seq__isnull=True, created_at__lt=moment).order_by("id")

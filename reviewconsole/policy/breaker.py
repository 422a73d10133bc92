"""The release breaker of a constitution, or of one calibration stratum of it (what the released answers'
evidence was): open, those releases stop and the cases go to people; only a person closes it, once a version
published after it opened (a recalibration) is in force. Each change is audited.

What trips it (blind spot checks whose unsafe share is above the budget) is measured above this app; this
module keeps the breaker's state and history, which intake's routing reads for every released answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.audit.actions import SYSTEM, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy.models import NamedConstitution, ReleaseBreaker
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import FieldRefused


@dataclass(frozen=True)
class BreakerPanel:
    """What a page shows of one constitution's breakers: the open ones, why, and their history."""

    constitution: str
    opened: list[ReleaseBreaker]
    history: list[ReleaseBreaker]

    @property
    def open(self) -> ReleaseBreaker | None:
        return self.opened[0] if self.opened else None


def breaker_panel(constitution: str) -> BreakerPanel:
    history = breaker_history(constitution)
    return BreakerPanel(constitution, [row for row in history if row.is_open], history)


def breaker_panels() -> list[BreakerPanel]:
    """A panel for each constitution whose breaker ever opened, open ones first."""
    names = ReleaseBreaker.objects.values_list("constitution__name", flat=True).distinct()
    panels = [breaker_panel(name) for name in sorted(set(names))]
    return sorted(panels, key=lambda panel: panel.open is None)


def breaker_reason(evidence: dict[str, Any]) -> str:
    """Why a breaker opened, in one sentence, as the pages, the email and the webhook say it."""
    low, high = evidence["interval"]
    return (f"{evidence['unsafe']} of {evidence['spot_checks']} blind spot checks of released answers were unsafe "
            f"({evidence['estimate']:.1%}); the 95% interval {low:.1%} – {high:.1%} lies above the risk budget "
            f"of {evidence['budget']:.1%}")


class BreakerRefused(FieldRefused):
    """A breaker change that cannot be made as asked; `field` names the input at fault."""


def open_breaker(constitution: str, stratum: str | None = None) -> ReleaseBreaker | None:
    """The open breaker that stops the constitution's releases of an answer of `stratum` (its own, or the whole
    constitution's); with `stratum` None, that of the whole constitution only. None while they run."""
    strata = [""] if not stratum else ["", stratum]
    return (ReleaseBreaker.objects.filter(constitution__name=constitution, stratum__in=strata, closed_at__isnull=True)
            .select_related("constitution").first())


def open_breaker_names() -> set[str]:
    """The constitutions whose releases a breaker stops now."""
    return set(ReleaseBreaker.objects.filter(closed_at__isnull=True).values_list("constitution__name", flat=True))


def breaker_history(constitution: str, *, limit: int = 20) -> list[ReleaseBreaker]:
    """The constitution's breaker openings, newest first, open or closed."""
    rows = ReleaseBreaker.objects.filter(constitution__name=constitution).select_related(
        "closed_by", "recalibrated_version")
    return list(rows[:limit])


def last_closed(constitution: str, stratum: str = "") -> datetime | None:
    """When the breaker (of the constitution, or of one stratum) was last closed: spot checks from before it
    tripped it already."""
    closed = ReleaseBreaker.objects.filter(constitution__name=constitution, stratum=stratum, closed_at__isnull=False)
    return closed.order_by("-closed_at").values_list("closed_at", flat=True).first()


def breaker_trip(
    *, constitution: str, evidence: dict[str, Any], now: datetime, stratum: str = ""
) -> ReleaseBreaker | None:
    """Open the breaker of the constitution (or of one stratum of it) with what tripped it; None when it is open
    already (nothing written)."""
    with transaction.atomic():
        document = NamedConstitution.objects.select_for_update().get(name=constitution)
        if ReleaseBreaker.objects.filter(constitution=document, stratum=stratum, closed_at__isnull=True).exists():
            return None
        breaker = ReleaseBreaker.objects.create(constitution=document, stratum=stratum, opened_at=now,
                                                evidence=evidence)
        audit_record(actor=SYSTEM, action=AuditAction.GATE_PAUSED, object_type="NamedConstitution",
                     object_id=constitution, payload={"constitution": constitution, "stratum": stratum, **evidence})
        return breaker


def breaker_close(*, constitution: str, actor: User, note: str, now: datetime, stratum: str = "") -> ReleaseBreaker:
    """Close an open breaker: refused unless the version in force was published after it opened (so the
    release threshold was looked at again) and the person says why releasing is safe again."""
    note = note.strip()
    with transaction.atomic():
        NamedConstitution.objects.select_for_update().get(name=constitution)
        breaker = ReleaseBreaker.objects.filter(constitution__name=constitution, stratum=stratum,
                                                closed_at__isnull=True).first()
        if breaker is None:
            raise BreakerRefused("stratum", f"no breaker of {constitution}{f' ({stratum})' if stratum else ''} is open")
        if not note:
            raise BreakerRefused("note", "say why releasing is safe again (what was recalibrated)")
        in_force = constitution_in_force(constitution)
        if in_force is None or in_force.published_at is None or in_force.published_at <= breaker.opened_at:
            raise BreakerRefused("constitution", f"recalibrate first: publish a version of {constitution} (a new "
                                 "release threshold from the labels, or a stricter budget) after the breaker opened")
        breaker.closed_at, breaker.closed_by, breaker.close_note = now, actor, note[:500]
        breaker.recalibrated_version = in_force
        breaker.save(update_fields=["closed_at", "closed_by", "close_note", "recalibrated_version"])
        audit_record(actor=actor, action=AuditAction.GATE_RESUMED, object_type="NamedConstitution",
                     object_id=constitution, payload={"constitution": constitution, "stratum": stratum,
                                                      "note": breaker.close_note,
                                                      "opened_at": breaker.opened_at.isoformat(),
                                                      "version": in_force.number})
        return breaker

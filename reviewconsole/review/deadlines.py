"""Review deadlines: a case waiting longer than its pinned constitution's time to decision is overdue: the one
for its escalation's severity (`review_deadline_hours_critical`, `_moderate`, `_minor`), else
`review_deadline_hours`.

The deadline lives in each constitution version's content (JSON). Rather than extract it from the
JSON of the version joined to every row of a long queue, the few versions that set one are read first
(one small query over the versions' table, which holds a row per saved version, not per case), and
"overdue" becomes a plain condition on the queue's own columns: the case's pinned version is one of
those with a deadline of h hours, and the escalation was created more than h hours ago. The database
then filters and annotates with it as with any other condition, and cursor paging is unaffected.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from datetime import datetime, timedelta
from functools import reduce

from django.db.models import BooleanField, Case, Q, Value, When
from django.db.models.expressions import BaseExpression

from reviewconsole.policy.models import ConstitutionVersion

SEVERITIES = ("CRITICAL", "MODERATE", "MINOR")


def deadlines_by_hours() -> dict[tuple[int, str], list[int]]:
    """Constitution version ids by (deadline in hours, escalation severity), for the versions that set one."""
    by_hours: dict[tuple[int, str], list[int]] = defaultdict(list)
    knobs = [f"content__policy__review_deadline_hours_{severity.lower()}" for severity in SEVERITIES]
    for pk, hours, *per_severity in ConstitutionVersion.objects.values_list(
        "pk", "content__policy__review_deadline_hours", *knobs
    ):
        for severity, own in zip(SEVERITIES, per_severity, strict=True):
            # Versions saved before a knob existed have no such key; None is "never overdue".
            deadline = own if _hours(own) else hours
            if _hours(deadline):
                by_hours[(deadline, severity)].append(pk)
    return dict(by_hours)


def _hours(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def overdue_condition(now: datetime, deadlines: dict[tuple[int, str], list[int]]) -> Q | None:
    """Escalations older than their pinned version's deadline for their severity at `now`; None when no version
    sets one."""
    if not deadlines:
        return None
    return reduce(operator.or_, (
        Q(case__constitution_pin__in=ids, severity=severity, created_at__lt=now - timedelta(hours=hours))
        for (hours, severity), ids in sorted(deadlines.items())
    ))


def overdue_annotation(condition: Q | None) -> BaseExpression:
    """`overdue` as a column of the queue's rows."""
    if condition is None:
        return Value(False, output_field=BooleanField())
    return Case(When(condition, then=Value(True)), default=Value(False), output_field=BooleanField())

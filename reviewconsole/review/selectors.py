"""Reads of past decisions. The queue, the case page and its parts have modules of their own
(queue.py, case_page.py, marking.py, budgets.py)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from reviewconsole.review.models import Decision


def decisions_of(reviewer: User) -> QuerySet[Decision]:
    return (
        Decision.objects.filter(reviewer=reviewer)
        .select_related("case__client", "candidate")
        .defer("case__run_record", "candidate__text")
        .order_by("-created_at")
    )

"""Codes as people read them: why a run ended, why a reviewer rejected, who made a version, and the like.

The codes stay in the API, webhooks, exports and filters' query strings; pages show the phrase, through
`code_label` (the `label` template filter), the one lookup for every vocabulary: the engine's, whose
maps are in `reviewconsole.vocabulary`, and the review console's own below.
"""

from __future__ import annotations

from django.db import models

from reviewconsole.review.states import STATE_LABELS
from reviewconsole.vocabulary import (
    FINDING_LABELS,
    ORIGIN_LABELS,
    REASON_LABELS,
    REPAIR_LABELS,
    RULE_KIND_LABELS,
    SEVERITY_LABELS,
    TERMINAL_LABELS,
)
from verification import Reason


class RejectReason(models.TextChoices):
    WRONG_FACTS = "WRONG_FACTS", "Facts contradict the sources"
    NOT_IN_SOURCES = "NOT_IN_SOURCES", "Not backed by the sources"
    OFF_QUESTION = "OFF_QUESTION", "Does not answer the question"
    POLICY = "POLICY", "Breaks policy"
    UNSAFE = "UNSAFE", "Unsafe or harmful"
    OTHER = "OTHER", "Other (see note)"


DECISION_LABELS: dict[str, str] = {"APPROVE": "Approved", "EDIT": "Edited", "REJECT": "Rejected"}

CODE_LABELS: dict[str, str] = {
    **SEVERITY_LABELS,
    **STATE_LABELS,
    **FINDING_LABELS,
    **REPAIR_LABELS,
    **ORIGIN_LABELS,
    **DECISION_LABELS,
    **TERMINAL_LABELS,
    **dict(RejectReason.choices),
    **REASON_LABELS,
    **RULE_KIND_LABELS,
}
"""Every code a page may show, with its phrase. The vocabularies share no code except REJECT (a terminal
and a decision), which reads "Rejected" either way."""


def code_label(code: str | None) -> str:
    """The phrase for a code; a code this console does not know yet reads as its words."""
    if not code:
        return ""
    return CODE_LABELS.get(code, code.replace("_", " ").capitalize())


def reason_label(reason: str) -> str:
    """The phrase for a run's reason code."""
    return code_label(reason)


def reason_choices() -> list[tuple[str, str]]:
    """Every reason the engine can give, as (code, phrase) choices for a filter."""
    return [(reason.value, reason_label(reason.value)) for reason in Reason]

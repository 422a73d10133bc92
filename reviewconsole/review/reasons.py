"""Codes as people read them: why a run ended, why a reviewer rejected, who made a version, and the like.

The codes stay in the API, webhooks, exports and filters' query strings; pages show the phrase, through
`code_label` (the `label` template filter), the one lookup for every vocabulary below.
"""

from __future__ import annotations

from django.db import models

from reviewconsole.review.states import STATE_LABELS
from verification import Origin, Reason, Severity, Terminal


class RejectReason(models.TextChoices):
    WRONG_FACTS = "WRONG_FACTS", "Facts contradict the sources"
    NOT_IN_SOURCES = "NOT_IN_SOURCES", "Not backed by the sources"
    OFF_QUESTION = "OFF_QUESTION", "Does not answer the question"
    POLICY = "POLICY", "Breaks policy"
    UNSAFE = "UNSAFE", "Unsafe or harmful"
    OTHER = "OTHER", "Other (see note)"


REASON_LABELS: dict[str, str] = {
    Reason.ALL_SUPPORTED.value: "All claims supported",
    Reason.REPAIRED.value: "Repaired",
    Reason.NO_CHECKABLE_CLAIMS.value: "No checkable claims",
    Reason.CYCLE_DETECTED.value: "Repairs went in a cycle",
    Reason.REPAIR_BUDGET_EXHAUSTED.value: "Repair budget used up",
    Reason.VERIFIER_BUDGET_EXHAUSTED.value: "Verifier budget used up",
    Reason.MODEL_BUDGET_EXHAUSTED.value: "Model budget used up",
    Reason.TIME_BUDGET_EXHAUSTED.value: "Time budget used up",
    Reason.CONFLICTING_EVIDENCE.value: "Conflicting evidence",
    Reason.CRITICAL_CLAIM.value: "Critical claim not supported",
    Reason.UNSUPPORTED_CLAIM.value: "Unsupported claim",
    Reason.UNRESOLVED_CLAIM.value: "Unresolved claim",
    Reason.RULE_FAILED.value: "Rule failed",
    Reason.RULE_NOT_CONVERGING.value: "Rule does not converge",
    Reason.BLOCKING_RULE_FAILED.value: "Blocking rule failed",
    Reason.NOTHING_SUPPORTED.value: "Nothing supported",
    Reason.MODEL_OUTPUT_INVALID.value: "Invalid model output",
    Reason.BELOW_RELEASE_THRESHOLD.value: "Below the release threshold",
    Reason.NOT_CALIBRATED.value: "No release calibration for this verifier",
}

TERMINAL_LABELS: dict[str, str] = {
    Terminal.PERMIT.value: "Cleared for release",
    Terminal.REVIEW.value: "Needs review",
    Terminal.ABSTAIN.value: "Abstained",
    Terminal.REJECT.value: "Rejected",
}

ORIGIN_LABELS: dict[str, str] = {
    Origin.CLIENT.value: "From the client",
    Origin.GENERATOR.value: "Generated",
    Origin.REPAIR.value: "Engine repair",
    Origin.REVIEWER.value: "Reviewer edit",
}

# What a repair did (verification.contract.Operation, and the console's own edit), and how it ended.
REPAIR_LABELS: dict[str, str] = {
    "OMIT_CLAIM": "Left the claim out",
    "REPLACE_WITH_EVIDENCE": "Replaced by what the sources say",
    "NARROW_TO_SUPPORTED_SCOPE": "Narrowed to what the sources support",
    "MODEL_REVISION": "Revised by the model",
    "RULE_REVISION": "Revised to meet a rule",
    "FULL_REGENERATION": "Written again",
    "reviewer_edit": "Edited by a reviewer",
    "ACCEPTED": "Accepted",
    "REJECTED": "Rejected",
}

DECISION_LABELS: dict[str, str] = {"APPROVE": "Approved", "EDIT": "Edited", "REJECT": "Rejected"}

# What the critic found (verification.types.FindingProblem).
FINDING_LABELS: dict[str, str] = {
    "unsupported": "Not supported",
    "wrong_version": "Wrong version",
    "off_question": "Off the question",
    "tone": "Tone",
    "omission": "Leaves something out",
}

CODE_LABELS: dict[str, str] = {
    **{severity.value: severity.value.capitalize() for severity in Severity},
    **STATE_LABELS,
    **FINDING_LABELS,
    **REPAIR_LABELS,
    **ORIGIN_LABELS,
    **DECISION_LABELS,
    **TERMINAL_LABELS,
    **dict(RejectReason.choices),
    **REASON_LABELS,
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

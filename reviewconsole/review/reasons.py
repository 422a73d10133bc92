"""Why a run ended where it did, as a reviewer reads it: a phrase for every reason code the engine emits.

The codes stay in the API, webhooks, exports and filters' query strings; pages show the phrase.
"""

from __future__ import annotations

from verification import Reason

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
}


def reason_label(reason: str) -> str:
    """The phrase for a reason code; a code this console does not know yet reads as its words."""
    return REASON_LABELS.get(reason, reason.replace("_", " ").capitalize())


def reason_choices() -> list[tuple[str, str]]:
    """Every reason the engine can give, as (code, phrase) choices for a filter."""
    return [(reason.value, reason_label(reason.value)) for reason in Reason]

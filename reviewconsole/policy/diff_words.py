"""A version diff in the policy admin's words: each field as the editor names it, each code as its label.

The diff itself (diff.py) compares stored contents, whose keys and values are the engine's
(`policy.double_review_reasons`, `BELOW_RELEASE_THRESHOLD`); this is what the pages say instead.
"""

from __future__ import annotations

from typing import Any

from reviewconsole import vocabulary
from reviewconsole.policy.editor import KNOB_LABELS, RULE_FIELD_LABELS

# Top-level fields of a constitution or a rubric, and a rubric fixture's own.
_FIELD_LABELS: dict[str, str] = {
    "name": "Name",
    "description": "What it is for",
    "instructions": "Instructions to the critic",
    "constitution": "Constitution",
    "question": "Question",
    "sources": "Sources",
    "draft": "Draft",
    "bad": "Known to be bad",
    "kind": "Kind",
    "policy.release_calibration": "Release calibration",
    "policy.scorer_model": "Scorer model",
}
# The code vocabulary of each field whose values are codes.
_CODE_LABELS: dict[str, dict[str, str]] = {
    "policy.needs_person": vocabulary.TERMINAL_LABELS,
    "policy.double_review_reasons": vocabulary.REASON_LABELS,
    "policy.double_review_severities": vocabulary.SEVERITY_LABELS,
    "policy.model_verification": {str(code): words for code, words in vocabulary.ROUTE_LABELS.items()},
    "policy.minor_unsupported": {str(code): words for code, words in vocabulary.MINOR_TIER_LABELS.items()},
    "kind": vocabulary.RULE_KIND_LABELS,
}
_UNSET: dict[str, str] = {
    "policy.spot_check_share": "the deployment's default",
    "policy.review_deadline_hours": "no deadline",
    "policy.model_verification": "chosen from the calibration",
    "policy.calibration_group": "the threshold of each answer's stratum",
}


def field_words(field: str, *, item: bool = False) -> str:
    """What the editor calls `field` (a top-level field, "policy.<knob>", or a rule's or fixture's field
    when `item`); a field no page names reads as its words ("max_words" -> "Max words")."""
    if item and field in RULE_FIELD_LABELS:
        return RULE_FIELD_LABELS[field]
    if field.startswith("policy.") and field.removeprefix("policy.") in KNOB_LABELS:
        return KNOB_LABELS[field.removeprefix("policy.")]
    return _FIELD_LABELS.get(field) or field.rsplit(".", 1)[-1].replace("_", " ").capitalize()


def value_words(field: str, value: Any) -> str | None:
    """A stored value as a policy admin reads it: codes as their labels, a list as its quoted items,
    yes/no for a switch; None for a value that is absent (the field was added or removed)."""
    if value is None:
        return _UNSET.get(field, "not set")
    codes = _CODE_LABELS.get(field)
    if codes is not None:
        if isinstance(value, list | tuple):
            return ", ".join(codes.get(str(code), str(code)) for code in value) or "none"
        return codes.get(str(value), str(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(f"“{item}”" if isinstance(item, str) else (value_words("", item) or "") for item in value) \
            or "none"
    if isinstance(value, dict):
        return "; ".join(f"{field_words(key, item=True)}: {value_words(key, item)}" for key, item in value.items()) \
            or "none"
    return str(value)

"""The codes a run record carries: what verification concluded about a claim, how much harm it can do,
where a run ended and why, and who wrote a candidate.

They are part of the case contract (`types.py`): values may be added; existing ones are never renamed.
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    """What verification concluded about one claim."""

    SUPPORTED = "SUPPORTED"
    REFUTED = "REFUTED"
    INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"
    CONFLICTING = "CONFLICTING"
    UNRESOLVED = "UNRESOLVED"
    NOT_VERIFIABLE = "NOT_VERIFIABLE"


class Severity(StrEnum):
    """How much harm a wrong claim can do."""

    CRITICAL = "CRITICAL"
    MODERATE = "MODERATE"
    MINOR = "MINOR"


class Terminal(StrEnum):
    """Where a run ended."""

    PERMIT = "PERMIT"
    REVIEW = "REVIEW"
    ABSTAIN = "ABSTAIN"
    REJECT = "REJECT"


class Reason(StrEnum):
    """Why a run ended where it did."""

    ALL_SUPPORTED = "ALL_SUPPORTED"
    REPAIRED = "REPAIRED"
    NO_CHECKABLE_CLAIMS = "NO_CHECKABLE_CLAIMS"
    CYCLE_DETECTED = "CYCLE_DETECTED"
    REPAIR_BUDGET_EXHAUSTED = "REPAIR_BUDGET_EXHAUSTED"
    VERIFIER_BUDGET_EXHAUSTED = "VERIFIER_BUDGET_EXHAUSTED"
    MODEL_BUDGET_EXHAUSTED = "MODEL_BUDGET_EXHAUSTED"
    TIME_BUDGET_EXHAUSTED = "TIME_BUDGET_EXHAUSTED"
    CONFLICTING_EVIDENCE = "CONFLICTING_EVIDENCE"
    CRITICAL_CLAIM = "CRITICAL_CLAIM"
    UNSUPPORTED_CLAIM = "UNSUPPORTED_CLAIM"
    UNRESOLVED_CLAIM = "UNRESOLVED_CLAIM"
    RULE_FAILED = "RULE_FAILED"
    RULE_NOT_CONVERGING = "RULE_NOT_CONVERGING"
    BLOCKING_RULE_FAILED = "BLOCKING_RULE_FAILED"
    NOTHING_SUPPORTED = "NOTHING_SUPPORTED"
    MODEL_OUTPUT_INVALID = "MODEL_OUTPUT_INVALID"
    BELOW_RELEASE_THRESHOLD = "BELOW_RELEASE_THRESHOLD"
    NOT_CALIBRATED = "NOT_CALIBRATED"
    """No release calibration was made for the verifier as it is configured: no score can be trusted to
    release an answer, so a person decides."""
    MINOR_CLAIMS_REMOVED = "MINOR_CLAIMS_REMOVED"
    """Released without the MINOR claims that could not be released as written (`Policy.minor_unsupported`)."""
    LANGUAGE_NOT_SUPPORTED = "LANGUAGE_NOT_SUPPORTED"
    """Written in a language the offline verifier does not read (and no model reads it instead): a person
    decides, and the language is named."""
    MINOR_CLAIMS_NOTED = "MINOR_CLAIMS_NOTED"
    """Released with the constitution's note after the MINOR claims that could not be released as written."""


class Origin(StrEnum):
    """Who produced a candidate."""

    CLIENT = "CLIENT"
    GENERATOR = "GENERATOR"
    REPAIR = "REPAIR"
    REVIEWER = "REVIEWER"

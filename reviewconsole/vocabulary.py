"""The engine's codes as people read them: one label map per vocabulary (why a run ended, how it ended,
who made a version, what a repair did, what the critic found, how severe a claim is, what kind a
constitution's rule is).

Here, below every app, so that each page draws its words from the same map: the policy editor's
checkboxes as well as the review and audit pages (through `review.reasons.code_label`, the `label`
template filter). The codes themselves stay in the API, webhooks, exports and query strings.
"""

from __future__ import annotations

from verification import MinorTier, Origin, Reason, Route, Severity, Terminal

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
    Reason.LANGUAGE_NOT_SUPPORTED.value: "Language not read by the verifier",
    Reason.MINOR_CLAIMS_REMOVED.value: "Released without minor claims",
    Reason.MINOR_CLAIMS_NOTED.value: "Released with a note on minor claims",
}

TERMINAL_LABELS: dict[str, str] = {
    Terminal.PERMIT.value: "Cleared for release",
    Terminal.REVIEW.value: "Needs review",
    Terminal.ABSTAIN.value: "Abstained",
    Terminal.REJECT.value: "Rejected",
}

SEVERITY_LABELS: dict[str, str] = {
    Severity.CRITICAL.value: "Critical",
    Severity.MODERATE.value: "Moderate",
    Severity.MINOR.value: "Minor",
}

ORIGIN_LABELS: dict[str, str] = {
    Origin.CLIENT.value: "From the client",
    Origin.GENERATOR.value: "Generated",
    Origin.REPAIR.value: "Engine repair",
    Origin.REVIEWER.value: "Reviewer edit",
}

# What a repair did (verification.loop.contract.Operation, and the console's own edit), and how it ended.
REPAIR_LABELS: dict[str, str] = {
    "OMIT_CLAIM": "Left the claim out",
    "REPLACE_WITH_EVIDENCE": "Replaced by what the sources say",
    "NARROW_TO_SUPPORTED_SCOPE": "Narrowed to what the sources support",
    "MODEL_REVISION": "Revised by the model",
    "RULE_REVISION": "Revised to meet a rule",
    "FULL_REGENERATION": "Written again",
    "NOTE_CLAIM": "Kept with the constitution's note",
    "reviewer_edit": "Edited by a reviewer",
    "ACCEPTED": "Accepted",
    "REJECTED": "Rejected",
}

# What the critic found (verification.types.FindingProblem).
FINDING_LABELS: dict[str, str] = {
    "unsupported": "Not supported",
    "wrong_version": "Wrong version",
    "off_question": "Off the question",
    "tone": "Tone",
    "omission": "Leaves something out",
}

# The kinds of a constitution's rules (verification.policy.constitution), in the order the editor offers them.
RULE_KIND_LABELS: dict[str, str] = {
    "word_limit": "Word limit",
    "forbidden_phrases": "Forbidden phrases",
    "required_disclosure": "Required disclosure",
    "no_promise_outside_sources": "No promise outside the sources",
    "judged": "Judged rule",
}

# Which claims a run with a model endpoint sends to the model (verification.policy.constitution.Route).
ROUTE_LABELS: dict[str, str] = {
    Route.OFF.value: "None: the offline verifier decides every claim",
    Route.UNCERTAIN.value: "The uncertain band: what the offline verifier cannot settle",
    Route.ALL.value: "Every claim",
}

# What a MINOR claim that cannot be released as written does to the answer (Policy.minor_unsupported).
MINOR_TIER_LABELS: dict[str, str] = {
    MinorTier.HOLD.value: "Holds the answer for a person, as any claim does",
    MinorTier.REMOVE.value: "Taken out: the answer goes out without it",
    MinorTier.NOTE.value: "Kept, followed by the note below (a contradicted one is taken out)",
}

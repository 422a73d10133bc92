"""Where a finished run goes: queued for a person (and, for a share of releases, spot-checked), and what
the client's webhook says. Receives intake's `run_stored`, inside the transaction that stored the run, and
`case_failed`, inside the one that failed the case."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from reviewconsole.intake.constitutions import case_pin
from reviewconsole.intake.models import Case
from reviewconsole.review import audit_events
from reviewconsole.review.models import Escalation
from reviewconsole.review.services.queue_counts import queue_count_move
from reviewconsole.webhooks import services as webhooks
from reviewconsole.webhooks.payloads import case_outcome_payload
from verification import Claim, Reason, RunRecord, Severity, State, Terminal

# Priority = severity weight + reason weight: a critical money claim outranks a minor cycle.
_SEVERITY_WEIGHT = {Severity.CRITICAL.value: 300, Severity.MODERATE.value: 200, Severity.MINOR.value: 100}
_REASON_WEIGHT = {
    "CRITICAL_CLAIM": 50,
    "CONFLICTING_EVIDENCE": 40,
    "UNRESOLVED_CLAIM": 30,
    "MODEL_OUTPUT_INVALID": 30,
    "RULE_FAILED": 25,
    "RULE_NOT_CONVERGING": 25,
    "CYCLE_DETECTED": 20,
    "REPAIR_BUDGET_EXHAUSTED": 20,
    "VERIFIER_BUDGET_EXHAUSTED": 20,
    "MODEL_BUDGET_EXHAUSTED": 20,
    "TIME_BUDGET_EXHAUSTED": 20,
    "UNSUPPORTED_CLAIM": 15,
    "LANGUAGE_NOT_SUPPORTED": 15,
    # Every claim is supported, but one is not surely enough to send as written: below unsupported claims.
    "BELOW_RELEASE_THRESHOLD": 12,
    "NOT_CALIBRATED": 12,
    "NO_CHECKABLE_CLAIMS": 5,
}
_SEVERITY_ORDER = [Severity.MINOR.value, Severity.MODERATE.value, Severity.CRITICAL.value]


def escalation_priority(*, severity: str, reason: str, spot_check: bool = False) -> int:
    """Spot checks of released cases come after every real escalation."""
    if spot_check:
        return 0
    return _SEVERITY_WEIGHT.get(severity, 100) + _REASON_WEIGHT.get(reason, 10)


def escalation_severity(record: RunRecord) -> str:
    """The highest severity among the final candidate's failing claims, else among the supported claims
    the release gate held back, else among all its claims."""
    claims = record.candidates[-1].claims if record.candidates else []
    failing = (
        [c for c in claims if c.state not in (State.SUPPORTED, State.NOT_VERIFIABLE)]
        or _held_back(claims, record.release_threshold)
        or claims
    )
    if not failing:
        return Severity.MINOR.value
    return max((c.severity.value for c in failing), key=_SEVERITY_ORDER.index)


def _held_back(claims: list[Claim], threshold: float | None) -> list[Claim]:
    """Supported claims scored below the run's release threshold (an unscored one counts as 0, as in the gate)."""
    if threshold is None:
        return []
    return [c for c in claims if c.state is State.SUPPORTED and (c.release_score or 0.0) < threshold]


def spot_check_share(case: Case) -> float:
    """The share of released cases sampled for a person: the pinned constitution's, else the deployment's."""
    return policy_spot_check_share(case_pin(case).content.get("policy") or {})


def policy_spot_check_share(policy: Mapping[str, Any]) -> float:
    """`spot_check_share` under a constitution's stored policy (as a version's content holds it)."""
    share = policy.get("spot_check_share")
    return settings.SPOT_CHECK_RATE if share is None else float(share)


def reviews_required(case: Case, *, reason: str, severity: str) -> int:
    """2 when the pinned constitution asks for double review of this reason or severity, else 1."""
    return policy_reviews_required(case_pin(case).content.get("policy") or {}, reason=reason, severity=severity)


def policy_reviews_required(policy: Mapping[str, Any], *, reason: str, severity: str) -> int:
    """`reviews_required` under a constitution's stored policy (as a version's content holds it)."""
    double = reason in (policy.get("double_review_reasons") or []) \
        or severity in (policy.get("double_review_severities") or [])
    return 2 if double else 1


def _spot_check_drawn(case: Case) -> bool:
    rate = spot_check_share(case)
    return rate > 0 and secrets.randbelow(1_000_000) < rate * 1_000_000


def case_routed(sender: object, *, case: Case, record: RunRecord, **kwargs: object) -> None:
    """Open an escalation if a person must look (or a spot check is drawn), and record the client's webhook."""
    terminal = record.terminal
    severity = escalation_severity(record)
    escalation: Escalation | None = None
    if terminal is Terminal.PERMIT and case.release_held:
        # The gate held the release (shadow mode, an open breaker): a person decides, blind. The reason they
        # see is the gate's own, never the engine's "all supported", which would say what to find.
        reason = Reason.NOT_CALIBRATED.value
        escalation = Escalation.objects.create(
            case=case, reason=reason, severity=severity, held_release=True,
            priority=escalation_priority(severity=severity, reason=reason),
            reviews_required=reviews_required(case, reason=reason, severity=severity),
        )
        audit_events.escalation_opened(escalation=escalation)
        event = webhooks.CASE_ESCALATED
    elif terminal is Terminal.PERMIT:
        if _spot_check_drawn(case):
            escalation = Escalation.objects.create(
                case=case, reason=record.reason.value, severity=severity, is_spot_check=True, priority=0
            )
            audit_events.escalation_opened(escalation=escalation)
        event = webhooks.CASE_RELEASED
    elif terminal is Terminal.REJECT:
        event = webhooks.CASE_REJECTED
    else:  # REVIEW and ABSTAIN: a person decides (two, for the reasons and severities policy names).
        # Spot checks are never double-reviewed: they measure released answers, one blind review each.
        escalation = Escalation.objects.create(
            case=case, reason=record.reason.value, severity=severity,
            priority=escalation_priority(severity=severity, reason=record.reason.value),
            reviews_required=reviews_required(case, reason=record.reason.value, severity=severity),
        )
        audit_events.escalation_opened(escalation=escalation)
        event = webhooks.CASE_ESCALATED
    webhooks.webhook_event_record(case=case, event_type=event, payload=case_outcome_payload(case))
    if escalation is not None:
        # Last, so that the count's row lock is held for as little as possible before the commit.
        queue_count_move(escalation=escalation, from_status=None)


def case_failure_notified(sender: object, *, case_id: int, error: str, **kwargs: object) -> None:
    """A case that failed for good (its run raised, or no worker finished it): its client is told."""
    case = Case.objects.select_related("client").get(pk=case_id)
    payload = {**case_outcome_payload(case), "error": error}
    webhooks.webhook_event_record(case=case, event_type=webhooks.CASE_FAILED, payload=payload)

"""The release breaker's trigger: blind spot checks of a constitution's released answers, counted per
calibration stratum (what the released answers' evidence was) since that stratum's breaker last closed,
whose 95% Wilson interval lies above the risk budget (its lower end above it), open the stratum's breaker.
Those releases stop (intake holds them for a person); an audit event, a `gate.paused` webhook to each client
with cases under the constitution, and an email to the policy admins say why, with the spot checks that
tripped it. Answers the run recorded no stratum for (the model decided a claim) count for the breaker of the
whole constitution.

The interval's lower end, not the estimate, trips it: a few unlucky spot checks are not enough, and a
breaker that opens on noise teaches people to close it without looking.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.urls import reverse

from reviewconsole.accounts.roles import Role, role_emails
from reviewconsole.intake.models import Client
from reviewconsole.mail.services import email_queue
from reviewconsole.policy.breaker import breaker_reason, breaker_trip, last_closed, open_breaker
from reviewconsole.policy.models import NamedConstitution, ReleaseBreaker
from reviewconsole.queues import enqueue_on_commit
from reviewconsole.review.labels import UNSAFE_LABELS
from reviewconsole.review.models import ClaimLabel, Escalation
from reviewconsole.support.safety import UnsafeReleaseRate, unsafe_release_rates, wilson_interval
from reviewconsole.webhooks.services import GATE_PAUSED, client_event_record
from verification import DEFAULT_CONSTITUTION


def spot_check_labelled_watch(sender: object, *, escalation: Escalation, now: datetime, **kwargs: object) -> None:
    """Receiver of review's `spot_check_labelled`: a worker checks the breaker of the spot check's constitution
    once the label is committed, so the reviewer's request never waits for the count."""
    from reviewconsole.support.tasks import breaker_check as check_task

    pin = escalation.case.constitution_pin
    name = pin.document.name if pin is not None else (escalation.case.constitution_name or DEFAULT_CONSTITUTION.name)
    enqueue_on_commit(check_task, name)


def breaker_check(*, constitution: str, now: datetime) -> list[ReleaseBreaker]:
    """Open the breaker of each stratum of the constitution's released answers (what their evidence was; the
    whole constitution's for answers without one) whose spot checks, since that breaker last closed, say they
    are unsafe beyond the budget; the breakers opened."""
    if not NamedConstitution.objects.filter(name=constitution).exists():
        return []  # cases older than versioned constitutions: nothing to stop
    # The spot checks of the last BREAKER_WINDOW_DAYS: what released answers are like now, not what they were
    # like before the sources or the model changed.
    window = now - timedelta(days=settings.BREAKER_WINDOW_DAYS)
    counts: dict[str, list[UnsafeReleaseRate]] = defaultdict(list)
    for row in unsafe_release_rates(since=window, until=now + timedelta(seconds=1), by_stratum=True):
        if row.constitution == constitution:
            counts[row.stratum or ""].append(row)
    opened = []
    for stratum in counts:
        closed = last_closed(constitution, stratum)
        if closed is not None and closed > window:
            # Only the spot checks drawn since this breaker last closed count for it.
            rows = [row for row in unsafe_release_rates(since=closed, until=now + timedelta(seconds=1),
                                                        by_stratum=True)
                    if row.constitution == constitution and (row.stratum or "") == stratum]
        else:
            rows = counts[stratum]
        breaker = _check(constitution, stratum, rows, since=max(closed, window) if closed else window, now=now)
        if breaker is not None:
            opened.append(breaker)
    return opened


def _check(constitution: str, stratum: str, rows: list[UnsafeReleaseRate], *, since: datetime,
           now: datetime) -> ReleaseBreaker | None:
    checked, unsafe = sum(row.spot_checks for row in rows), sum(row.unsafe for row in rows)
    budgets = [row.budget for row in rows if row.budget is not None]
    if not checked or not budgets or open_breaker(constitution, stratum) is not None:
        return None
    budget = min(budgets)
    low, high = wilson_interval(unsafe, checked)
    if low <= budget:
        return None
    labels = ClaimLabel.objects.filter(case__escalation__is_spot_check=True, case__escalation__created_at__gte=since,
                                       case__constitution_pin__document__name=constitution, label__in=UNSAFE_LABELS)
    if stratum:
        labels = labels.filter(case__run_record__release_stratum=stratum)
    evidence: dict[str, Any] = {
        "spot_checks": checked, "unsafe": unsafe, "estimate": round(unsafe / checked, 4),
        "interval": [round(low, 4), round(high, 4)], "budget": budget, "since": since.isoformat(),
        "unsafe_cases": sorted(set(labels.values_list("case_id", flat=True))),
    }
    breaker = breaker_trip(constitution=constitution, stratum=stratum, evidence=evidence, now=now)
    if breaker is not None:
        _tell_clients(constitution, breaker)
        _tell_policy_admins(constitution, breaker)
    return breaker


def _tell_clients(constitution: str, breaker: ReleaseBreaker) -> None:
    """A `gate.paused` event to each client with cases under the constitution, naming its own unsafe cases only."""
    evidence = breaker.evidence
    clients = Client.objects.filter(cases__constitution_pin__document__name=constitution).exclude(webhook_url="")
    for client in clients.distinct():
        own = list(client.cases.filter(pk__in=evidence["unsafe_cases"]).values("pk", "external_id"))
        client_event_record(client=client, event_type=GATE_PAUSED, payload={
            "constitution": constitution, "stratum": breaker.stratum or None,
            "opened_at": breaker.opened_at.isoformat(),
            "reason": breaker_reason(evidence),
            "spot_checks": evidence["spot_checks"], "unsafe": evidence["unsafe"], "interval": evidence["interval"],
            "budget": evidence["budget"],
            "unsafe_cases": [{"case_id": case["pk"], "external_id": case["external_id"]} for case in own],
        })


def _tell_policy_admins(constitution: str, breaker: ReleaseBreaker) -> None:
    base = settings.CONSOLE_BASE_URL.rstrip("/")
    cases = "\n".join(f"  {base}{reverse('audit:case', args=[pk])}"
                      for pk in breaker.evidence["unsafe_cases"][:50])
    gate = f"{base}{reverse('workbench:release_gate', args=[constitution])}"
    email_queue(kind=str(GATE_PAUSED), to=role_emails(Role.POLICY_ADMIN),
                subject=f"Releases of {breaker.scope} stopped: spot checks found them unsafe",
                body=(f"The release breaker of {breaker.scope} opened at {breaker.opened_at:%Y-%m-%d %H:%M} UTC: "
                      f"{breaker_reason(breaker.evidence)}.\n\nUntil a person closes it, every answer the engine would "
                      f"release goes to a reviewer instead. Recalibrate (a new threshold from the labels, or a "
                      f"stricter budget), publish it, then close the breaker on the release gate page:\n  {gate}\n\n"
                      f"The unsafe spot checks:\n{cases or '  (none named)'}\n"))

"""Metrics on a small dataset whose figures are known by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from reviewconsole.intake.models import Candidate, Case, Claim, RepairAttempt, RuleVerdict
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Decision, Escalation
from reviewconsole.support.metrics import metrics_report, percentile
from reviewconsole.support.templatetags.audit_extras import duration
from tests.reviewconsole.audit.test_pages import signed_in

DAY1 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY2 = DAY1 + timedelta(days=1)


def _case(client, *, status, terminal, reason, finished):
    return Case.objects.create(client=client, question="q", answer="a", status=status, terminal=terminal,
                               reason=reason, finished_at=finished)


def _candidate(case, position, states, *, origin="client", rules=None):
    candidate = Candidate.objects.create(case=case, position=position, candidate_id=f"c{position}", origin=origin,
                                         text=f"text {position}", sha256=f"{position:064d}")
    Claim.objects.bulk_create(
        Claim(candidate=candidate, position=i, claim_id=f"k{i}", text="t", start=0, end=1, state=state,
              severity="minor", method="m", confidence=1.0)
        for i, state in enumerate(states)
    )
    RuleVerdict.objects.bulk_create(
        RuleVerdict(candidate=candidate, position=i, rule=rule, passed=passed, checked_by="x")
        for i, (rule, passed) in enumerate((rules or {}).items())
    )
    return candidate


def _escalate(case, reason, opened, *, spot=False, decided=None):
    escalation = Escalation.objects.create(case=case, reason=reason, severity="minor", is_spot_check=spot,
                                           status="DECIDED" if decided else "OPEN", decided_at=decided)
    Escalation.objects.filter(pk=escalation.pk).update(created_at=opened)


def _decide(case, reviewer, kind, candidate):
    Decision.objects.create(case=case, reviewer=reviewer, kind=kind, candidate=candidate)


@pytest.fixture
def dataset(db, reviewer):
    client, _ = client_create(name="bot")
    # A: released by the engine, nobody looked.
    a = _case(client, status="RELEASED", terminal="PERMIT", reason="ALL_SUPPORTED", finished=DAY1)
    _candidate(a, 0, ["SUPPORTED", "SUPPORTED"])
    # B: released, spot-checked, approved unchanged after 60 s (agrees with the engine).
    b = _case(client, status="RELEASED", terminal="PERMIT", reason="ALL_SUPPORTED", finished=DAY1)
    b0 = _candidate(b, 0, ["SUPPORTED"])
    _escalate(b, "ALL_SUPPORTED", DAY1, spot=True, decided=DAY1 + timedelta(seconds=60))
    _decide(b, reviewer, "APPROVE", b0)
    # C: one refuted claim, a repair that removed one supported claim, rejected after 120 s (agrees).
    c = _case(client, status="REJECTED", terminal="REVIEW", reason="UNSUPPORTED_CLAIM", finished=DAY1)
    c0 = _candidate(c, 0, ["REFUTED", "SUPPORTED"])
    c1 = _candidate(c, 1, ["SUPPORTED"], origin="repair", rules={"cite-sources": False, "tone": True})
    RepairAttempt.objects.create(case=c, position=0, from_candidate=c0.candidate_id, to_candidate="c1",
                                 operation="OMIT_CLAIM", outcome="ACCEPTED", supported_removed=1)
    RepairAttempt.objects.create(case=c, position=1, from_candidate="c1", operation="OMIT_CLAIM",
                                 outcome="REJECTED", supported_removed=0)
    _escalate(c, "UNSUPPORTED_CLAIM", DAY1, decided=DAY1 + timedelta(seconds=120))
    _decide(c, reviewer, "REJECT", c1)
    # D: one claim lacking evidence, approved unchanged after 600 s (disagrees with the escalation).
    d = _case(client, status="RELEASED", terminal="REVIEW", reason="UNSUPPORTED_CLAIM", finished=DAY2)
    d0 = _candidate(d, 0, ["INSUFFICIENT_EVIDENCE"], rules={"cite-sources": True})
    _escalate(d, "UNSUPPORTED_CLAIM", DAY2, decided=DAY2 + timedelta(seconds=600))
    _decide(d, reviewer, "APPROVE", d0)
    # E: critical, still open.
    e = _case(client, status="ESCALATED", terminal="REVIEW", reason="CRITICAL_CLAIM", finished=DAY2)
    _candidate(e, 0, ["UNRESOLVED"])
    _escalate(e, "CRITICAL_CLAIM", DAY2)
    # Outside the period: must not count.
    late = _case(client, status="ESCALATED", terminal="REVIEW", reason="CRITICAL_CLAIM", finished=DAY2 + timedelta(9))
    _candidate(late, 0, ["REFUTED"])
    _escalate(late, "CRITICAL_CLAIM", DAY2 + timedelta(days=9))


PERIOD = {"since": DAY1.replace(hour=0), "until": DAY1.replace(hour=0) + timedelta(days=2)}


@pytest.mark.parametrize(("seconds", "words"), [(None, "—"), (45, "45 s"), (720, "12 min"), (12_600, "3.5 h")])
def test_durations_read_in_words(seconds, words):
    assert duration(seconds) == words


def test_percentile_is_nearest_rank():
    assert percentile([], 0.5) is None
    assert percentile([600, 60, 120], 0.5) == 120
    assert percentile([600, 60, 120], 0.9) == 600
    assert percentile(list(range(1, 11)), 0.9) == 9


@pytest.mark.django_db
def test_metrics_figures(dataset):
    report = metrics_report(**PERIOD)
    assert report.days == [DAY1.date(), DAY2.date()]
    assert report.escalations_by_day == {"CRITICAL_CLAIM": [0, 1], "UNSUPPORTED_CLAIM": [1, 1]}
    assert (report.cases_finished, report.cases_automated, report.automation_rate) == (5, 2, 0.4)
    assert (report.decision_seconds_median, report.decision_seconds_p90, report.decisions) == (120, 600, 3)
    assert [(a.key, a.label, a.decided, a.agreed) for a in report.agreement_by_reason] == [
        ("ALL_SUPPORTED (spot check)", "All claims supported (spot check)", 1, 1),
        ("UNSUPPORTED_CLAIM", "Unsupported claim", 2, 1),
    ]
    # Only C's engine answer failed a rule (cite-sources), and the reviewer rejected it; D's passed rule and C's
    # passed tone rule say nothing about those decisions.
    assert [(a.key, a.decided, a.agreed) for a in report.agreement_by_rule] == [("cite-sources", 1, 1)]
    assert report.unsupported_claims_caught == 3
    assert report.supported_claims_removed == 1


@pytest.mark.django_db
def test_metrics_page_shows_charts_and_the_same_numbers_as_tables(client, support_lead, dataset):
    response = signed_in(client, support_lead).get(reverse("audit:metrics"), {"since": "2026-03-02",
                                                                              "until": "2026-03-03"})
    html = response.content.decode()
    assert response.status_code == 200
    # Three charts of the period, besides the weekly ones (test_metrics_trends.py).
    assert html.count("<svg viewBox") - html.count('aria-labelledby="trend-') == 3
    assert "2026-03-03: 1 Critical claim not supported" in html
    assert "CRITICAL_CLAIM<" not in html and "UNSUPPORTED_CLAIM<" not in html  # codes only in titles
    assert '<th scope="col" title="UNSUPPORTED_CLAIM">Unsupported claim</th>' in html
    assert '<dd id="automation-rate">40%</dd>' in html
    assert "median 2 min · p90 10 min" in html
    assert '<dd id="claims-caught">3</dd>' in html and '<dd id="claims-removed">1</dd>' in html
    assert '<tr><td title="UNSUPPORTED_CLAIM">Unsupported claim</td><td>2</td><td>1</td><td>50%</td></tr>' in html
    assert "<tr><td>cite-sources</td><td>1</td><td>1</td><td>100%</td></tr>" in html and "<td>tone</td>" not in html
    assert '<th scope="col">Cases where it failed</th><th scope="col">Reviewer upheld it</th>' in html
    assert "<tr><td>2026-03-03</td><td>1</td><td>1</td><td>2</td></tr>" in html


@pytest.mark.django_db
def test_a_decision_counts_only_for_the_rules_that_failed_on_the_answer(reviewer):
    client, _ = client_create(name="bot")
    # X: tone passed, cite-sources failed, rejected: the rejection upholds cite-sources and says nothing of tone.
    x = _case(client, status="REJECTED", terminal="REVIEW", reason="RULE_FAILED", finished=DAY1)
    x0 = _candidate(x, 0, ["SUPPORTED"], rules={"tone": True, "cite-sources": False})
    _escalate(x, "RULE_FAILED", DAY1, decided=DAY1 + timedelta(seconds=30))
    _decide(x, reviewer, "REJECT", x0)
    # Y: cite-sources failed, approved unchanged: the reviewer overruled it.
    y = _case(client, status="RELEASED", terminal="REVIEW", reason="RULE_FAILED", finished=DAY1)
    y0 = _candidate(y, 0, ["SUPPORTED"], rules={"cite-sources": False})
    _escalate(y, "RULE_FAILED", DAY1, decided=DAY1 + timedelta(seconds=30))
    _decide(y, reviewer, "APPROVE", y0)
    # Z: tone failed, the reviewer edited the answer and approved the edit: tone upheld.
    z = _case(client, status="RELEASED", terminal="REVIEW", reason="RULE_FAILED", finished=DAY1)
    _candidate(z, 0, ["SUPPORTED"], rules={"tone": False})
    z1 = _candidate(z, 1, ["SUPPORTED"], origin="REVIEWER")
    _escalate(z, "RULE_FAILED", DAY1, decided=DAY1 + timedelta(seconds=30))
    _decide(z, reviewer, "APPROVE", z1)

    report = metrics_report(**PERIOD)

    # Counting every judged rule against every decision made tone (2 decided, 1 agreed): X's rejection was
    # not about tone, which passed there.
    assert [(a.key, a.decided, a.agreed) for a in report.agreement_by_rule] == [("cite-sources", 2, 1), ("tone", 1, 1)]

"""Rule health: failures, non-convergence and reviewer overrides per rule, from stored runs and decisions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from reviewconsole.intake.models import Candidate, Case, RuleVerdict
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Decision, DecisionKind
from reviewconsole.workbench.rule_health import rule_health

pytestmark = pytest.mark.django_db


def _case(client, name: str, verdicts: dict[str, bool], *, non_converging=(), override: str = "",
          reviewer: User | None = None) -> Case:
    case = Case.objects.create(client=client, question="q", answer="a", constitution_name=name,
                               run_record={"non_converging_rules": list(non_converging)})
    candidate = Candidate.objects.create(case=case, position=0, candidate_id="c0", origin="CLIENT", text="a",
                                         sha256="0" * 64)
    for position, (rule, passed) in enumerate(verdicts.items()):
        RuleVerdict.objects.create(candidate=candidate, position=position, rule=rule, passed=passed, checked_by="code")
    if reviewer is not None:
        Decision.objects.create(case=case, reviewer=reviewer, kind=DecisionKind.APPROVE, candidate=candidate,
                                override_reason=override)
    return case


@pytest.fixture
def runs(db, reviewer):
    client, _ = client_create(name="support-bot")
    _case(client, "customer-support", {"word-limit": False, "answers-the-question": False},
          non_converging=["answers-the-question"], override="The customer needs the long version.", reviewer=reviewer)
    _case(client, "customer-support", {"word-limit": True, "answers-the-question": False},
          non_converging=["answers-the-question"])
    _case(client, "customer-support", {"word-limit": True, "answers-the-question": True}, reviewer=reviewer)
    _case(client, "", {"word-limit": False})


def test_each_rule_counts_failures_non_convergence_and_overrides(runs):
    rows = {(row.constitution, row.rule): row for row in rule_health()}

    judged = rows[("customer-support", "answers-the-question")]
    assert (judged.cases, judged.failed, judged.not_converging, judged.overridden) == (3, 2, 2, 1)
    limit = rows[("customer-support", "word-limit")]
    assert (limit.cases, limit.failed, limit.not_converging, limit.overridden) == (3, 1, 0, 1)
    # An unnamed case ran under "default".
    assert rows[("default", "word-limit")].failed == 1
    assert [row.constitution for row in rule_health(constitution="default")] == ["default"]


def test_the_page_shows_the_moving_bar(admin_client, runs):
    html = admin_client.get("/policy/rule-health/?constitution=customer-support").content.decode()

    row = html.split('data-rule="customer-support/answers-the-question"')[1].split("</tr>")[0]
    assert '<td class="failed">2 (67%)</td>' in row and '<td class="not-converging">2 (67%)</td>' in row
    assert '<td class="overridden">1</td>' in row
    assert 'data-rule="default/word-limit"' not in html


def test_a_rule_never_checked_is_not_counted_as_judged_and_passed(admin_client, reviewer):
    client, _ = client_create(name="support-bot")
    # "answers-the-question" needs a model to judge it; none was configured for these two runs.
    _case(client, "customer-support", {"word-limit": True, "answers-the-question": None})
    _case(client, "customer-support", {"word-limit": False, "answers-the-question": None})
    _case(client, "customer-support", {"word-limit": True, "answers-the-question": False})

    rows = {row.rule: row for row in rule_health(constitution="customer-support")}
    judged = rows["answers-the-question"]
    assert (judged.cases, judged.failed, judged.not_checked) == (1, 1, 2)
    assert (rows["word-limit"].cases, rows["word-limit"].not_checked) == (3, 0)

    html = admin_client.get("/policy/rule-health/?constitution=customer-support").content.decode()
    row = html.split('data-rule="customer-support/answers-the-question"')[1].split("</tr>")[0]
    assert '<td class="judged">1</td>' in row and '<td class="failed">1 (100%)</td>' in row
    assert '<td class="not-checked">2 ' in row


def test_a_rule_never_checked_anywhere_shows_no_fail_rate(admin_client, reviewer):
    client, _ = client_create(name="support-bot")
    for _ in range(9):
        _case(client, "customer-support", {"answers-the-question": None})

    html = admin_client.get("/policy/rule-health/?constitution=customer-support").content.decode()
    row = html.split('data-rule="customer-support/answers-the-question"')[1].split("</tr>")[0]
    assert '<td class="judged">0</td>' in row and '<td class="not-checked">9 ' in row
    assert "0 (0%)" not in row.split('class="not-converging"')[0]  # not "judged, 0 failed"

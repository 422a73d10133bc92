"""Cases older than their pinned constitution's review deadline: marked overdue in the queue, filterable,
and paged through like any other filter."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.review.models import Escalation
from reviewconsole.review.services.queue_counts import queue_counts_rebuild
from tests.reviewconsole.review.conftest import EARNINGS_CASE, default_policy_publish
from tests.reviewconsole.review.test_queue_paging import open_page, walk

pytestmark = pytest.mark.django_db


def _age(case: Case, hours: float) -> None:
    Escalation.objects.filter(case=case).update(created_at=timezone.now() - timedelta(hours=hours))


def _row(html: str, case: Case) -> str:
    found = re.search(rf'<tr data-queue-row>\s*<td><a class="open-case" href="/review/cases/{case.pk}/">.*?</tr>',
                      html, re.S)
    assert found, f"case {case.pk} is not listed"
    return found.group(0)


@pytest.fixture
def deadline_cases(escalate):
    """Under a 24-hour deadline: one case 30 hours old, one an hour old. And one 100 hours old pinned to
    the built-in version, which sets no deadline."""
    no_deadline = escalate(EARNINGS_CASE)
    default_policy_publish(review_deadline_hours=24)
    late, fresh = escalate(), escalate(external_id="ticket-2")
    _age(late, 30), _age(fresh, 1), _age(no_deadline, 100)
    assert late.constitution_pin != no_deadline.constitution_pin
    return late, fresh, no_deadline


def test_cases_past_their_deadline_are_marked_overdue(client, reviewer, deadline_cases):
    late, fresh, no_deadline = deadline_cases
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()

    assert '<span class="tag overdue">overdue</span>' in _row(html, late)
    assert "overdue" not in _row(html, fresh) and "overdue" not in _row(html, no_deadline)


def test_the_overdue_filter_lists_only_overdue_cases(client, reviewer, deadline_cases):
    late, _fresh, _ = deadline_cases
    client.force_login(reviewer)

    page = open_page(client, "/review/?overdue=1")

    assert page.status == 200 and page.cases == [late.pk]
    assert "1 of 1 open case" in page.html
    assert '<option value="1" selected>Overdue only</option>' in page.html
    # With the other filters, and counted per reason the same way.
    assert open_page(client, "/review/?overdue=1&severity=MINOR").cases == []
    assert re.search(r'All reasons <span class="count">1</span>', page.html)


def test_a_deadline_is_measured_at_the_time_of_asking(client, reviewer, deadline_cases):
    _late, fresh, _ = deadline_cases
    client.force_login(reviewer)
    assert fresh.pk not in open_page(client, "/review/?overdue=1").cases

    _age(fresh, 24.01)

    assert fresh.pk in open_page(client, "/review/?overdue=1").cases


def test_with_no_deadline_anywhere_nothing_is_overdue(client, reviewer, escalate):
    case = escalate()
    _age(case, 24 * 365)
    client.force_login(reviewer)

    html = client.get("/review/?overdue=1").content.decode()

    assert "No open case matches these filters." in html
    assert "overdue</span>" not in client.get("/review/").content.decode()


def test_paging_through_overdue_cases_visits_each_once_in_order(client, reviewer, escalate, monkeypatch):
    monkeypatch.setattr("reviewconsole.review.queue.QUEUE_PAGE_SIZE", 4)
    default_policy_publish(review_deadline_hours=24)
    first = escalate()
    version = constitution_in_force("default")
    cases = [first, *Case.objects.bulk_create(
        Case(client_id=first.client_id, question=f"question {n}", status=first.status, constitution_pin=version)
        for n in range(20)
    )]
    Escalation.objects.filter(case=first).delete()
    Escalation.objects.bulk_create(
        Escalation(case=case, reason="CRITICAL_CLAIM", severity="CRITICAL", priority=350) for case in cases
    )
    queue_counts_rebuild()  # rows written directly, as a seed writes them: counted again, as after a seed
    # Every third case is overdue; ages strictly increase along the list, so the oldest comes first.
    for n, case in enumerate(cases):
        _age(case, (30 if n % 3 == 0 else 1) + (len(cases) - n) / 1000)
    overdue = [case.pk for n, case in enumerate(cases) if n % 3 == 0]
    client.force_login(reviewer)

    pages = walk(client, "/review/?overdue=1")

    assert [case for page in pages for case in page.cases] == overdue
    assert [len(page.cases) for page in pages] == [4, 3]
    assert all("overdue=1" in page.next for page in pages[:-1])
    back = open_page(client, pages[-1].previous)
    assert back.cases == pages[0].cases

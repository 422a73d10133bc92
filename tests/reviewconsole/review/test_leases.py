"""Next case and leases: two reviewers never hold the same case, and expired leases free the case."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.review import services
from reviewconsole.review.models import Escalation
from tests.reviewconsole.review.conftest import EARNINGS_CASE

pytestmark = pytest.mark.django_db


@pytest.fixture
def second_reviewer(db) -> User:
    user = User.objects.create_user(username="ravi", password="ravi-password")
    user.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    return user


def test_next_case_claims_the_top_case_and_opens_it(client, reviewer, escalate):
    low, high = escalate(), escalate(EARNINGS_CASE)
    Escalation.objects.filter(case=high).update(priority=999)
    client.force_login(reviewer)

    response = client.post("/review/next")

    assert response.status_code == 302 and response["Location"] == f"/review/cases/{high.pk}/"
    escalation = Escalation.objects.get(case=high)
    assert escalation.holder == reviewer and escalation.lease_expires_at > timezone.now()
    assert Escalation.objects.get(case=low).holder is None


def test_two_reviewers_never_get_the_same_case(reviewer, second_reviewer, escalate):
    escalate(), escalate(EARNINGS_CASE)
    now = timezone.now()

    first = services.escalation_claim_next(reviewer=reviewer, now=now)
    second = services.escalation_claim_next(reviewer=second_reviewer, now=now)
    third = services.escalation_claim_next(reviewer=User.objects.create_user("x"), now=now)

    assert first.pk != second.pk and third is None
    # Pressing n again while holding a case returns the same case, not a second one.
    assert services.escalation_claim_next(reviewer=reviewer, now=now).pk == first.pk


def test_an_expired_lease_returns_the_case_to_the_queue(reviewer, second_reviewer, escalate):
    escalate()
    now = timezone.now()
    held = services.escalation_claim_next(reviewer=reviewer, now=now)
    assert services.escalation_claim_next(reviewer=second_reviewer, now=now) is None

    later = held.lease_expires_at + timedelta(seconds=1)
    taken = services.escalation_claim_next(reviewer=second_reviewer, now=later)

    assert taken.pk == held.pk
    assert Escalation.objects.get(pk=held.pk).holder == second_reviewer
    # The first reviewer's renewal now fails: the case is someone else's.
    assert not services.escalation_lease_renew(escalation=held, reviewer=reviewer, now=later)


def test_empty_queue_says_so(client, reviewer):
    client.force_login(reviewer)
    response = client.post("/review/next", follow=True)
    assert response.redirect_chain == [("/review/", 302)]
    assert "No case is waiting" in response.content.decode()


def test_case_page_renews_the_lease_by_htmx(client, reviewer, second_reviewer, escalate, settings):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")
    Escalation.objects.filter(case=case).update(lease_expires_at=timezone.now() + timedelta(seconds=5))

    response = client.post(f"/review/cases/{case.pk}/lease", headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<div id="lease"')
    remaining = Escalation.objects.get(case=case).lease_expires_at - timezone.now()
    assert remaining > timedelta(seconds=settings.REVIEW_LEASE_SECONDS - 5)

    client.force_login(second_reviewer)
    refused = client.post(f"/review/cases/{case.pk}/lease", headers={"HX-Request": "true"})
    assert refused.status_code == 409 and "Held by rita" in refused.content.decode()
    assert client.post(f"/review/cases/{case.pk}/lease", {"take": "1"}).status_code == 302
    assert Escalation.objects.get(case=case).holder == reviewer
    assert client.get(f"/review/cases/{case.pk}/lease").status_code == 405


def test_release_puts_the_case_back(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)
    client.post("/review/next")

    response = client.post(f"/review/cases/{case.pk}/release")

    assert response.status_code == 302 and response["Location"] == "/review/"
    assert Escalation.objects.get(case=case).holder is None


@pytest.mark.django_db(transaction=True)
def test_postgres_skips_a_case_another_reviewer_is_claiming(reviewer, second_reviewer, webhook_client):
    """While one transaction holds the top row locked, a second claim takes the next row at once."""
    from django.db import connection, transaction

    if not connection.features.has_select_for_update_skip_locked:
        pytest.skip("SKIP LOCKED is PostgreSQL's; SQLite claims with a conditional UPDATE instead")
    from tests.reviewconsole.review.conftest import escalate_case, refund_case

    top, second = escalate_case(webhook_client, refund_case()), escalate_case(webhook_client, EARNINGS_CASE)
    Escalation.objects.filter(case=top).update(priority=999)
    claimed: list[Escalation | None] = []

    def claim_elsewhere() -> None:
        try:
            claimed.append(services.escalation_claim_next(reviewer=second_reviewer, now=timezone.now()))
        finally:
            connection.close()

    with transaction.atomic():
        Escalation.objects.select_for_update().get(case=top)  # a first reviewer's claim, mid-transaction
        worker = threading.Thread(target=claim_elsewhere)
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive(), "the second claim waited for the lock instead of skipping the row"

    assert claimed[0].case_id == second.pk


@pytest.mark.django_db(transaction=True)
def test_one_reviewer_pressing_next_case_twice_at_once_holds_one_case(reviewer, webhook_client):
    """Two "Next case" requests from one reviewer race; the database lets only one of them claim."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a race needs two connections; SQLite serialises writers anyway")
    from tests.reviewconsole.review.conftest import escalate_case, refund_case

    cases = [escalate_case(webhook_client, refund_case(external_id=f"race-{n}")) for n in range(3)]
    def press_next(start: threading.Barrier, claimed: list[int]) -> None:
        try:
            start.wait(timeout=10)
            escalation = services.escalation_claim_next(reviewer=reviewer, now=timezone.now())
            claimed.append(escalation.case_id)
        finally:
            connection.close()

    for trial in range(15):
        Escalation.objects.filter(case__in=cases).update(holder=None, lease_expires_at=None)
        start = threading.Barrier(2)
        claimed: list[int] = []
        presses = [threading.Thread(target=press_next, args=(start, claimed)) for _ in range(2)]
        for press in presses:
            press.start()
        for press in presses:
            press.join(timeout=20)

        held = Escalation.objects.filter(holder=reviewer, lease_expires_at__gt=timezone.now())
        assert held.count() == 1, f"trial {trial}: the reviewer holds {held.count()} cases"
        assert claimed[0] == claimed[1] == held.get().case_id


def test_taking_another_case_gives_back_the_one_held(reviewer, escalate):
    escalate(), escalate(EARNINGS_CASE)
    now = timezone.now()
    held = services.escalation_claim_next(reviewer=reviewer, now=now)
    other = Escalation.objects.exclude(pk=held.pk).get()

    assert services.escalation_lease_take(escalation=other, reviewer=reviewer, now=now)

    assert [e.pk for e in Escalation.objects.filter(holder=reviewer, lease_expires_at__gt=now)] == [other.pk]
    held.refresh_from_db()
    assert held.holder is None  # back in the queue for anyone

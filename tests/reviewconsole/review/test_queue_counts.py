"""The queue's counts per reason: kept by the services that open and close escalations, exact on the page,
safe under concurrent changes, filled by the migration, checked and rebuilt by `manage.py queue_counts`;
counted up to a cap under the filters they have no column for (the queue's other tests: test_queue)."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.review import queue_counts
from reviewconsole.review.models import Escalation, EscalationStatus, QueueCount
from reviewconsole.review.queue_counts import Tally, kept_counts, queue_counts_drift
from reviewconsole.review.services import decision_approve, decision_reject, escalation_lease_take
from reviewconsole.review.services import queue_counts as queue_count_services
from reviewconsole.review.services.queue_counts import queue_count_move
from reviewconsole.review.templatetags.review_extras import label
from tests.reviewconsole.review.conftest import default_policy_publish, gate_record, latest
from verification import Reason, Terminal

pytestmark = pytest.mark.django_db


def _chips(html: str) -> dict[str, str]:
    """The reason filter's choices as the page shows them: label -> count ("" where none is shown)."""
    nav = re.search(r'<nav class="reason-counts".*?</nav>', html, re.S).group(0)
    return {
        label.strip(): count
        for label, count in re.findall(r'>([^<>]+?)(?: <span class="count">([\d,+]+)</span>)?</a>', nav)
    }


def _queue_counted(**filters: object) -> Counter[str]:
    """A fresh count of the open queue per reason, spot checks apart (they are reviewed blind, under no
    reason): what the page must agree with."""
    open_cases = Escalation.objects.filter(status=EscalationStatus.OPEN, **filters)
    return Counter("Spot checks" if is_spot_check else label(reason)
                   for reason, is_spot_check in open_cases.values_list("reason", "is_spot_check"))


def _page_agrees_with_a_count_of_the_queue(http) -> dict[str, str]:
    for query, filters in (("", {}), ("?severity=CRITICAL", {"severity": "CRITICAL", "is_spot_check": False}),
                           ("?spot_check=only", {"is_spot_check": True})):
        counted = _queue_counted(**filters)
        expected = {reason: str(n) for reason, n in counted.items()}
        expected["All reasons"] = str(sum(counted.values()))
        assert _chips(http.get(f"/review/{query}").content.decode()) == expected, query
    assert queue_counts_drift() == {}
    return _chips(http.get("/review/").content.decode())


def _decide(case: Case, reviewer, kind: str) -> None:
    """Approve or reject as `reviewer`, taking the case first when it is open (only its holder decides it)."""
    escalation_lease_take(escalation=case.escalation, reviewer=reviewer, now=timezone.now())
    candidate = latest(case)
    version = {"escalation_id": case.escalation.pk, "reviewer": reviewer, "candidate_id": candidate.candidate_id,
               "sha256": candidate.sha256, "now": timezone.now()}
    if kind == "approve":
        decision_approve(**version, override_reason="Checked against the sources by hand.")
    else:
        decision_reject(**version, reason_code="WRONG_FACTS", note="Contradicts the source.")


def test_the_page_counts_what_a_count_of_the_queue_finds_as_cases_open_review_and_close(
    client, reviewer, second_reviewer, lead, escalate, run_as_engine
):
    # Critical claims are double-reviewed; every released answer is spot-checked.
    default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"], spot_check_share=1.0)
    agreed, disputed = escalate(), escalate(external_id="ticket-2")  # the refund case: a critical claim
    conflicting = run_as_engine(gate_record().model_copy(update={"reason": Reason.CONFLICTING_EVIDENCE}))
    held_back = run_as_engine(gate_record(), external_id="plans-2")
    released = run_as_engine(gate_record(support_score=0.95).model_copy(
        update={"terminal": Terminal.PERMIT, "reason": Reason.ALL_SUPPORTED}), external_id="plans-3")
    assert released.escalation.is_spot_check
    client.force_login(reviewer)

    assert _page_agrees_with_a_count_of_the_queue(client) == {
        "All reasons": "5", "Critical claim not supported": "2", "Conflicting evidence": "1",
        "Below the release threshold": "1", "Spot checks": "1",
    }

    _decide(conflicting, reviewer, "approve")  # one review decides it
    _decide(agreed, reviewer, "approve")  # the first of two reviews: the case goes back to the queue
    _decide(disputed, reviewer, "approve")
    assert _page_agrees_with_a_count_of_the_queue(client)["Critical claim not supported"] == "2"

    _decide(agreed, second_reviewer, "approve")  # the reviews agree: decided
    _decide(disputed, second_reviewer, "reject")  # they disagree: a review lead's, out of the queue
    assert Escalation.objects.get(case=disputed).status == EscalationStatus.ADJUDICATION
    assert _page_agrees_with_a_count_of_the_queue(client) == {
        "All reasons": "2", "Below the release threshold": "1", "Spot checks": "1",
    }

    _decide(disputed, lead, "reject")  # adjudicated: it had left the queue already
    _decide(released, reviewer, "approve")
    assert _page_agrees_with_a_count_of_the_queue(client) == {"All reasons": "1", "Below the release threshold": "1"}
    _decide(held_back, reviewer, "reject")
    assert _page_agrees_with_a_count_of_the_queue(client) == {"All reasons": "0"}
    assert "No open case matches these filters." in client.get("/review/").content.decode()


def test_a_decision_rolled_back_leaves_the_count_as_it_was(reviewer, escalate):
    case = escalate()

    with pytest.raises(RuntimeError), transaction.atomic():
        _decide(case, reviewer, "reject")
        assert kept_counts() == []  # inside the transaction, the case has left the queue
        raise RuntimeError("the request failed after the decision")

    assert kept_counts() == [("CRITICAL_CLAIM", Tally(1))]


@pytest.mark.django_db(transaction=True)
def test_two_transactions_adding_to_the_same_count_both_count(monkeypatch):
    """The second adds while the first, which added before it, has not committed yet: it waits for the
    row, then adds to what the first wrote. A read-then-write would lose one of the two."""
    monkeypatch.setattr(queue_count_services, "SHARDS", 1)  # both on one row: the case sharding makes rare
    opened = Escalation(reason="CRITICAL_CLAIM", severity="CRITICAL", status=EscalationStatus.OPEN)
    with transaction.atomic():
        queue_count_move(escalation=opened, from_status=None)  # the row exists: both will update it
    first_added, second_started = threading.Event(), threading.Event()
    waited: list[float] = []

    def first() -> None:
        try:
            with transaction.atomic():
                queue_count_move(escalation=opened, from_status=None)
                first_added.set()
                second_started.wait(5)
                time.sleep(0.3)  # the second is blocked on the row meanwhile
        finally:
            connection.close()

    def second() -> None:
        try:
            first_added.wait(5)
            second_started.set()
            started = time.monotonic()
            with transaction.atomic():
                queue_count_move(escalation=opened, from_status=None)
            waited.append(time.monotonic() - started)
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)

    assert waited and waited[0] >= 0.2, "the two transactions did not overlap"
    assert kept_counts() == [("CRITICAL_CLAIM", Tally(3))]
    assert QueueCount.objects.count() == 1


def test_changes_that_do_not_enter_or_leave_the_queue_count_nothing(escalate):
    escalation = escalate().escalation
    with transaction.atomic():
        queue_count_move(escalation=escalation, from_status=EscalationStatus.OPEN)  # open, still open
        escalation.status = EscalationStatus.DECIDED
        queue_count_move(escalation=escalation, from_status=EscalationStatus.ADJUDICATION)

    assert kept_counts() == [("CRITICAL_CLAIM", Tally(1))]


@pytest.mark.django_db(transaction=True)
def test_the_migration_counts_the_escalations_already_open(escalate, reviewer):
    open_case, decided = escalate(), escalate(external_id="ticket-2")
    _decide(decided, reviewer, "approve")
    executor = MigrationExecutor(connection)
    executor.migrate([("review", "0006_double_review_labels_assignment")])
    executor.loader.build_graph()

    try:
        executor.migrate([("review", "0007_queue_counts")])

        assert kept_counts() == [("CRITICAL_CLAIM", Tally(1))]
        assert queue_counts_drift() == {}
        # Only the columns 0007 has: later migrations add more to the model.
        open_ids = Escalation.objects.filter(status=EscalationStatus.OPEN).values_list("case_id", flat=True)
        assert list(open_ids) == [open_case.pk]
    finally:
        # Back to the newest schema, for the tests that follow in this database.
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_command_finds_counts_gone_wrong_and_rebuilds_them(escalate, capsys):
    case = escalate()
    # Written around the services, as old code still running during a deploy would.
    Escalation.objects.filter(case=case).update(severity="MINOR")
    with pytest.raises(CommandError) as failed:
        call_command("queue_counts")
    assert "CRITICAL_CLAIM / CRITICAL: kept 1, counted 0" in str(failed.value)
    assert "CRITICAL_CLAIM / MINOR: kept 0, counted 1" in str(failed.value)

    call_command("queue_counts", "--rebuild")
    call_command("queue_counts")

    assert capsys.readouterr().out.splitlines() == [
        "queue counts rebuilt: 1 open cases; 2 counts were off", "queue counts exact",
    ]
    assert kept_counts(severity="MINOR") == [("CRITICAL_CLAIM", Tally(1))]


# --- Under the filters the kept counts have no column for: counted when the page loads, up to a cap ------


@pytest.fixture
def three_open(escalate) -> list[Case]:
    return [escalate(), escalate(external_id="ticket-2"), escalate(external_id="ticket-3")]


def test_few_matching_cases_are_counted_exactly_per_reason(client, reviewer, three_open):
    client.force_login(reviewer)
    client.post("/review/next")  # the reviewer now holds one case

    held = client.get("/review/?held=me").content.decode()
    free = client.get("/review/?held=none").content.decode()

    assert _chips(held) == {"All reasons": "1", "Critical claim not supported": "1"}
    assert _chips(free) == {"All reasons": "2", "Critical claim not supported": "2"}
    assert "2 of 2 open cases" in free and 'id="count-cap"' not in free


def test_more_matching_cases_than_the_cap_are_shown_as_at_least_and_not_per_reason(
    client, reviewer, three_open, monkeypatch
):
    monkeypatch.setattr(queue_counts, "COUNT_CAP", 2)
    monkeypatch.setattr("reviewconsole.review.queue.QUEUE_PAGE_SIZE", 1)  # a page is shorter than the cap
    client.force_login(reviewer)

    html = client.get("/review/?held=none").content.decode()

    assert _chips(html) == {"All reasons": "2+", "Critical claim not supported": ""}
    assert "1 of 2+ open cases" in html
    assert "More than 2 open cases match these filters: they are counted up to 2, and not per reason." in html
    # With a reason chosen too, that reason is counted, still up to the cap.
    assert "1 of 2+ open cases" in client.get("/review/?held=none&reason=CRITICAL_CLAIM").content.decode()
    # Without a filter the kept counts answer, exactly, whatever the cap.
    assert _chips(client.get("/review/").content.decode()) == {"All reasons": "3", "Critical claim not supported": "3"}


def test_counts_above_a_thousand_are_written_with_a_separator():
    assert (str(Tally(12_345)), str(Tally(1_000, at_least=True)), str(Tally(7))) == ("12,345", "1,000+", "7")

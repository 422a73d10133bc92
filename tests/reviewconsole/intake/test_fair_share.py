"""Where a case waits in the verify queue: at a priority that falls as its client's backlog grows, the same
whether it is sent at the submission or by the sweeper (tests/reviewconsole/outbox: the relay keeps it)."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from reviewconsole.intake import fair_share
from reviewconsole.intake.models import Case, CaseStatus
from reviewconsole.intake.services import case_runs_sweep
from reviewconsole.outbox.models import Message
from tests.reviewconsole.api.conftest import case_body, post_case

pytestmark = pytest.mark.django_db(transaction=True)

SEPARATOR = "\x06\x16"  # kombu's Redis transport names the list of priority p of queue q "q" + SEPARATOR + "p"


def _list(priority: int) -> str:
    return "verify" if priority == 0 else f"verify{SEPARATOR}{priority}"


def _waiting(redis_url: str) -> dict[int, list[int]]:
    """Per priority, the case ids waiting in the verify queue, oldest (the next a worker takes) first."""
    connection = redis.Redis.from_url(redis_url)
    try:
        waiting = {}
        for priority in range(10):
            # Messages are pushed on the left and taken from the right.
            messages = [json.loads(raw) for raw in reversed(connection.lrange(_list(priority), 0, -1))]
            if messages:
                waiting[priority] = [json.loads(base64.b64decode(message["body"]))[0][0] for message in messages]
        return waiting
    finally:
        connection.close()


def _submit(http, api, external_id: str) -> int:
    response = post_case(http, api, case_body(external_id=external_id))
    assert response.status_code == 202, response.content
    return response.json()["id"]


@pytest.mark.parametrize(
    ("backlog", "priority"),
    [(0, 0), (1, 1), (2, 1), (3, 2), (6, 2), (7, 3), (14, 3), (15, 4), (510, 8), (511, 9), (100_000, 9)],
)
def test_the_priority_falls_one_step_each_time_the_backlog_doubles(backlog, priority):
    assert fair_share.priority_for_backlog(backlog) == priority


def test_a_clients_cases_go_lower_as_its_backlog_grows_and_another_clients_first_case_goes_first(
    client, api_client, other_api_client, live_broker
):
    flood = [_submit(client, api_client, f"flood-{number}") for number in range(8)]
    single = _submit(client, other_api_client, "single")

    assert _waiting(live_broker) == {
        0: [flood[0], single],
        1: flood[1:3],
        2: flood[3:7],
        3: flood[7:],
    }
    assert list(Message.objects.order_by("id").values_list("priority", flat=True)) == [0, 1, 1, 2, 2, 2, 2, 3, 0]


def test_a_finished_case_sets_its_clients_count_to_what_the_database_holds(client, api_client, live_broker):
    cases = [_submit(client, api_client, f"case-{number}") for number in range(4)]
    # Drifted: as if two submissions counted and then rolled back.
    redis.Redis.from_url(live_broker).incrby(f"reviewconsole:backlog:{api_client.client.pk}", 2)
    Case.objects.filter(pk__in=cases[:3]).update(status=CaseStatus.RELEASED)

    assert fair_share.backlog_recount(client_id=api_client.client.pk) == 1

    later = _submit(client, api_client, "later")
    assert Message.objects.get(args=[later]).priority == fair_share.priority_for_backlog(1)


def test_the_sweeper_sends_a_stranded_case_again_at_its_clients_priority_without_counting_it_twice(
    client, api_client, other_api_client, live_broker
):
    flood = [_submit(client, api_client, f"flood-{number}") for number in range(5)]
    single = _submit(client, other_api_client, "single")
    Message.objects.all().delete()
    redis.Redis.from_url(live_broker).flushdb()  # the messages are lost, and so are the counts
    fair_share.backlog_recount(client_id=api_client.client.pk)
    fair_share.backlog_recount(client_id=other_api_client.client.pk)
    long_ago = timezone.now() - timedelta(hours=1)
    Case.objects.filter(pk__in=[*flood, single]).update(submitted_at=long_ago)

    assert sorted(case_runs_sweep(now=timezone.now())) == sorted([*flood, single])

    # Five unfinished cases of the first client: each at the priority of a backlog of four; one of the other's.
    priorities = {message.args[0]: message.priority for message in Message.objects.all()}
    assert {case_id: priorities[case_id] for case_id in flood} == dict.fromkeys(flood, 2)
    assert priorities[single] == 0
    assert redis.Redis.from_url(live_broker).get(f"reviewconsole:backlog:{api_client.client.pk}") == b"5"


def test_with_fair_scheduling_off_every_case_waits_at_the_top_priority_in_submission_order(
    client, api_client, other_api_client, live_broker, settings
):
    settings.FAIR_SCHEDULING = False
    flood = [_submit(client, api_client, f"flood-{number}") for number in range(3)]
    single = _submit(client, other_api_client, "single")

    assert _waiting(live_broker) == {0: [*flood, single]}
    assert set(Message.objects.values_list("priority", flat=True)) == {None}


def test_where_quotas_and_backlogs_share_a_redis_the_charge_counts_the_backlog_and_a_retry_counts_nothing(
    client, api_client, other_api_client, live_broker, settings, fresh_stamps
):
    """A deployment: REDIS_URL is the broker; the case's charge and its backlog count are one round trip."""
    settings.REDIS_URL = live_broker
    settings.CLIENT_CASES_PER_DAY = 100
    key = f"reviewconsole:backlog:{api_client.client.pk}"
    flood = [_submit(client, api_client, f"flood-{number}") for number in range(4)]
    # The same case again: answered from the first, neither charged nor counted.
    assert post_case(client, api_client, case_body(external_id="flood-0")).status_code == 200
    single = _submit(client, other_api_client, "single")

    assert _waiting(live_broker) == {0: [flood[0], single], 1: flood[1:3], 2: flood[3:]}
    counts = redis.Redis.from_url(live_broker)
    assert counts.get(key) == b"4"
    usage = counts.hgetall(f"reviewconsole:limits:{api_client.client.pk}:{timezone.now().date().isoformat()}")
    assert usage[b"cases"] == b"4"

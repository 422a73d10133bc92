"""Each client's limits, held in the real Redis that every web process shares: past one, a JSON 429 naming it
with Retry-After; clients are limited apart; a client's own limits win over the defaults; a retry of a case
already accepted is not charged; a Redis that does not answer lets requests through."""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from datetime import UTC, date, datetime, timedelta

import pytest
import redis
from django.test import Client as Browser

from reviewconsole.accounts.roles import Role
from reviewconsole.intake import quota_counters, quotas
from reviewconsole.intake.models import Case
from tests.personas import _user_with
from tests.reviewconsole.api.conftest import case_body, post_case

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shared_limits(settings, live_broker, fresh_stamps, monkeypatch) -> str:
    """Counters in the test run's Redis (emptied), as every web process of a deployment has them; cases
    are queued to it, not run here. Nothing is limited until a test sets a limit."""
    settings.REDIS_URL = live_broker
    monkeypatch.setattr(quotas, "_quiet_until", 0.0)
    return live_broker


def _poll(http: Browser, api) -> int:
    """A request that counts against the rate and stores nothing (no such case: 404 once admitted)."""
    return http.get("/api/v1/cases/999999", **api.auth).status_code


def _refused(response, limit: str) -> dict:
    assert response.status_code == 429, response.content
    body = response.json()
    assert body["error"] == "rate_limited"
    assert [error["field"] for error in body["errors"]] == [limit]
    assert body["message"].startswith(f"{limit}: ")
    return body


def _seconds_to_utc_midnight() -> float:
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    return (datetime.combine(tomorrow, datetime.min.time(), tzinfo=UTC) - datetime.now(UTC)).total_seconds()


def test_past_the_rate_a_request_gets_429_with_retry_after_until_a_token_is_back(
    shared_limits, settings, client, api_client
):
    settings.CLIENT_REQUESTS_PER_SECOND = 3
    assert [_poll(client, api_client) for _ in range(3)] == [404, 404, 404]

    refused = client.get("/api/v1/cases/999999", **api_client.auth)

    body = _refused(refused, "requests_per_second")
    assert refused["Retry-After"] == "1"
    assert "at most 3 requests a second for this client; retry in 1 s" in body["message"]
    # A POST counts too, and is refused before its body is read: nothing is stored.
    assert post_case(client, api_client, case_body()).status_code == 429
    assert Case.objects.count() == 0
    time.sleep(1.05)
    assert _poll(client, api_client) == 404


def test_two_clients_are_limited_apart(shared_limits, settings, client, api_client, other_api_client):
    settings.CLIENT_REQUESTS_PER_SECOND = 1
    assert _poll(client, api_client) == 404
    assert _poll(client, api_client) == 429

    assert _poll(client, other_api_client) == 404


def test_a_clients_own_limits_win_over_the_defaults(shared_limits, settings, client, api_client, other_api_client):
    settings.CLIENT_REQUESTS_PER_SECOND = 0
    quotas.client_limits_set(client=api_client.client, limits={quotas.Limit.REQUESTS_PER_SECOND: 2})
    assert [_poll(client, api_client) for _ in range(3)] == [404, 404, 429]

    # Its own 0 is no limit, whatever the default.
    settings.CLIENT_REQUESTS_PER_SECOND = 1
    quotas.client_limits_set(client=other_api_client.client, limits={quotas.Limit.REQUESTS_PER_SECOND: 0})
    assert {_poll(client, other_api_client) for _ in range(10)} == {404}


def test_the_day_quota_of_cases_refuses_until_utc_midnight_and_never_charges_a_retry(
    shared_limits, settings, client, api_client
):
    settings.CLIENT_CASES_PER_DAY = 3
    assert post_case(client, api_client, case_body(external_id="a")).status_code == 202
    # The same case again: answered from the first, not charged.
    assert post_case(client, api_client, case_body(external_id="a")).status_code == 200
    assert post_case(client, api_client, case_body(external_id="b")).status_code == 202
    assert post_case(client, api_client, case_body(external_id="c")).status_code == 202

    refused = post_case(client, api_client, case_body(external_id="d"))

    body = _refused(refused, "cases_per_day")
    assert "at most 3 cases a day (UTC) for this client" in body["message"]
    assert abs(int(refused["Retry-After"]) - _seconds_to_utc_midnight()) <= 5
    assert sorted(Case.objects.values_list("external_id", flat=True)) == ["a", "b", "c"]
    # The client still gets back the cases it has; a different case under a taken id is still a conflict.
    assert post_case(client, api_client, case_body(external_id="b")).status_code == 200
    assert post_case(client, api_client, case_body(external_id="b", question="Another question?")).status_code == 409
    assert post_case(client, api_client, case_body(external_id=None)).status_code == 429


def test_the_day_quota_of_body_bytes_counts_what_was_accepted(shared_limits, settings, client, api_client):
    small = json.dumps(case_body(external_id="small"))
    large_case = case_body(external_id="large")
    large_case["sources"][0]["text"] += " Refunds are handled by the billing team." * 200
    large = json.dumps(large_case)
    # The large body alone fits in a day's bytes, not beside the small one.
    settings.CLIENT_BODY_BYTES_PER_DAY = len(large.encode()) + 10

    assert post_case(client, api_client, small).status_code == 202
    refused = post_case(client, api_client, large)
    body = _refused(refused, "body_bytes_per_day")
    assert f"this body's {len(large.encode())} pass them" in body["message"]
    assert abs(int(refused["Retry-After"]) - _seconds_to_utc_midnight()) <= 5
    # A body that fits in what is left of the day still passes.
    assert post_case(client, api_client, small.replace('"small"', '"small2"')).status_code == 202
    assert sorted(Case.objects.values_list("external_id", flat=True)) == ["small", "small2"]


def test_a_body_larger_than_a_whole_days_bytes_is_refused_for_good_with_413_naming_the_quota(
    shared_limits, settings, client, api_client
):
    body = json.dumps(case_body(external_id="huge"))
    size = len(body.encode())
    settings.CLIENT_BODY_BYTES_PER_DAY, settings.CLIENT_CASES_PER_DAY = size - 1, 1
    assert post_case(client, api_client, case_body(external_id=None, question="Short?")).status_code == 202

    # The day's cases are used up too, yet no later day could take this body: it is refused for good.
    refused = post_case(client, api_client, body)

    assert refused.status_code == 413, refused.content
    assert "Retry-After" not in refused
    assert refused.json()["error"] == "too_large"
    assert refused.json()["errors"] == [{
        "field": "body_bytes_per_day",
        "message": f"this body's {size} bytes are more than this client's {size - 1} body bytes a day (UTC): "
                   "it can never be accepted",
    }]
    assert list(Case.objects.values_list("external_id", flat=True)) == [None]
    today = datetime.now(UTC)
    assert quotas.refusals(since=today, until=today + timedelta(seconds=1)) == {
        (api_client.client.pk, quotas.Limit.BODY_BYTES_PER_DAY): 1
    }


def test_without_redis_a_body_larger_than_a_days_bytes_is_refused_for_good_too(
    settings, monkeypatch, client, api_client
):
    monkeypatch.setattr(quotas, "_LOCAL", quota_counters.LocalCounters())
    body = json.dumps(case_body())
    settings.CLIENT_BODY_BYTES_PER_DAY = len(body.encode()) - 1

    refused = post_case(client, api_client, body)

    assert refused.status_code == 413 and refused.json()["errors"][0]["field"] == "body_bytes_per_day"
    assert not Case.objects.exists()


def test_a_limit_set_on_the_clients_page_applies_from_the_next_request(shared_limits, settings, client, api_client):
    settings.CLIENT_REQUESTS_PER_SECOND = 0
    assert {_poll(client, api_client) for _ in range(3)} == {404}  # its client is now cached by this process
    admin = Browser()
    admin.force_login(_user_with("tina", Role.TEAM_ADMIN))
    admin.post(f"/team/clients/{api_client.client.pk}/limits", {"requests_per_second": "1"})

    assert [_poll(client, api_client) for _ in range(2)] == [404, 429]


def test_no_two_processes_can_take_the_last_cases_of_a_day(shared_limits, api_client):
    """Thirty concurrent charges against a quota of ten, each on its own connection, as web processes are."""
    counters = [quota_counters.RedisCounters(redis.Redis.from_url(shared_limits)) for _ in range(30)]
    day = date(2026, 3, 2)
    results: list[str | None] = []
    start = threading.Barrier(len(counters))

    def charge(mine: quota_counters.RedisCounters) -> None:
        start.wait()
        results.append(mine.case_charge(client_id=api_client.client.pk, day=day, cases_limit=10, bytes_limit=0,
                                        body_bytes=100).over)

    threads = [threading.Thread(target=charge, args=(mine,)) for mine in counters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results.count(None) == 10 and results.count("cases_per_day") == 20
    usage = redis.Redis.from_url(shared_limits).hgetall(f"reviewconsole:limits:{api_client.client.pk}:2026-03-02")
    assert usage == {b"cases": b"10", b"bytes": b"1000"}
    assert counters[0].refusals([day]) == {(api_client.client.pk, "cases_per_day"): 20}


def test_the_metrics_page_counts_each_clients_refusals_by_limit(
    shared_limits, settings, client, api_client, other_api_client, support_lead
):
    settings.CLIENT_REQUESTS_PER_SECOND = 1
    assert [_poll(client, api_client) for _ in range(4)] == [404, 429, 429, 429]
    assert [_poll(client, other_api_client) for _ in range(2)] == [404, 429]
    settings.CLIENT_REQUESTS_PER_SECOND, settings.CLIENT_CASES_PER_DAY = 0, 1
    assert [post_case(client, api_client, case_body(external_id=f"m{n}")).status_code for n in range(2)] == [202, 429]

    reader = Browser()
    reader.force_login(support_lead)
    page = reader.get("/audit/metrics/").content.decode()

    assert '<dd id="rate-limited-total">5</dd>' in page
    # Requests per second, cases per day, body bytes per day, total; most refused first.
    table = re.sub(r">\s+<", "><", page[page.index('id="rate-limited-table"'):page.index('id="reviewer-kappa"')])
    assert ('<tbody><tr><th scope="row">support-bot</th><td>3</td><td>1</td><td>0</td><td>4</td></tr>'
            '<tr><th scope="row">sales-bot</th><td>1</td><td>0</td><td>0</td><td>1</td></tr></tbody>') in table
    # A period before today counts none of them.
    earlier = reader.get("/audit/metrics/?since=2026-01-01&until=2026-01-31").content.decode()
    assert '<dd id="rate-limited-total">0</dd>' in earlier and "No request was refused" in earlier


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_redis_that_does_not_answer_lets_requests_through_with_one_log_line(
    settings, fresh_stamps, monkeypatch, client, api_client, caplog
):
    settings.REDIS_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    monkeypatch.setattr(quotas, "_quiet_until", 0.0)
    settings.CLIENT_REQUESTS_PER_SECOND = settings.CLIENT_CASES_PER_DAY = 1
    settings.CLIENT_BODY_BYTES_PER_DAY = 10

    with caplog.at_level(logging.WARNING, logger="reviewconsole.intake.quotas"):
        polls = [_poll(client, api_client) for _ in range(3)]
        submitted = [post_case(client, api_client, case_body(external_id=f"down-{n}")).status_code for n in range(2)]

    assert polls == [404, 404, 404] and submitted == [202, 202]
    assert Case.objects.count() == 2
    warnings = [record.getMessage() for record in caplog.records if record.name == "reviewconsole.intake.quotas"]
    assert len(warnings) == 1 and warnings[0].startswith("client limits not enforced for 5 s: Redis does not answer")


def test_without_redis_one_process_keeps_the_same_limits(settings, monkeypatch, client, api_client, other_api_client):
    """The embedded default: no REDIS_URL, one process, its own counters."""
    assert settings.REDIS_URL is None
    monkeypatch.setattr(quotas, "_LOCAL", quota_counters.LocalCounters())
    settings.CLIENT_REQUESTS_PER_SECOND = 2

    assert [_poll(client, api_client) for _ in range(3)] == [404, 404, 429]
    assert _poll(client, other_api_client) == 404
    time.sleep(0.55)
    assert [_poll(client, api_client) for _ in range(2)] == [404, 429]
    today = datetime.now(UTC)
    assert quotas.refusals(since=today, until=today + timedelta(seconds=1)) == {
        (api_client.client.pk, quotas.Limit.REQUESTS_PER_SECOND): 2
    }

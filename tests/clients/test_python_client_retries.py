"""When the Python client sends a request again, against scripted answers (httpx's MockTransport): what the
live console cannot be made to answer on cue (a 502, a lost connection, a Retry-After of hours). No Django."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from reviewconsole_client import (
    AsyncReviewConsole,
    InvalidRequest,
    RateLimited,
    RetryPolicy,
    ReviewConsole,
    ServerError,
    Status,
    WaitTimeout,
)

URL = "http://console.test"
FAST = RetryPolicy(max_retries=3, backoff=0.001, max_backoff=0.002)
CASE = {
    "id": 7, "external_id": "ticket-7", "status": "QUEUED", "status_url": "/api/v1/cases/7", "terminal": None,
    "reason": None, "released_answer": None, "constitution": "default", "constitution_version": None,
    "constitution_version_number": None, "submitted_at": "2026-01-02T03:04:05+00:00", "finished_at": None,
    "error": None, "decision": None, "updated_at": "2026-01-02T03:04:05+00:00", "run_record": None,
}
SUBMISSION = {"question": "How long do refunds take?", "answer": "Five days.", "sources": [{"id": "s", "text": "x"}]}


def _error(status: int, field: str = "", headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": "internal", "message": "m", "errors": [{"field": field, "message": "m"}]}
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """The answers the console gives, in order; every request it got."""

    def __init__(self, *answers: httpx.Response | Callable[[httpx.Request], httpx.Response] | Exception):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer(request) if callable(answer) else answer

    def console(self, retry: RetryPolicy = FAST) -> ReviewConsole:
        return ReviewConsole(URL, "rc_token", retry=retry, http=httpx.Client(transport=httpx.MockTransport(self)))


def test_a_429_and_a_503_are_sent_again_after_their_retry_after_even_for_a_submission_without_external_id():
    script = Script(_error(429, "requests_per_second", {"Retry-After": "0"}), _error(503, headers={"Retry-After": "0"}),
                    httpx.Response(202, json=CASE))

    case = script.console().submit(**SUBMISSION)

    assert case.id == 7 and [request.method for request in script.requests] == ["POST"] * 3
    assert json.loads(script.requests[0].content) == {**SUBMISSION, "metadata": {}}
    assert script.requests[0].headers["Authorization"] == "Bearer rc_token"


def test_a_5xx_or_a_lost_connection_is_sent_again_only_when_that_is_safe():
    lost = httpx.ConnectError("connection refused")
    assert Script(_error(502), lost, httpx.Response(200, json=CASE)).console().get(7).id == 7
    assert Script(_error(500), httpx.Response(200, json=CASE)).console().submit(external_id="t", **SUBMISSION).id == 7

    # Without an external_id a second POST could store the case twice: raised at once.
    once = Script(_error(502))
    with pytest.raises(ServerError) as failed:
        once.console().submit(**SUBMISSION)
    assert failed.value.status == 502 and len(once.requests) == 1
    with pytest.raises(httpx.ConnectError):
        Script(lost).console().submit(**SUBMISSION)


def test_a_4xx_is_never_sent_again_and_names_the_field():
    script = Script(_error(400, "sources.0.text"))
    with pytest.raises(InvalidRequest) as refused:
        script.console().submit(**SUBMISSION)
    assert (refused.value.status, refused.value.field, len(script.requests)) == (400, "sources.0.text", 1)


def test_retries_spent_or_a_retry_after_past_the_longest_wait_raise_with_the_seconds_asked():
    spent = Script(*[_error(429, "requests_per_second", {"Retry-After": "0"})] * 4)
    with pytest.raises(RateLimited):
        spent.console().get(7)
    assert len(spent.requests) == 4  # the first and three retries

    tomorrow = Script(_error(429, "cases_per_day", {"Retry-After": "3127"}))
    with pytest.raises(RateLimited) as limited:
        tomorrow.console().get(7)
    assert (limited.value.field, limited.value.retry_after, len(tomorrow.requests)) == ("cases_per_day", 3127.0, 1)


def test_a_page_that_is_not_the_apis_answer_still_raises_with_its_status():
    with pytest.raises(ServerError) as failed:
        Script(*[httpx.Response(502, text="<html>Bad gateway</html>")] * 4).console().get(7)
    assert failed.value.body.error == "http_502" and "Bad gateway" in failed.value.body.message


def test_the_async_client_waits_until_a_final_status_and_times_out_with_the_case_as_last_seen():
    answers = [CASE, {**CASE, "status": "ESCALATED"}, {**CASE, "status": "RELEASED", "released_answer": "Five days."}]
    served = iter(answers)
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=next(served)))

    async def wait() -> object:
        async with AsyncReviewConsole(URL, "rc_token", http=httpx.AsyncClient(transport=transport)) as console:
            return await console.wait_for_decision(7, timeout=5, interval=0.01)

    # In a thread of its own: after the browser tests, Playwright's event loop runs in the suite's thread.
    with ThreadPoolExecutor(1) as thread:
        released = thread.submit(asyncio.run, wait()).result()
    assert released.status == Status.RELEASED and released.released_answer == "Five days."

    escalated = Script(*[httpx.Response(200, json={**CASE, "status": "ESCALATED"})] * 50)
    with pytest.raises(WaitTimeout) as waited:
        escalated.console().wait_for_decision(7, timeout=0.05, interval=0.01)
    assert waited.value.case.status == Status.ESCALATED


def test_list_filters_are_sent_as_the_api_reads_them():
    from datetime import UTC, datetime

    script = Script(httpx.Response(200, json={"cases": [], "next_cursor": None, "next_url": None}))
    script.console().list_cases(status=["ESCALATED", Status.RELEASED], terminal=["REVIEW"], limit=10,
                                updated_since=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    assert script.requests[0].url.query.decode() == (
        "status=ESCALATED&status=RELEASED&terminal=REVIEW&updated_since=2026-01-02T03%3A04%3A05%2B00%3A00&limit=10"
    )
    with pytest.raises(ValueError, match="updated_since"):
        script.console().list_cases(updated_since=datetime(2026, 1, 2))
    with pytest.raises(ValueError):
        script.console().list_cases(status=["DONE"])

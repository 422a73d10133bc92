"""The API's calls, sync (`ReviewConsole`) and async (`AsyncReviewConsole`), over httpx.

Each call is written once, as a plan: a generator that yields what it needs done (send this request,
sleep this long) and decides from what comes back (retry, follow the next page, poll again). The two
clients only carry the plans out, one with blocking calls and one with `await`, so they behave alike.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from reviewconsole_client.errors import WaitTimeout, error_for
from reviewconsole_client.models import Case, CasePage, CaseSubmission, CaseSummary, ErrorBody, Source, Status, Terminal
from reviewconsole_client.retries import RetryPolicy, retry_after

__all__ = ["AsyncReviewConsole", "ReviewConsole"]

API_PATH = "/api/v1"
USER_AGENT = "reviewconsole-client/0.1 (python)"

Model = TypeVar("Model", bound=BaseModel)
Result = TypeVar("Result")


@dataclass(frozen=True)
class _Send:
    request: httpx.Request


@dataclass(frozen=True)
class _Sleep:
    seconds: float


# What a plan yields, what it is sent back (a response, a transport error, or None after a sleep), what it returns.
_Plan = Generator[_Send | _Sleep, httpx.Response | httpx.TransportError | None, Result]


@dataclass(frozen=True)
class _Wait:
    """How a wait for a decision polls: every `interval` seconds at first, growing to `max_interval`."""

    interval: float = 0.5
    max_interval: float = 10.0
    growth: float = 1.5


class _Calls:
    """The API's calls as plans, whatever carries them out."""

    def __init__(self, base_url: str, token: str, retry: RetryPolicy, build: httpx.Client | httpx.AsyncClient):
        if not token:
            raise ValueError("token: the client's API token (rc_...) is required")
        self._retry = retry
        self._build = build
        self._base = base_url.rstrip("/") + API_PATH
        self._headers = {"Authorization": f"Bearer {token}", "User-Agent": USER_AGENT, "Accept": "application/json"}

    def submit(self, submission: CaseSubmission) -> _Plan[Case]:
        body = submission.model_dump(mode="json", exclude_none=True)
        request = self._request("POST", "/cases", json=body)
        # With an external_id a second submission returns the first case: safe to send again after a lost answer.
        return self._call(request, Case, idempotent=submission.external_id is not None)

    def get(self, case_id: int) -> _Plan[Case]:
        return self._call(self._request("GET", f"/cases/{int(case_id)}"), Case, idempotent=True)

    def page(self, params: list[tuple[str, str]]) -> _Plan[CasePage]:
        return self._call(self._request("GET", "/cases", params=params), CasePage, idempotent=True)

    def wait(self, case_id: int, timeout: float, wait: _Wait) -> _Plan[Case]:
        started = time.monotonic()
        delay = wait.interval
        while True:
            case = yield from self.get(case_id)
            if case.status.final:
                return case
            left = started + timeout - time.monotonic()
            if left <= 0:
                raise WaitTimeout(case, time.monotonic() - started)
            yield _Sleep(min(delay, left))
            delay = min(delay * wait.growth, wait.max_interval)

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Request:
        return self._build.build_request(method, self._base + path, headers=self._headers, **kwargs)

    def _call(self, request: httpx.Request, model: type[Model], *, idempotent: bool) -> _Plan[Model]:
        attempt = 0
        while True:
            result = yield _Send(request)
            assert result is not None
            pause = self._retry.wait(attempt, result, idempotent=idempotent)
            if pause is None:
                break
            attempt += 1
            yield _Sleep(pause)
        if isinstance(result, httpx.TransportError):
            raise result
        return _parsed(result, model)


def _parsed(response: httpx.Response, model: type[Model]) -> Model:
    if response.is_success:
        return model.model_validate_json(response.content)
    try:
        body = ErrorBody.model_validate_json(response.content)
    except ValidationError:
        # Not the API's answer (a proxy's page, say): the status and the start of what came back.
        body = ErrorBody(error=f"http_{response.status_code}", message=response.text[:200], errors=[])
    raise error_for(response.status_code, body, retry_after(response))


def _submission(
    question: str, sources: Iterable[Source | Mapping[str, Any]], answer: str | None, external_id: str | None,
    constitution: str | None, metadata: Mapping[str, Any] | None,
) -> CaseSubmission:
    return CaseSubmission(
        question=question, answer=answer, external_id=external_id, constitution=constitution,
        sources=[source if isinstance(source, Source) else Source.model_validate(source) for source in sources],
        metadata=dict(metadata or {}),
    )


def _list_params(
    status: Iterable[Status | str] | None, terminal: Iterable[Terminal | str] | None, constitution: str | None,
    external_id: str | None, updated_since: datetime | None, limit: int | None, cursor: str | None,
) -> list[tuple[str, str]]:
    if updated_since is not None and updated_since.utcoffset() is None:
        raise ValueError("updated_since: give a time with its offset (datetime.now(UTC), not datetime.now())")
    params = [("status", str(Status(value))) for value in status or ()]
    params += [("terminal", str(Terminal(value))) for value in terminal or ()]
    for name, value in (("constitution", constitution), ("external_id", external_id), ("cursor", cursor)):
        if value is not None:
            params.append((name, value))
    if updated_since is not None:
        params.append(("updated_since", updated_since.isoformat()))
    if limit is not None:
        params.append(("limit", str(limit)))
    return params


class ReviewConsole:
    """The review console's API, with blocking calls.

    `base_url` is the console's address ("https://review.example.com"); `token` the client's API token.
    Give `http` to use an `httpx.Client` of your own (proxies, certificates); it is then yours to close.
    """

    def __init__(
        self, base_url: str, token: str, *, timeout: float = 10.0, retry: RetryPolicy | None = None,
        http: httpx.Client | None = None,
    ):
        self._own_http = http is None
        self._http = http or httpx.Client(timeout=timeout)
        self._calls = _Calls(base_url, token, retry or RetryPolicy(), self._http)

    def submit(
        self, *, question: str, sources: Iterable[Source | Mapping[str, Any]], answer: str | None = None,
        external_id: str | None = None, constitution: str | None = None, metadata: Mapping[str, Any] | None = None,
    ) -> Case:
        """Submit an answer with its sources; the case as stored (QUEUED when new). Send `external_id`: the
        same case sent again returns the first (so a retry is safe), a different one raises `Conflict`."""
        submission = _submission(question, sources, answer, external_id, constitution, metadata)
        return self._run(self._calls.submit(submission))

    def get(self, case_id: int) -> Case:
        """The case now: its status, run record and any decision."""
        return self._run(self._calls.get(case_id))

    def list_cases(
        self, *, status: Iterable[Status | str] | None = None, terminal: Iterable[Terminal | str] | None = None,
        constitution: str | None = None, external_id: str | None = None, updated_since: datetime | None = None,
        limit: int | None = None, cursor: str | None = None,
    ) -> CasePage:
        """One page of this client's cases, newest first; pass its `next_cursor` as `cursor` for the next."""
        params = _list_params(status, terminal, constitution, external_id, updated_since, limit, cursor)
        return self._run(self._calls.page(params))

    def iter_cases(self, **filters: Any) -> Iterator[CaseSummary]:
        """Every case matching `filters` (those of `list_cases`), page after page."""
        page = self.list_cases(**filters)
        while True:
            yield from page.cases
            if page.next_cursor is None:
                return
            page = self.list_cases(**{**filters, "cursor": page.next_cursor})

    def wait_for_decision(
        self, case_id: int, *, timeout: float, interval: float = 0.5, max_interval: float = 10.0
    ) -> Case:
        """Poll until the case is RELEASED, REJECTED or FAILED, and return it; `WaitTimeout` (with the case as
        last seen, say ESCALATED: a person is looking) when `timeout` seconds pass first."""
        return self._run(self._calls.wait(case_id, timeout, _Wait(interval, max_interval)))

    def _run(self, plan: _Plan[Result]) -> Result:
        try:
            step = next(plan)
            while True:
                if isinstance(step, _Sleep):
                    time.sleep(step.seconds)
                    step = plan.send(None)
                    continue
                try:
                    outcome: httpx.Response | httpx.TransportError = self._http.send(step.request)
                except httpx.TransportError as error:
                    outcome = error
                step = plan.send(outcome)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class AsyncReviewConsole:
    """The review console's API, with `await`: the same calls as `ReviewConsole`."""

    def __init__(
        self, base_url: str, token: str, *, timeout: float = 10.0, retry: RetryPolicy | None = None,
        http: httpx.AsyncClient | None = None,
    ):
        self._own_http = http is None
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._calls = _Calls(base_url, token, retry or RetryPolicy(), self._http)

    async def submit(
        self, *, question: str, sources: Iterable[Source | Mapping[str, Any]], answer: str | None = None,
        external_id: str | None = None, constitution: str | None = None, metadata: Mapping[str, Any] | None = None,
    ) -> Case:
        """As `ReviewConsole.submit`."""
        submission = _submission(question, sources, answer, external_id, constitution, metadata)
        return await self._run(self._calls.submit(submission))

    async def get(self, case_id: int) -> Case:
        """As `ReviewConsole.get`."""
        return await self._run(self._calls.get(case_id))

    async def list_cases(
        self, *, status: Iterable[Status | str] | None = None, terminal: Iterable[Terminal | str] | None = None,
        constitution: str | None = None, external_id: str | None = None, updated_since: datetime | None = None,
        limit: int | None = None, cursor: str | None = None,
    ) -> CasePage:
        """As `ReviewConsole.list_cases`."""
        params = _list_params(status, terminal, constitution, external_id, updated_since, limit, cursor)
        return await self._run(self._calls.page(params))

    async def iter_cases(self, **filters: Any) -> AsyncIterator[CaseSummary]:
        """As `ReviewConsole.iter_cases`."""
        page = await self.list_cases(**filters)
        while True:
            for case in page.cases:
                yield case
            if page.next_cursor is None:
                return
            page = await self.list_cases(**{**filters, "cursor": page.next_cursor})

    async def wait_for_decision(
        self, case_id: int, *, timeout: float, interval: float = 0.5, max_interval: float = 10.0
    ) -> Case:
        """As `ReviewConsole.wait_for_decision`."""
        return await self._run(self._calls.wait(case_id, timeout, _Wait(interval, max_interval)))

    async def _run(self, plan: _Plan[Result]) -> Result:
        try:
            step = next(plan)
            while True:
                if isinstance(step, _Sleep):
                    await asyncio.sleep(step.seconds)
                    step = plan.send(None)
                    continue
                try:
                    outcome: httpx.Response | httpx.TransportError = await self._http.send(step.request)
                except httpx.TransportError as error:
                    outcome = error
                step = plan.send(outcome)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        if self._own_http:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

"""The drills' users of the deployment, over HTTP only: a client application with its API token, and people
signed in to the console (reviewers, a policy admin, a support lead) posting its forms as a browser does."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

import requests

TIMEOUT = 30
_ERRORS = re.compile(r'class="(?:errorlist|alert)[^"]*"[^>]*>(.*?)</(?:ul|p)>', re.S)


@dataclass(frozen=True)
class Answer:
    """What came back for one request, as a drill judges it."""

    status: int
    content_type: str
    body: Any
    """The parsed JSON, or the text when the answer is not JSON."""
    location: str = ""
    seconds: float = 0.0
    headers: dict[str, str] | None = None

    @property
    def is_json(self) -> bool:
        return self.content_type.startswith("application/json") and not isinstance(self.body, str)

    @property
    def server_error(self) -> bool:
        """A 5xx the product promises not to give: anything but the API's JSON 503 with Retry-After."""
        if self.status < 500:
            return False
        return not (self.status == 503 and self.is_json and (self.headers or {}).get("Retry-After"))

    def why(self) -> str:
        """What the answer says went wrong, in a few words (an API error's message, a form's errors)."""
        if self.is_json and isinstance(self.body, dict):
            return str(self.body.get("message") or self.body)[:300]
        text = str(self.body)
        found = _ERRORS.findall(text)
        if found:
            return "; ".join(re.sub(r"<[^>]+>", " ", item).strip() for item in found)[:300]
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)).strip()[:300]

    def fields(self) -> list[str]:
        """The fields an API error names."""
        if not self.is_json or not isinstance(self.body, dict):
            return []
        return [str(error.get("field", "")) for error in self.body.get("errors") or []]


def _answer(response: requests.Response, started: float) -> Answer:
    content_type = response.headers.get("Content-Type", "")
    body: Any
    try:
        body = response.json() if content_type.startswith("application/json") else response.text
    except ValueError:
        body = response.text
    return Answer(response.status_code, content_type, body, response.headers.get("Location", ""),
                  time.monotonic() - started, dict(response.headers))


def _failed(error: requests.RequestException, started: float) -> Answer:
    # No answer at all (connection refused or reset): as bad as a 5xx for whoever sent it.
    return Answer(599, "", f"{type(error).__name__}: {error}", "", time.monotonic() - started)


class ApiClient:
    """A client application: POST /api/v1/cases, GET /api/v1/cases/{id}. One per thread."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"

    def submit(self, case: dict[str, Any] | None = None, *, raw: bytes | None = None) -> Answer:
        data = raw if raw is not None else json.dumps(case).encode()
        started = time.monotonic()
        try:
            response = self.session.post(f"{self.base_url}/api/v1/cases", data=data, timeout=TIMEOUT,
                                         headers={"Content-Type": "application/json"})
        except requests.RequestException as error:
            return _failed(error, started)
        return _answer(response, started)

    def case(self, case_id: int) -> Answer:
        started = time.monotonic()
        try:
            response = self.session.get(f"{self.base_url}/api/v1/cases/{case_id}", timeout=TIMEOUT)
        except requests.RequestException as error:
            return _failed(error, started)
        return _answer(response, started)


_CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
_CASE_PATH = re.compile(r"/review/cases/(\d+)/")


class Person:
    """Someone signed in to the console; posts forms with the CSRF token, as the browser does."""

    def __init__(self, base_url: str, username: str, password: str) -> None:
        self.base_url = base_url
        self.username = username
        self.password = password
        self.session = requests.Session()

    def sign_in(self) -> None:
        page = self.session.get(f"{self.base_url}/login/", timeout=TIMEOUT)
        match = _CSRF_INPUT.search(page.text)
        if page.status_code != 200 or match is None:
            raise RuntimeError(f"sign-in page for {self.username}: HTTP {page.status_code}")
        response = self.session.post(
            f"{self.base_url}/login/", timeout=TIMEOUT, allow_redirects=False,
            data={"username": self.username, "password": self.password, "csrfmiddlewaretoken": match.group(1)},
        )
        if response.status_code != 302:
            raise RuntimeError(f"{self.username} could not sign in: HTTP {response.status_code}")

    def post(self, path: str, data: dict[str, str] | None = None) -> Answer:
        """A form post; redirects are not followed, so a drill sees where the console sends the person."""
        token = self.session.cookies.get("csrftoken", "")
        started = time.monotonic()
        try:
            response = self.session.post(
                f"{self.base_url}{path}", data={**(data or {}), "csrfmiddlewaretoken": token},
                timeout=TIMEOUT, allow_redirects=False,
            )
        except requests.RequestException as error:
            return _failed(error, started)
        return _answer(response, started)

    def get(self, path: str) -> Answer:
        started = time.monotonic()
        try:
            response = self.session.get(f"{self.base_url}{path}", timeout=TIMEOUT, allow_redirects=False)
        except requests.RequestException as error:
            return _failed(error, started)
        return _answer(response, started)

    # --- A reviewer's actions ----------------------------------------------------------------------

    def next_case(self) -> tuple[Answer, int | None]:
        """Press "Next case": the answer, and the case it sent the reviewer to (None: the queue)."""
        answer = self.post("/review/next")
        match = _CASE_PATH.search(answer.location)
        return answer, int(match.group(1)) if match else None

    def release(self, case_id: int) -> Answer:
        return self.post(f"/review/cases/{case_id}/release")

    def _holding(self, case_id: int, action: str, data: dict[str, str]) -> Answer:
        """Claim the case ("Claim it"), then post the decision: only the reviewer holding a case decides it.
        A claim the server failed is the answer (a drill retries it as it would the decision)."""
        claimed = self.post(f"/review/cases/{case_id}/lease", {"take": "1"})
        if claimed.status >= 500:
            return claimed
        return self.post(f"/review/cases/{case_id}/{action}", data)

    def approve(self, case_id: int, candidate: tuple[str, str]) -> Answer:
        candidate_id, sha256 = candidate
        return self._holding(case_id, "approve", {
            "candidate_id": candidate_id, "sha256": sha256, "note": "drill",
            # Claims may still fail: a written reason lets the approval through, as a reviewer would give one.
            "override_reason": "Checked against the sources by hand (drill).",
        })

    def reject(self, case_id: int, candidate: tuple[str, str]) -> Answer:
        candidate_id, sha256 = candidate
        return self._holding(case_id, "reject", {
            "candidate_id": candidate_id, "sha256": sha256, "reason_code": "WRONG_FACTS", "note": "drill",
        })

    def edit(self, case_id: int, candidate: tuple[str, str], text: str) -> Answer:
        candidate_id, sha256 = candidate
        return self._holding(case_id, "edit", {
            "candidate_id": candidate_id, "sha256": sha256, "text": text, "note": "drill edit",
        })

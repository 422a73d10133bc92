"""Escalated cases made the real way: submitted as a client would, then run through the engine."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client as HttpClient
from django.utils import timezone

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Candidate, Case, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.review.models import Decision, Escalation
from tests.personas import _user_with
from tests.reviewconsole.api.conftest import REFUND_CASE
from verification import DEFAULT_CONSTITUTION, Constitution
from verification import Case as Submission
from verification import types as contract

# The engine refutes "60 days" against the 30-day policy, omits it, and sends the case to a person.
EARNINGS_CASE: dict[str, Any] = {
    "external_id": "earnings-q3",
    "question": "How did Norrland Freight do in the third quarter?",
    "answer": "Norrland Freight reported third-quarter revenue of $230 million, up 8% from a year earlier. "
    "Operating margin improved to 11.2%.",
    "sources": [
        {
            "id": "q3-release",
            "title": "Norrland Freight Q3 results",
            "text": "Norrland Freight today reported revenue of $212.4 million for the third quarter, an increase "
            "of 8% compared with the same quarter last year. Operating margin was 11.2%, compared with 9.8% a "
            "year ago.",
        }
    ],
}


# A reviewer's correct rewrite of the refund case's answer, and how a decision form names a version.
FIXED_ANSWER = (
    "Annual plans can be refunded in full within 30 days of purchase. "
    "Approved refunds are returned to the original payment method within 5 to 10 business days."
)


def latest(case: Case) -> Candidate:
    """The case's latest version."""
    return Candidate.objects.filter(case=case).order_by("-position").first()


def on_version(candidate: Candidate, **fields: str) -> dict[str, str]:
    """A decision form's fields for `candidate`, plus `fields`."""
    return {"candidate_id": candidate.candidate_id, "sha256": candidate.sha256, **fields}


def refund_case(**changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(REFUND_CASE)
    body.update(changes)
    return body


# --- Double review: a second reviewer, a review lead, and a constitution that asks for two reviews ----------


@pytest.fixture
def second_reviewer(db) -> User:
    return _user_with("ravi", Role.REVIEWER)


@pytest.fixture
def lead(db) -> User:
    """A review lead who reviews too, as the demo's `lead` does."""
    return _user_with("lena", Role.REVIEWER, Role.REVIEW_LEAD)


def default_policy_publish(**knobs: Any) -> ConstitutionVersion:
    """Publish a version of the default constitution (the one cases that name none pin) with `knobs` set
    in its policy, as a policy admin would in the editor."""
    data = DEFAULT_CONSTITUTION.model_dump(mode="json")
    data["policy"].update(knobs)
    author = User.objects.get_or_create(username="policy-author")[0]
    draft = constitution_draft_save(constitution=Constitution.model_validate(data), author=author)
    return version_publish(version=draft, actor=author, now=timezone.now())


@pytest.fixture
def double_review(db) -> ConstitutionVersion:
    """The default constitution asks for two reviews of cases escalated for a critical claim (the refund case)."""
    return default_policy_publish(double_review_reasons=["CRITICAL_CLAIM"])


@pytest.fixture
def webhook_client(db) -> Client:
    client, _ = client_create(name="support-bot", webhook_url="https://client.example/hooks")
    return client


def escalate_case(client: Client, body: dict[str, Any]) -> Case:
    """Submit and verify a case; it must end in the review queue."""
    case, _ = case_submit(client=client, submission=Submission.model_validate(body))
    verify_case.apply(args=(case.pk,))
    case.refresh_from_db()
    assert Escalation.objects.filter(case=case).exists(), (case.status, case.terminal, case.reason, case.error)
    return case


@pytest.fixture
def escalate(webhook_client) -> Callable[..., Case]:
    def make(body: dict[str, Any] | None = None, **changes: Any) -> Case:
        return escalate_case(webhook_client, {**(body or refund_case()), **changes})

    return make


# --- A run the release gate held back -----------------------------------------------------------------
# The engine is built by hand here so the page is tested against exactly what the contract allows it to
# emit (scores, covers, a threshold with its provenance), whatever the verifier currently scores.

PLANS_SOURCE = (
    "The Team plan costs $20 per user per month. "
    "Phone support is included with the Team plan. "
    "Prices are shown without sales tax."
)
PLANS_ANSWER = "The Team plan costs $20 per user per month. It includes phone support."
GATE_CALIBRATION = (
    "release threshold 0.7100 for at most 5% unsafe releases (95% upper bound 4.8% on wice/tune; "
    "1,480 labelled answers, 2026-11-20)"
)


def _span(sentence: str, covers: list[str]) -> contract.EvidenceSpan:
    start = PLANS_SOURCE.index(sentence)
    return contract.EvidenceSpan(
        source_id="plans", start=start, end=start + len(sentence), quote=sentence, covers=covers
    )


def _claim(claim_id: str, text: str, **fields: Any) -> contract.Claim:
    start = PLANS_ANSWER.index(text)
    values: dict[str, Any] = {
        "state": contract.State.SUPPORTED, "severity": contract.Severity.MODERATE, "method": "offline:typed-match",
        "confidence": 0.9, **fields,
    }
    return contract.Claim(id=claim_id, text=text, start=start, end=start + len(text), **values)


def gate_record(
    *, price_score: float = 0.93, support_score: float | None = 0.42, threshold: float | None = 0.71,
    calibration: str | None = GATE_CALIBRATION, price_covers: list[str] | None = None,
    support_severity: contract.Severity = contract.Severity.MODERATE,
    price_severity: contract.Severity = contract.Severity.MODERATE,
) -> contract.RunRecord:
    """Both claims SUPPORTED, each citing exactly one sentence; the second scores below the threshold."""
    claims = [
        _claim("k1", "The Team plan costs $20 per user per month.", release_score=price_score,
               severity=price_severity,
               evidence=[_span("The Team plan costs $20 per user per month.",
                               ["$20", "Team plan"] if price_covers is None else price_covers)]),
        _claim("k2", "It includes phone support.", release_score=support_score, severity=support_severity,
               evidence=[_span("Phone support is included with the Team plan.", ["phone support"])]),
    ]
    candidate = contract.Candidate(
        id="c0", parent=None, origin=contract.Origin.CLIENT, text=PLANS_ANSWER,
        sha256=contract.sha256_text(PLANS_ANSWER), claims=claims,
    )
    return contract.RunRecord(
        terminal=contract.Terminal.REVIEW,
        reason=contract.Reason.BELOW_RELEASE_THRESHOLD,
        final_answer=PLANS_ANSWER,
        candidates=[candidate],
        metrics=contract.Metrics(claims=2, unsupported_before=0, unsupported_after=0, supported_removed=0,
                                 model_calls=0, verifier_calls=2, elapsed_ms=5),
        review_package=contract.ReviewPackage(
            original_candidate="c0", current_candidate="c0", target_failures=[],
            states={"k1": contract.State.SUPPORTED, "k2": contract.State.SUPPORTED},
            evidence_used=[span for claim in claims for span in claim.evidence], attempts=[], new_failures=[],
            policy_reason="a supported claim scored below the release threshold",
        ),
        verifier="offline/test",
        release_threshold=threshold,
        release_calibration=calibration,
    )


PLANS_CASE: dict[str, Any] = {
    "external_id": "plans-1",
    "question": "What does the Team plan cost, and does it include phone support?",
    "answer": PLANS_ANSWER,
    "sources": [{"id": "plans", "title": "Plans and prices", "text": PLANS_SOURCE}],
}


# --- A Chinese answer with a character outside the Basic Multilingual Plane before each mark --------------
# Built by hand as gate_record is: the page must place marks by the contract's offsets (code points into the
# text), whatever the engine reads of Chinese. An emoji (😀) and an Extension B ideograph (𠮷) are one code
# point each but two UTF-16 units in a browser: a mark placed in the wrong units lands one character late.

TRAVEL_QUESTION = "明天下午去西湖，茶叶博物馆晚上几点关门？"
TRAVEL_ANSWER = "好消息😀明天下午西湖会放晴，茶叶博物馆晚上 9 点关门。"
TRAVEL_SOURCE = "📍𠮷祥路旁：中国茶叶博物馆开放时间为 9:00–17:00，周一闭馆。"
TRAVEL_CLAIMS = ("明天下午西湖会放晴", "茶叶博物馆晚上 9 点关门")
TRAVEL_EVIDENCE = "中国茶叶博物馆开放时间为 9:00–17:00"


def travel_record() -> contract.RunRecord:
    """The weather claim without evidence, the closing time refuted by the museum's hours."""
    start = TRAVEL_SOURCE.index(TRAVEL_EVIDENCE)
    hours = contract.EvidenceSpan(source_id="museum", start=start, end=start + len(TRAVEL_EVIDENCE),
                                  quote=TRAVEL_EVIDENCE, covers=["9 点"])
    claims = [
        contract.Claim(id=f"k{number}", text=text, start=TRAVEL_ANSWER.index(text),
                       end=TRAVEL_ANSWER.index(text) + len(text), state=state, severity=contract.Severity.MODERATE,
                       method="offline:test", confidence=0.9, evidence=evidence)
        for number, (text, state, evidence) in enumerate([
            (TRAVEL_CLAIMS[0], contract.State.INSUFFICIENT_EVIDENCE, []),
            (TRAVEL_CLAIMS[1], contract.State.REFUTED, [hours]),
        ], start=1)
    ]
    candidate = contract.Candidate(id="c0", parent=None, origin=contract.Origin.CLIENT, text=TRAVEL_ANSWER,
                                   sha256=contract.sha256_text(TRAVEL_ANSWER), claims=claims)
    return contract.RunRecord(
        terminal=contract.Terminal.REVIEW, reason=contract.Reason.UNSUPPORTED_CLAIM, final_answer=TRAVEL_ANSWER,
        candidates=[candidate],
        metrics=contract.Metrics(claims=2, unsupported_before=2, unsupported_after=2, supported_removed=0,
                                 model_calls=0, verifier_calls=2, elapsed_ms=5),
        review_package=contract.ReviewPackage(
            original_candidate="c0", current_candidate="c0", target_failures=["k1", "k2"],
            states={"k1": contract.State.INSUFFICIENT_EVIDENCE, "k2": contract.State.REFUTED},
            evidence_used=[hours], attempts=[], new_failures=[], policy_reason="claims failed",
        ),
        verifier="offline/test",
    )


TRAVEL_CASE: dict[str, Any] = {
    "external_id": "travel-1",
    "question": TRAVEL_QUESTION,
    "answer": TRAVEL_ANSWER,
    "sources": [{"id": "museum", "title": "中国茶叶博物馆", "text": TRAVEL_SOURCE}],
}


@pytest.fixture
def run_as_engine(monkeypatch, webhook_client) -> Callable[..., Case]:
    """Submit a case and store `record` as the engine's run of it, through the real task and services."""

    def run(record: contract.RunRecord, **changes: Any) -> Case:
        monkeypatch.setattr("reviewconsole.intake.services.run_engine", lambda case, **options: record)
        case, _ = case_submit(client=webhook_client, submission=Submission.model_validate({**PLANS_CASE, **changes}))
        verify_case.apply(args=(case.pk,))
        case.refresh_from_db()
        return case

    return run


@pytest.fixture
def travel_case(run_as_engine) -> Case:
    """The Chinese travel answer in the queue, with the claims and evidence travel_record() stores."""
    return run_as_engine(travel_record(), **TRAVEL_CASE)


def signed_in(user: User) -> HttpClient:
    """A test client signed in as `user`."""
    http = HttpClient()
    http.force_login(user)
    return http


@pytest.fixture
def two_cases(escalate) -> tuple[Case, Case]:
    """The refund case on top of the queue, the earnings case below it."""
    refund, earnings = escalate(), escalate(EARNINGS_CASE)
    Escalation.objects.filter(case=refund).update(priority=999)
    return refund, earnings


def review_from_next(http: HttpClient, case: Case, kind: str) -> None:
    """Take `case` with "Next case" and approve it (with an override reason) or reject it as wrong facts."""
    assert http.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    if kind == "approve":
        data = on_version(latest(case), override_reason="Checked the refund policy by hand.")
    else:
        data = on_version(latest(case), reason_code="WRONG_FACTS", note="Sixty days is wrong.")
    assert http.post(f"/review/cases/{case.pk}/{kind}", data).status_code == 302


def past_undo_window(case: Case) -> None:
    """Move the case's decisions to just past the undo window (in order), as if its time had passed."""
    for decision in Decision.objects.filter(case=case):
        moved = decision.created_at - timedelta(seconds=settings.REVIEW_UNDO_SECONDS + 1)
        Decision.objects.filter(pk=decision.pk).update(created_at=moved)

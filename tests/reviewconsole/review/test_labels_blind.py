"""Blind spot checks: a released case sampled for a person hides the engine's verdicts until every claim of the
released answer is labelled; the page's HTML does not carry them meanwhile."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Case, Claim
from reviewconsole.review.models import ClaimLabel, Escalation, EscalationStatus
from tests.reviewconsole.review.conftest import PLANS_ANSWER, PLANS_SOURCE, gate_record
from verification import types as contract

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

# The client wrote $25; the engine refuted it, replaced it from the source and released the repair.
CLIENT_ANSWER = "The Team plan costs $25 per user per month. It includes phone support."
PRICE_SENTENCE = "The Team plan costs $20 per user per month."
SUPPORT_SENTENCE = "Phone support is included with the Team plan."
# Texts only the engine's verdicts carry: none may reach a blind page.
VERDICT_TEXTS = [
    "No legal advice is given.",  # a rule verdict's critique
    "The source says $20, not $25.",  # a critic finding
    "omitting k1 removed supported claim k2",  # a failed repair's reason
    "Release gate",
    "0.93", "0.81",  # release scores
    "held back",
]


def _span(sentence: str) -> contract.EvidenceSpan:
    start = PLANS_SOURCE.index(sentence)
    return contract.EvidenceSpan(source_id="plans", start=start, end=start + len(sentence), quote=sentence)


def _claim(text: str, answer: str, claim_id: str, state: contract.State, score: float, evidence: str):
    start = answer.index(text)
    return contract.Claim(
        id=claim_id, text=text, start=start, end=start + len(text), state=state, severity=contract.Severity.MODERATE,
        method="offline:typed-match", confidence=0.9, release_score=score, evidence=[_span(evidence)],
        rationale=f"engine rationale for {claim_id}",
    )


def released_record() -> contract.RunRecord:
    """Two versions: the client's (one claim refuted) and the engine's repair of it, released (PERMIT)."""
    c0 = contract.Candidate(
        id="c0", parent=None, origin=contract.Origin.CLIENT, text=CLIENT_ANSWER,
        sha256=contract.sha256_text(CLIENT_ANSWER),
        claims=[
            _claim("The Team plan costs $25 per user per month.", CLIENT_ANSWER, "k1", contract.State.REFUTED, 0.05,
                   PRICE_SENTENCE),
            _claim("It includes phone support.", CLIENT_ANSWER, "k2", contract.State.SUPPORTED, 0.81,
                   SUPPORT_SENTENCE),
        ],
        findings=[contract.Finding(claim="The Team plan costs $25", problem="unsupported",
                                   evidence="The source says $20, not $25.")],
    )
    c1 = contract.Candidate(
        id="c1", parent="c0", origin=contract.Origin.REPAIR, operation="REPLACE_WITH_EVIDENCE", text=PLANS_ANSWER,
        sha256=contract.sha256_text(PLANS_ANSWER),
        claims=[
            _claim(PRICE_SENTENCE, PLANS_ANSWER, "k1", contract.State.SUPPORTED, 0.93, PRICE_SENTENCE),
            _claim("It includes phone support.", PLANS_ANSWER, "k2", contract.State.SUPPORTED, 0.81,
                   SUPPORT_SENTENCE),
        ],
        rule_verdicts=[contract.RuleVerdict(rule="no-legal-advice", passed=True, critique="No legal advice is given.",
                                            checked_by="code")],
    )
    repairs: list[Any] = [
        contract.Repair.model_validate({
            "from": "c0", "to": None, "operation": "OMIT", "target_claim_ids": ["k1"], "protected_claim_ids": ["k2"],
            "outcome": "REJECTED", "supported_removed": 1, "failure": "omitting k1 removed supported claim k2",
        }),
        contract.Repair.model_validate({
            "from": "c0", "to": "c1", "operation": "REPLACE_WITH_EVIDENCE", "target_claim_ids": ["k1"],
            "protected_claim_ids": ["k2"], "outcome": "ACCEPTED",
        }),
    ]
    return contract.RunRecord(
        terminal=contract.Terminal.PERMIT, reason=contract.Reason.REPAIRED, final_answer=PLANS_ANSWER,
        candidates=[c0, c1], repairs=repairs,
        metrics=contract.Metrics(claims=2, unsupported_before=1, unsupported_after=0, supported_removed=0,
                                 model_calls=0, verifier_calls=4, elapsed_ms=5),
        verifier="offline/test", release_threshold=0.71,
        release_calibration="release threshold 0.7100 for at most 5% unsafe releases",
    )


@pytest.fixture
def spot_check(settings, run_as_engine) -> Case:
    """The released case, drawn for a spot check (every release is, here)."""
    settings.SPOT_CHECK_RATE = 1.0
    case = run_as_engine(released_record(), answer=CLIENT_ANSWER, external_id="plans-released")
    assert case.status == "RELEASED" and Escalation.objects.get(case=case).is_spot_check
    return case


@pytest.fixture
def held_spot_check(client, reviewer, spot_check) -> Case:
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{spot_check.pk}/"
    return spot_check


def _released_claims(case: Case) -> list[Claim]:
    return list(Claim.objects.filter(candidate__case=case, candidate__candidate_id="c1").order_by("position"))


def _label(client, case: Case, claim: Claim, value: str, **extra):
    return client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label", {"label": value}, **extra)


def assert_blind(html: str) -> None:
    """None of the engine's verdicts is in the page: states, scores, evidence, checks, diff, repairs, package."""
    # A timestamp's digits ("04:46:30.935250") are no score: machine-readable times are left out of the search.
    html = re.sub(r'datetime="[^"]*"', "", html)
    for text in VERDICT_TEXTS:
        assert text not in html, text
    assert not re.search(r'class="[^"]*state-(supported|refuted|insufficient|conflicting|unresolved)', html)
    assert "engine rationale" not in html
    assert 'class="evidence-link"' not in html and 'id="ev-' not in html  # the evidence the engine chose
    assert 'id="diff"' not in html and "Failing claims" not in html
    assert "Moderate" not in html and "Severity" not in html  # the claims' severity is the engine's too
    # The words appear only as the reviewer's own: the label buttons and the labels they chose.
    without_buttons = re.sub(r'<form class="label-form".*?</form>|<span class="label label-[^"]*"[^>]*>[^<]*</span>',
                             "", html, flags=re.S)
    for word in ("Supported", "Refuted", "Insufficient evidence"):
        assert word not in without_buttons, word


def test_a_spot_check_opens_blind_with_its_claims_to_label(client, held_spot_check):
    html = client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()

    assert_blind(html)
    assert "Blind spot check." in html and "(2 to go)" in html
    # The answer that was released, its claims marked without colour, each with the label controls.
    assert "Version c1" in html
    assert f'<mark id="text-claim-0" class="state-unlabelled" title="Claim 1">{PRICE_SENTENCE}</mark>' in html
    assert html.count("data-label-form") == 2
    # The sources are there to read, unmarked.
    assert PLANS_SOURCE in html


def test_labels_made_blind_are_stored_blind_and_the_count_goes_down(client, reviewer, held_spot_check):
    first, _second = _released_claims(held_spot_check)

    response = _label(client, held_spot_check, first, "SUPPORTED", **HTMX)

    body = response.content.decode()
    assert response.status_code == 200 and "HX-Refresh" not in response
    assert 'id="blind-note" role="status" hx-swap-oob="true"' in body and "(1 to go)" in body
    assert_blind(body)
    assert ClaimLabel.objects.get().blind is True
    assert_blind(client.get(f"/review/cases/{held_spot_check.pk}/").content.decode())


def test_the_last_label_reloads_the_page_and_the_verdicts_appear(client, held_spot_check):
    first, second = _released_claims(held_spot_check)
    _label(client, held_spot_check, first, "SUPPORTED", **HTMX)

    response = _label(client, held_spot_check, second, "NOT_IN_SOURCES", **HTMX)

    assert response.status_code == 200 and response["HX-Refresh"] == "true"
    html = client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()
    assert "Blind spot check." not in html
    for text in ("No legal advice is given.", "The source says $20, not $25.", "omitting k1 removed supported claim k2",
                 'id="release-gate"', "0.93", 'id="diff"', 'class="evidence-link"'):
        assert text in html, text
    assert '<span class="state state-supported">Supported</span>' in html
    assert [(label.label, label.blind) for label in ClaimLabel.objects.order_by("claim__position")] == [
        ("SUPPORTED", True), ("NOT_IN_SOURCES", True)
    ]
    # A change of mind once the verdicts are in view is no longer a blind label.
    _label(client, held_spot_check, second, "SUPPORTED", **HTMX)
    assert ClaimLabel.objects.get(claim=second).blind is False


def test_without_javascript_the_last_label_goes_back_to_the_page_unblinded(client, held_spot_check):
    first, second = _released_claims(held_spot_check)
    assert _label(client, held_spot_check, first, "SUPPORTED")["Location"].endswith("#claim-0")

    response = _label(client, held_spot_check, second, "SUPPORTED", follow=True)

    html = response.content.decode()
    assert "Every claim is labelled: the engine&#x27;s verdicts are shown below." in html
    assert 'id="release-gate"' in html


def test_blindness_is_per_reviewer_until_the_spot_check_is_decided(client, held_spot_check):
    for claim in _released_claims(held_spot_check):
        _label(client, held_spot_check, claim, "SUPPORTED", **HTMX)
    vera = User.objects.create_user(username="vera", password="x")
    vera.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    client.force_login(vera)

    # Someone else's labels do not unblind the page for a reviewer who has not labelled it.
    assert_blind(client.get(f"/review/cases/{held_spot_check.pk}/").content.decode())
    # Nor does asking for the diff fragment or an older version directly.
    diff = client.get(f"/review/cases/{held_spot_check.pk}/?older=c0&newer=c1", **HTMX).content.decode()
    assert "Hidden until every claim is labelled" in diff and "Refuted" not in diff
    assert_blind(client.get(f"/review/cases/{held_spot_check.pk}/?version=c0").content.decode())

    Escalation.objects.filter(case=held_spot_check).update(status=EscalationStatus.DECIDED)
    assert 'id="release-gate"' in client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()


def test_an_escalated_case_is_never_blind(client, reviewer, escalate):
    case = escalate()
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{case.pk}/").content.decode()

    assert "Blind spot check." not in html and 'class="state state-' in html


def _queue_row(html: str, case: Case) -> str:
    return re.search(rf'<tr data-queue-row>(?:(?!</tr>).)*?/review/cases/{case.pk}/.*?</tr>', html, re.S).group(0)


def test_the_queue_shows_and_counts_a_spot_check_without_its_reason_or_severity(client, reviewer, run_as_engine,
                                                                                 spot_check):
    # Escalated for conflicting evidence, of moderate severity as the spot check is.
    escalated = run_as_engine(gate_record().model_copy(update={"reason": contract.Reason.CONFLICTING_EVIDENCE}),
                              external_id="plans-conflicting")
    client.force_login(reviewer)

    html = client.get("/review/").content.decode()

    row = _queue_row(html, spot_check)
    assert "spot check" in row and "hidden until labelled" in row
    assert "Repaired" not in row and "Moderate" not in row and 'class="severity' not in row
    # Counted apart, whether from the kept counts or (under a filter they have no column for) counted now.
    for query in ("", "?held=none"):
        html = client.get(f"/review/{query}").content.decode()
        counts = re.search(r'<nav class="reason-counts".*?</nav>', html, re.S).group(0)
        assert "Repaired" not in counts and 'data-reason="REPAIRED"' not in counts, query
        assert re.search(r'data-spot-checks>Spot checks <span class="count">1</span>', counts), query
        assert 'data-reason="CONFLICTING_EVIDENCE"' in counts and 'All reasons <span class="count">2</span>' in counts
    # Neither the reason nor the severity filter finds it: either would say what the engine decided.
    for query in ("?reason=REPAIRED", "?severity=MODERATE", "?severity=MODERATE&spot_check=only"):
        found = client.get(f"/review/{query}").content.decode()
        assert f"/review/cases/{spot_check.pk}/" not in found, query
    assert f"/review/cases/{escalated.pk}/" in client.get("/review/?severity=MODERATE").content.decode()
    only = client.get("/review/?spot_check=only").content.decode()
    assert f"/review/cases/{spot_check.pk}/" in only and f"/review/cases/{escalated.pk}/" not in only


def _header(html: str) -> str:
    return re.search(r'<header class="card case-head">.*?</header>', html, re.S).group(0)


def test_the_header_of_a_blind_spot_check_shows_no_verdict_and_no_severity(client, held_spot_check):
    header = _header(client.get(f"/review/cases/{held_spot_check.pk}/").content.decode())

    for verdict in ("Cleared for release", "Repaired", "All claims supported", "Moderate", "Minor", "Critical",
                    'id="terminal-reason"', 'class="severity', 'class="budgets"'):
        assert verdict not in header, verdict
    assert "Hidden until you have labelled every claim" in header

    for claim in _released_claims(held_spot_check):
        _label(client, held_spot_check, claim, "SUPPORTED", **HTMX)

    header = _header(client.get(f"/review/cases/{held_spot_check.pk}/").content.decode())
    assert 'id="terminal-reason">Repaired</span>' in header and "Cleared for release" in header
    assert 'class="severity severity-' in header and "Hidden until" not in header


def _blind_note(html: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r'<p class="blind-note".*?</p>', html, re.S).group(0))


def test_the_blind_hint_says_to_claim_the_case_when_no_label_buttons_show(client, reviewer, spot_check):
    client.force_login(reviewer)

    html = client.get(f"/review/cases/{spot_check.pk}/").content.decode()

    # Opened from the queue, not held: nothing to label with, so the hint does not say "label it".
    assert "data-label-form" not in html
    assert _blind_note(html).startswith("Blind spot check. Claim it (at the top of the page) to label each claim")
    assert "and label it" not in html and ">Claim it</button>" in html

    client.post(f"/review/cases/{spot_check.pk}/lease", {"take": "1"})
    html = client.get(f"/review/cases/{spot_check.pk}/").content.decode()
    assert html.count("data-label-form") == 2
    assert _blind_note(html).startswith("Blind spot check. Read each claim against the sources and label it:")


def test_the_blind_hint_names_who_holds_the_case(client, reviewer, held_spot_check):
    vera = User.objects.create_user(username="vera", password="x")
    vera.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    client.force_login(vera)

    html = client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()

    assert "data-label-form" not in html
    assert _blind_note(html).startswith("Blind spot check. rita holds this case: only they can label its claims now:")


def test_other_reviewers_claim_comments_stay_hidden_until_the_claims_are_labelled(
    client, reviewer, second_reviewer, held_spot_check
):
    price, support = _released_claims(held_spot_check)
    client.post(f"/review/cases/{held_spot_check.pk}/claims/{price.pk}/comments",
                {"comment": "The price matches the plans page."})
    for claim in (price, support):
        _label(client, held_spot_check, claim, "SUPPORTED", **HTMX)
    client.post(f"/review/cases/{held_spot_check.pk}/release")
    client.force_login(second_reviewer)
    client.post(f"/review/cases/{held_spot_check.pk}/lease", {"take": "1"})

    page = client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()
    block = client.post(f"/review/cases/{held_spot_check.pk}/claims/{price.pk}/comments",
                        {"comment": "Checking the price myself."}, **HTMX).content.decode()

    assert_blind(page)
    assert "The price matches the plans page." not in page
    assert "Checking the price myself." in block and "The price matches the plans page." not in block
    # Their own labels in, the page shows the verdicts and the comments of whoever checked before.
    for claim in (price, support):
        _label(client, held_spot_check, claim, "SUPPORTED", **HTMX)
    page = client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()
    assert 'id="release-gate"' in page and "The price matches the plans page." in page


def test_a_blind_label_cannot_be_undone_once_the_verdicts_are_shown(client, held_spot_check):
    price, support = _released_claims(held_spot_check)
    _label(client, held_spot_check, price, "SUPPORTED", **HTMX)
    _label(client, held_spot_check, support, "NOT_IN_SOURCES", **HTMX)

    response = client.post(f"/review/cases/{held_spot_check.pk}/claims/{support.pk}/label/undo", **HTMX)

    assert response.status_code == 409
    assert "The engine&#x27;s verdicts are shown now, so this blind label cannot be taken back" in (
        response.content.decode()
    )
    assert [(label.label, label.blind) for label in ClaimLabel.objects.order_by("claim__position")] == [
        ("SUPPORTED", True), ("NOT_IN_SOURCES", True)
    ]
    page = client.get(f"/review/cases/{held_spot_check.pk}/").content.decode()
    assert "Blind spot check." not in page and 'id="release-gate"' in page

"""The unsafe release rate from blind spot checks, and reviewers' agreement (Cohen's κ), against hand computations."""

from __future__ import annotations

import copy
import math
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from reviewconsole.intake.constitutions import constitution_pin
from reviewconsole.intake.models import Candidate, Case, Claim, RuleVerdict
from reviewconsole.intake.services import client_create
from reviewconsole.policy.models import ConstitutionVersion, NamedConstitution
from reviewconsole.review.models import ClaimLabel, Escalation, Review
from reviewconsole.support.kappa import cohens_kappa
from reviewconsole.support.metrics import metrics_report
from reviewconsole.support.safety import wilson_interval
from tests.reviewconsole.audit.test_pages import signed_in

DAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PERIOD = {"since": DAY.replace(hour=0), "until": DAY.replace(hour=0) + timedelta(days=1)}
PAGE_PERIOD = {"since": "2026-03-02", "until": "2026-03-02"}


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _table(html: str, table_id: str) -> str:
    found = re.search(rf'<table class="audit-table" id="{table_id}">(.*?)</table>', html, re.S)
    assert found, table_id
    return _text(found.group(1))


# --- The formulas, checked against numbers worked out by hand ------------------------------------------------

def test_the_wilson_interval_matches_the_hand_computation():
    # k=1, n=12, z=1.959964: p=0.083333, z²/n=0.320122, denominator 1.320122,
    # centre=(0.083333+0.160061)/1.320122=0.184375, half=1.959964·√(0.0063657+0.0066692)/1.320122=0.169508.
    low, high = wilson_interval(1, 12)
    assert math.isclose(low, 0.014867, abs_tol=5e-6) and math.isclose(high, 0.353883, abs_tol=5e-6)
    # k=0, n=10: centre = half = (3.841459/20)/1.384146 = 0.138766, so the interval is [0, 0.277532].
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and math.isclose(high, 0.277532, abs_tol=5e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_cohens_kappa_matches_the_hand_computation():
    # 10 items: 4 both approve, 3 both reject, 2 A approves B rejects, 1 A rejects B approves.
    # p_o = 7/10; A approves 6/10, B 5/10: p_e = .6·.5 + .4·.5 = .5; κ = (.7 − .5)/(1 − .5) = .4.
    pairs = [("A", "A")] * 4 + [("R", "R")] * 3 + [("A", "R")] * 2 + [("R", "A")]
    assert math.isclose(cohens_kappa(pairs), 0.4)
    assert cohens_kappa([("A", "A")] * 5) is None  # every judgement alike: chance agreement is 1
    assert cohens_kappa([]) is None
    assert math.isclose(cohens_kappa([("A", "R"), ("R", "A")]), -1.0)


# --- Seeding ------------------------------------------------------------------------------------------------

def _version(name: str, number: int, budget: float) -> ConstitutionVersion:
    """A version of `name` whose only difference from the built-in default is its risk budget."""
    content = copy.deepcopy(constitution_pin(None).content)
    content["name"] = name
    content["policy"]["max_unsafe_release_rate"] = budget
    document, _ = NamedConstitution.objects.get_or_create(name=name)
    return ConstitutionVersion.objects.create(document=document, number=number, content=content,
                                              sha256=f"{name}-{number}".ljust(64, "0"))


def _released(client, pin: ConstitutionVersion, claims: int, *, spot: bool = True, opened: datetime = DAY,
              reviewer_edit: bool = False) -> list[Claim]:
    """A released case with `claims` supported claims, spot-checked; returns the released answer's claims."""
    case = Case.objects.create(client=client, question="q", answer="a", status="RELEASED", terminal="PERMIT",
                               reason="ALL_SUPPORTED", constitution_pin=pin, constitution_name=pin.document.name)
    released = _candidate(case, 0, "CLIENT", claims)
    if reviewer_edit:
        _candidate(case, 1, "REVIEWER", claims)
    escalation = Escalation.objects.create(case=case, reason="ALL_SUPPORTED", severity="MINOR", is_spot_check=spot)
    Escalation.objects.filter(pk=escalation.pk).update(created_at=opened)
    return list(released.claims.order_by("position"))


def _candidate(case: Case, position: int, origin: str, claims: int) -> Candidate:
    candidate = Candidate.objects.create(case=case, position=position, candidate_id=f"c{position}", origin=origin,
                                         text=f"text {position}", sha256=f"{case.pk}-{position}".ljust(64, "0"))
    Claim.objects.bulk_create(
        Claim(candidate=candidate, position=i, claim_id=f"k{i}", text=f"claim {i}", start=0, end=1,
              state="SUPPORTED", severity="MINOR", method="m", confidence=1.0)
        for i in range(claims)
    )
    return candidate


def _label(claims: list[Claim], labels: str, reviewer: User, *, blind: bool = True) -> None:
    """Label claims in order: S supported, R refuted, N not in the sources."""
    words = {"S": "SUPPORTED", "R": "REFUTED", "N": "NOT_IN_SOURCES"}
    for claim, letter in zip(claims, labels, strict=False):
        ClaimLabel.objects.create(claim=claim, case_id=claim.candidate.case_id, reviewer=reviewer,
                                  label=words[letter], blind=blind)


@pytest.fixture
def spot_checks(db, reviewer):
    """default: 12 spot checks fully labelled, 1 of them unsafe, under v1 (budget 5%) and v2 (budget 10%); lenient
    (budget 50%): 10, none unsafe. Around them, what must not count."""
    client, _ = client_create(name="bot")
    v1, v2 = constitution_pin(None), _version("default", 2, 0.10)
    assert v1.content["policy"].get("max_unsafe_release_rate", 0.05) == 0.05 and v1.number == 1
    for index in range(11):
        _label(_released(client, v1 if index < 6 else v2, 2), "SS", reviewer, blind=index != 0)
    _label(_released(client, v2, 3), "SRS", reviewer)  # the unsafe one: a claim refuted
    # Still being labelled: one claim of two.
    _label(_released(client, v2, 2), "N", reviewer)
    # A reviewer's edit after the release is not what was released: its claims are not the ones to label.
    edited = _released(client, v1, 1, reviewer_edit=True)
    _label(list(Claim.objects.filter(candidate__case_id=edited[0].candidate.case_id, candidate__position=1)), "R",
           reviewer)
    # Not spot checks, or drawn outside the period: never counted.
    _label(_released(client, v1, 1, spot=False), "R", reviewer)
    _label(_released(client, v1, 1, opened=DAY - timedelta(days=3)), "R", reviewer)
    lenient = _version("lenient", 1, 0.5)
    for _ in range(10):
        _label(_released(client, lenient, 1), "S", reviewer)


@pytest.mark.django_db
def test_the_unsafe_release_rate_per_constitution(spot_checks):
    rates = {rate.constitution: rate for rate in metrics_report(**PERIOD).unsafe_release}

    default, lenient = rates["default"], rates["lenient"]
    # k/n = 1/12; pending: the half-labelled case and the one whose released answer nobody labelled.
    assert (default.spot_checks, default.unsafe, default.blind, default.pending) == (12, 1, 11, 2)
    assert (default.budget, default.budget_version, default.versions) == (0.10, 2, [1, 2])
    assert math.isclose(default.estimate, 1 / 12)
    assert default.over_budget  # 35.4% > 10%
    assert (lenient.spot_checks, lenient.unsafe, lenient.budget, lenient.over_budget) == (10, 0, 0.5, False)


@pytest.mark.django_db
def test_the_metrics_page_shows_the_estimate_its_interval_and_warns_over_budget(client, support_lead, spot_checks):
    html = signed_in(client, support_lead).get(reverse("audit:metrics"), PAGE_PERIOD).content.decode()

    table = _table(html, "unsafe-release-table")
    assert ("default 12 (11 labelled blind throughout) + 2 still being labelled 1 8.3% 1.5% – 35.4% "
            "10% (v2; spot checks of v1, v2) upper bound above the budget") in table
    assert "lenient 10 (10 labelled blind throughout) 0 0.0% 0.0% – 27.8% 50% (v1) within the budget" in table
    warnings = re.findall(r'<p class="alert unsafe-warning" role="alert">(.*?)</p>', html, re.S)
    assert warnings == [
        "default: the unsafe release rate may be as high as 35.4% (the 95% upper bound; 1 unsafe of 12 spot checks), "
        "above the 10% risk budget of v2. Either too many released answers are unsafe, or too few spot checks are "
        "labelled yet to show that they are not."
    ]
    assert "95% Wilson score interval" in html


@pytest.mark.django_db
def test_answers_the_model_decided_a_claim_of_have_a_row_of_their_own(client, support_lead, reviewer):
    bot, _ = client_create(name="bot")
    lenient = _version("lenient", 1, 0.5)
    for _ in range(4):
        _label(_released(bot, lenient, 1), "S", reviewer)
    for labels in ("SR", "SS"):
        claims = _released(bot, lenient, 1)
        # The cascade's second claim: the offline verifier could not settle it, the model decided it.
        Claim.objects.create(candidate=claims[0].candidate, position=1, claim_id="k1", text="claim 1", start=0,
                             end=1, state="SUPPORTED", severity="MINOR", method="model:fake-llm-7b", confidence=0.9,
                             decided_by="cove/1:fake-llm-7b 0123456789abcdef", escalation="offline SUPPORTED at 0.6")
        _label(list(Claim.objects.filter(candidate=claims[0].candidate).order_by("position")), labels, reviewer)

    rates = [(rate.constitution, rate.by_model, rate.spot_checks, rate.unsafe)
             for rate in metrics_report(**PERIOD).unsafe_release]
    html = signed_in(client, support_lead).get(reverse("audit:metrics"), PAGE_PERIOD).content.decode()

    assert rates == [("lenient", False, 4, 0), ("lenient", True, 2, 1)]
    table = _table(html, "unsafe-release-table")
    assert "lenient 4 (4 labelled blind throughout) 0 0.0%" in table
    assert "lenient (answers in which the model decided a claim) 2 (2 labelled blind throughout) 1 50.0%" in table


@pytest.mark.django_db
def test_a_period_without_spot_checks_says_so(client, support_lead):
    html = signed_in(client, support_lead).get(reverse("audit:metrics"), PAGE_PERIOD).content.decode()

    assert "No spot check was drawn in this period." in _table(html, "unsafe-release-table")
    assert "unsafe-warning" not in html


# --- Cohen's κ on the page ------------------------------------------------------------------------------------

def _reviewer(name: str) -> User:
    return User.objects.create_user(username=name, password="x")


@pytest.fixture
def double_reviews(db, reviewer):
    """rita and vera review 10 cases twice (the judgements of test_cohens_kappa...); rita and walt 2."""
    client, _ = client_create(name="bot")
    vera, walt = _reviewer("vera"), _reviewer("walt")
    pin = constitution_pin(None)
    # (rita, vera) judgements; vera reviewed first in two cases where both approved (order must not matter).
    # An edit does not release the answer as it stands: it counts as not approving, as a reject does.
    judgements = [("APPROVE", "APPROVE")] * 4 + [("REJECT", "REJECT"), ("REJECT", "REJECT"), ("EDIT", "REJECT")] + [
        ("APPROVE", "REJECT")
    ] * 2 + [("REJECT", "APPROVE")]
    for index, (rita_says, vera_says) in enumerate(judgements):
        escalation = _escalated(client, pin, rules={"cite-policy": False, "word-limit": index >= 3})
        first, second = ((vera, vera_says), (reviewer, rita_says)) if index < 2 else (
            (reviewer, rita_says), (vera, vera_says))
        for person, kind in (first, second):
            Review.objects.create(escalation=escalation, reviewer=person, kind=kind,
                                  candidate=escalation.case.candidates.get())
    for _ in range(2):
        escalation = _escalated(client, pin, rules={})
        for person in (reviewer, walt):
            Review.objects.create(escalation=escalation, reviewer=person, kind="APPROVE",
                                  candidate=escalation.case.candidates.get())
    # 12 claims labelled by two reviewers (first, second): SS×5 RR×2 NN×1 SR×2 SN×1 RS×1.
    claims = _released(client, pin, 12, spot=False)
    _label(claims, "SSSSSRRNSSSR", reviewer)
    _label(claims, "SSSSSRRNRRNS", vera)


def _escalated(client, pin, *, rules: dict[str, bool]) -> Escalation:
    case = Case.objects.create(client=client, question="q", answer="a", status="ESCALATED", terminal="REVIEW",
                               reason="RULE_FAILED", constitution_pin=pin)
    candidate = _candidate(case, 0, "CLIENT", 1)
    RuleVerdict.objects.bulk_create(
        RuleVerdict(candidate=candidate, position=i, rule=rule, passed=passed, checked_by="code")
        for i, (rule, passed) in enumerate(rules.items())
    )
    escalation = Escalation.objects.create(case=case, reason="RULE_FAILED", severity="MINOR", reviews_required=2)
    Escalation.objects.filter(pk=escalation.pk).update(created_at=DAY)
    escalation.refresh_from_db()
    return escalation


@pytest.mark.django_db
def test_kappa_per_reviewer_pair_per_rule_and_over_claims(client, support_lead, double_reviews):
    report = metrics_report(**PERIOD)
    html = signed_in(client, support_lead).get(reverse("audit:metrics"), PAGE_PERIOD).content.decode()

    # rita / vera: p_o = 7/10, p_e = .6·.5 + .4·.5 = .5, κ = .4 (the test above, by hand).
    assert [(k.key, k.items, k.agreed, round(k.kappa, 4)) for k in report.kappa_by_pair if k.kappa is not None] == [
        ("rita / vera", 10, 7, 0.4)
    ]
    assert "rita / vera 10 7 0.40" in _table(html, "kappa-by-pair")
    assert "rita / walt 2 2 not enough data" in _table(html, "kappa-by-pair")
    # cite-policy failed on all ten: first review against second. The two cases vera opened were both approvals,
    # so the table is the one above: κ = .4. word-limit failed on three only: too few to say.
    assert "cite-policy 10 7 0.40" in _table(html, "kappa-by-rule")
    assert "word-limit 3 3 not enough data" in _table(html, "kappa-by-rule")
    # Claims: n = 12, agreed 8, p_o = 8/12; first labeller S 8, R 3, N 1; second S 6, R 4, N 2;
    # p_e = (8·6 + 3·4 + 1·2)/144 = 62/144; κ = (8/12 − 62/144)/(1 − 62/144) = 34/82 = 0.4146.
    assert math.isclose(report.kappa_claims.kappa, 34 / 82)
    assert "Labelled claims 12 8 0.41" in _table(html, "kappa-claims")


@pytest.mark.django_db
def test_kappa_tables_without_data_say_so(client, support_lead):
    html = signed_in(client, support_lead).get(reverse("audit:metrics"), PAGE_PERIOD).content.decode()

    assert "No case was reviewed twice in this period." in _table(html, "kappa-by-pair")
    assert "No claim was labelled by two reviewers in this period." in _table(html, "kappa-claims")

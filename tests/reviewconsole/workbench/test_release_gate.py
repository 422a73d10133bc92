"""Labels tune the gate: reviewers' claim labels become the engine's calibration input, the page shows the
curve and a budget's threshold, and publishing it makes the next case be judged with it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from django.contrib.auth.models import User

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Candidate, Case, CaseStatus, Claim, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.review.models import ClaimLabel
from reviewconsole.workbench.labelled_answers import reviewer_labels
from reviewconsole.workbench.release_gate import curve, inconsistent_needed, verifier_in_use
from tests.reviewconsole.api.conftest import REFUND_CASE
from verification import Case as Submission
from verification.decision.calibration import builtin_calibration, upper_bound
from verification.decision.offline import OfflineVerifier
from verification.decision.verifier import identity

pytestmark = pytest.mark.django_db

PAGE = "/policy/constitutions/customer-support/release-gate/"
DRAFT = "/policy/constitutions/customer-support/release-gate/draft"
S, R, N = "SUPPORTED", "REFUTED", "NOT_IN_SOURCES"

# The built-in threshold for a 5% budget, as the tune splits set it for the verifier as it is now.
BUILTIN = builtin_calibration(identity(OfflineVerifier()), 0.05)
assert BUILTIN is not None
IN_FORCE = f"{BUILTIN.threshold:.4f}"
# The refund answer rewritten to what the policy says: the offline verifier supports both claims, the second
# proven word for word, the first (a paraphrase) with a release score above the built-in threshold of its
# stratum for a 5% budget, and below 0.9.
FIXED_REFUND = {
    **REFUND_CASE,
    "answer": "Annual plans can be refunded in full within 30 days after purchase. "
              "Approved refunds are returned to the original payment method within 5 to 10 business days.",
    "constitution": "customer-support",
}


@dataclass
class Seed:
    """Labelled cases written as the engine and reviewers would have left them."""

    client: Client
    reviewers: list[User]
    verifier: str = field(default_factory=lambda: verifier_in_use().name)

    def case(self, *, constitution: str = "customer-support", verifier: str | None = None, pinned: bool = True) -> Case:
        pin = constitution_in_force(constitution) if pinned else None
        scored_by = self.verifier if verifier is None else verifier
        return Case.objects.create(
            client=self.client, question="q", answer="a", status=CaseStatus.ESCALATED,
            constitution_name=constitution if pinned else "", constitution_pin=pin,
            constitution_version=pin.short_sha if pin else "", verifier=scored_by,
            run_record={"verifier": scored_by},
        )

    def answer(self, case: Case, *claims: tuple[str, float | None, tuple[str, ...]], position: int = 0) -> Candidate:
        """A candidate of `case` with one claim per (engine state, release score, labels by reviewer 1, 2, ...)."""
        candidate = Candidate.objects.create(case=case, position=position, candidate_id=f"c{position}",
                                             origin="CLIENT", text="a", sha256="0" * 64)
        for index, (state, score, labels) in enumerate(claims):
            claim = Claim.objects.create(candidate=candidate, position=index, claim_id=f"k{index}", text="t",
                                         start=0, end=1, state=state, severity="MINOR", method="offline",
                                         confidence=0.9, release_score=score)
            for reviewer, label in zip(self.reviewers, labels, strict=False):
                ClaimLabel.objects.create(claim=claim, case=case, reviewer=reviewer, label=label)
        return candidate

    def answers(self, count: int, score: float, label: str) -> None:
        for _ in range(count):
            self.answer(self.case(), ("SUPPORTED", score, (label,)))


@pytest.fixture
def seed(reviewer) -> Seed:
    client, _ = client_create(name="support-bot")
    return Seed(client, [reviewer, User.objects.create_user("lena")])


@pytest.fixture
def labelled(seed):
    """Hand-made labelled answers of customer-support, one of each kind the selector tells apart."""
    seed.answer(seed.case(), (S, 0.9, (S,)), (S, 0.8, (S,)))  # consistent, 0.8
    seed.answer(seed.case(), (S, 0.95, (S,)), ("REFUTED", 0.1, (R,)))  # inconsistent, 0: the engine refuted one
    seed.answer(seed.case(), (S, 0.85, (S, N)))  # inconsistent, 0.85: the second reviewer found it not in sources
    seed.answer(seed.case(), (S, 0.7, (S,)), ("NOT_VERIFIABLE", None, (S,)))  # consistent, 0.7: opinions unscored
    seed.answer(seed.case(), ("INSUFFICIENT_EVIDENCE", 0.3, (S,)))  # consistent by people, 0 by the engine
    seed.answer(seed.case(), (S, 0.9, (S,)), (S, 0.9, ()))  # partly labelled: not an answer yet
    seed.answer(seed.case(verifier="offline/5"), (S, 0.99, (S,)))  # another verifier's score: left out
    seed.answer(seed.case(constitution="default"), (S, 0.6, (R,)))  # another constitution
    seed.answer(seed.case(pinned=False), (S, 0.65, (S,)))  # older than pinning, unnamed: default's
    repaired = seed.case()
    seed.answer(repaired, (R, 0.05, (R,)))  # inconsistent, 0
    seed.answer(repaired, (S, 0.75, (S,)), position=1)  # the repair, consistent, 0.75
    seed.answer(seed.case(), (S, 0.9, ()))  # nobody labelled it
    return seed


def test_labels_become_the_engines_calibration_input(labelled):
    labels = reviewer_labels(constitution="customer-support", verifier=labelled.verifier)

    scores = labels.scores()
    assert scores.name == "customer-support/reviewer-labels"
    assert sorted(scores.consistent) == [0.0, 0.7, 0.75, 0.8]
    assert sorted(scores.inconsistent) == [0.0, 0.0, 0.85]
    assert (labels.consistent, labels.inconsistent, labels.disputed, labels.partly_labelled) == (4, 3, 1, 1)
    assert labels.excluded == (("offline/5", 1),)
    default = reviewer_labels(constitution="default", verifier=labelled.verifier).scores()
    assert (default.consistent, default.inconsistent) == ([0.65], [0.6])


def test_the_curve_counts_what_each_threshold_releases(labelled):
    points = curve(reviewer_labels(constitution="customer-support", verifier=labelled.verifier).scores())

    assert [(p.threshold, p.consistent_released, p.unsafe_released) for p in points] == [
        (1.0, 0, 0), (0.85, 0, 1), (0.8, 1, 1), (0.75, 2, 1), (0.7, 3, 1),
    ]
    assert points[3].automation == 0.5 and points[3].unsafe_rate == pytest.approx(1 / 3)


def test_the_labels_needed_for_a_budget_are_the_engines_bound_with_none_released():
    # 1 - 0.05^(1/n) <= budget: n >= ln 0.05 / ln(1 - budget); 4.32 for 50%, 13.4 for 20%, 58.4 for 5%.
    assert [inconsistent_needed(budget, 0.95) for budget in (0.5, 0.2, 0.05)] == [5, 14, 59]
    for budget, needed in ((0.5, 5), (0.2, 14), (0.05, 59)):
        assert upper_bound(0, needed, 0.95) <= budget < upper_bound(0, needed - 1, 0.95)


def test_the_page_shows_the_counts_the_curve_and_why_no_threshold_qualifies(admin_client, labelled):
    response = admin_client.get(PAGE + "?max_unsafe_release_rate=0.5")

    html = response.content.decode()
    assert response.status_code == 200 and "<h1>Release gate: customer-support</h1>" in html
    assert '<dd id="labelled-consistent">4</dd>' in html and '<dd id="labelled-inconsistent">3</dd>' in html
    assert '<dd id="labelled-disputed">1</dd>' in html and '<dd id="labelled-partly">1</dd>' in html
    assert "1 labelled answer left out: scored by another verifier than offline/" in html and "offline/5: 1" in html
    # The threshold in force is the verifier's built-in one for the 5% budget of v1.
    assert "a risk budget of 5.0% unsafe releases" in html
    assert f"release threshold {IN_FORCE} for at most 5% unsafe releases" in html
    # The consistent answers score 0, 0.7, 0.75 and 0.8; the inconsistent ones 0, 0 and 0.85.
    released = sum(score >= BUILTIN.threshold for score in (0.0, 0.7, 0.75, 0.8))
    assert (f"On these labels it releases {released} of 4 consistent answers ({released / 4:.1%} automation) "
            "and 1 of 3") in html
    row = html.split('<tr data-threshold="0.7500">')[1].split("</tr>")[0]
    assert "<td>50.0%</td>" in row and "<td>2 of 4</td>" in row and "<td>33.3%</td>" in row
    # 3 inconsistent answers cannot bound 50%: 1 - 0.05^(1/3) = 63.2%, and 5 are needed (hand computation).
    assert ("No threshold qualifies: too few labels for the bound: with 3 inconsistent answers, even releasing "
            "none of them the 95% upper bound on the unsafe release rate is 63.2%, above the budget of 50.0%; "
            "it takes at least 5 labelled inconsistent answers") in html
    # The threshold in force is no labelled answer's score, but it has its row.
    in_force = html.split(f'<tr data-threshold="{IN_FORCE}">')[1].split("</tr>")[0]
    assert f"<td>{released} of 4</td>" in in_force and "<td>1 of 3</td>" in in_force and "in force</span>" in in_force
    # ln 0.05 / ln 0.99 = 298.07: a 1% budget takes 299 inconsistent answers.
    one_percent = html.split('<tr data-budget="0.01">')[1].split("</tr>")[0]
    assert "none qualifies: it takes at least 299 labelled inconsistent answers" in one_percent
    assert '<svg viewBox="0 0 560 320" role="img"' in html and "<polyline points=" in html
    assert 'action="/policy/constitutions/customer-support/release-gate/draft"' not in html


def test_the_page_is_for_policy_admins(client, reviewer, outsider):
    assert client.get(PAGE).status_code == 302  # to sign in
    for person in (reviewer, outsider):
        client.force_login(person)
        assert client.get(PAGE).status_code == 403
        assert client.post(DRAFT, {"max_unsafe_release_rate": "0.2"}).status_code == 403
        assert client.get("/policy/release-gate/").status_code == 403
    assert not ConstitutionVersion.objects.filter(number=2).exists()


def test_wrong_methods_are_refused(admin_client):
    assert admin_client.post(PAGE, {"max_unsafe_release_rate": "0.2"}).status_code == 405
    assert admin_client.get(DRAFT).status_code == 405
    assert admin_client.get("/policy/constitutions/no-such-name/release-gate/").status_code == 404


@pytest.mark.parametrize("typed", ["0", "1", "-0.1", "1.5", "five percent", "nan", "inf", ""])
def test_a_budget_outside_0_to_1_is_refused_naming_the_field(admin_client, typed):
    page = admin_client.get(PAGE, {"max_unsafe_release_rate": typed})
    draft = admin_client.post(DRAFT, {"max_unsafe_release_rate": typed})

    for response in (page, draft):
        assert response.status_code == 400
        assert ('<p id="budget-error" class="error field-error">max_unsafe_release_rate: a number strictly between '
                "0 and 1, such as 0.05 for at most 5%</p>") in response.content.decode()
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_by_htmx_only_the_budget_part_comes_back(admin_client, labelled):
    labelled.answers(14, 0.85, R)

    fragment = admin_client.get(PAGE, {"max_unsafe_release_rate": "0.2"}, HTTP_HX_REQUEST="true")
    full = admin_client.get(PAGE, {"max_unsafe_release_rate": "0.2"})

    html = fragment.content.decode()
    assert fragment.status_code == 200 and "HX-Request" in fragment["Vary"]
    assert html.lstrip().startswith('<div id="budget"') and "<html" not in html and "<h1>" not in html
    assert "<h2>For at most 20.0% unsafe releases</h2>" in html
    assert "<html" in full.content.decode() and "<h2>For at most 20.0% unsafe releases</h2>" in full.content.decode()
    refused = admin_client.get(PAGE, {"max_unsafe_release_rate": "2"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400 and refused.content.decode().lstrip().startswith('<div id="budget"')


def test_a_budget_no_threshold_meets_saves_nothing(admin_client, labelled):
    response = admin_client.post(DRAFT, {"max_unsafe_release_rate": "0.5"})

    assert response.status_code == 400
    assert "max_unsafe_release_rate: no threshold qualifies for 50.0%: too few labels for the bound" in (
        response.content.decode())
    assert ConstitutionVersion.objects.filter(document__name="customer-support").count() == 1


def test_labels_without_inconsistent_answers_bound_nothing(admin_client, seed):
    empty = admin_client.get(PAGE).content.decode()
    assert "No threshold qualifies: no labelled answers yet: an answer counts once a reviewer has labelled every " \
           "one of its claims on the case page." in empty
    seed.answers(3, 0.9, S)

    html = admin_client.get(PAGE).content.decode()

    assert "No threshold qualifies: all 3 labelled answers are consistent: a bound on unsafe releases needs " \
           "inconsistent answers to count them." in html
    assert 'id="budgets"' not in html and "Save as a draft" not in html


def test_inconsistent_answers_scored_1_are_a_reason_no_threshold_qualifies(admin_client, seed):
    seed.answers(17, 0.5, R)
    seed.answers(3, 1.0, R)
    seed.answers(5, 1.0, S)

    html = admin_client.get(PAGE, {"max_unsafe_release_rate": "0.2"}).content.decode()

    # At the strictest threshold, 1, 3 of 20 are released: the exact bound is well above 20%.
    assert upper_bound(3, 20, 0.95) > 0.2
    assert "No threshold qualifies: 3 of the 20 inconsistent answers score 1, the highest score there is: no " \
           "threshold holds them back, and with them released the 95% upper bound exceeds the budget of 20.0%." in html


def _submit(client: Client, external_id: str) -> Case:
    case, _ = case_submit(client=client, submission=Submission.model_validate({**FIXED_REFUND,
                                                                               "external_id": external_id}))
    verify_case.apply(args=(case.pk,))
    return Case.objects.get(pk=case.pk)


def test_a_threshold_recalibrated_from_labels_is_published_and_judges_the_next_case(admin_client, seed):
    before = _submit(seed.client, "before")
    stratum = before.run_record["release_stratum"]
    assert (before.terminal, before.reason, before.run_record["release_threshold"]) == (
        "PERMIT", "ALL_SUPPORTED", BUILTIN.for_stratum(stratum).threshold)
    # Reviewers found 14 answers the engine scored 0.85 wrong, and 6 scored 0.9 or more right.
    seed.answers(14, 0.85, R)
    seed.answers(3, 0.9, S)
    seed.answers(3, 0.95, S)

    page = admin_client.get(PAGE, {"max_unsafe_release_rate": "0.2"}).content.decode()
    # Hand computation: from 1 down, 0.95 and 0.9 release none of the 14 (bound 1 - 0.05^(1/14) = 19.3% <= 20%);
    # 0.85 releases all 14. So 0.9, releasing all 6 consistent answers.
    assert "Release threshold <strong>0.9000</strong>: on these labels it releases 6 of 6 consistent answers " \
           "(100.0% automation) and 0 of 14 inconsistent ones; the 95% upper bound on the unsafe release rate " \
           "is 19.3%." in page
    assert '<input type="hidden" name="max_unsafe_release_rate" value="0.2">' in page

    saved = admin_client.post(DRAFT, {"max_unsafe_release_rate": "0.2"}, follow=True)

    assert saved.redirect_chain == [("/policy/constitutions/customer-support/v2/publish", 302)]
    confirm = saved.content.decode()
    assert "<h1>Publish customer-support v2?</h1>" in confirm and "Saved as draft v2" in confirm
    assert "<td>Risk budget: most unsafe releases (share, between 0 and 1)</td>" in confirm
    assert "<del>0.05</del>" in confirm and "<ins>0.2</ins>" in confirm and "<td>Release calibration</td>" in confirm
    assert constitution_in_force("customer-support").number == 1  # nothing in force until confirmed

    admin_client.post("/policy/constitutions/customer-support/v2/publish", {"confirm": "yes"})

    version = constitution_in_force("customer-support")
    assert version.number == 2 and version.author.username == "paul"
    policy = version.constitution().policy
    calibration = policy.release_calibration
    assert policy.max_unsafe_release_rate == 0.2 and calibration is not None
    assert (calibration.threshold, calibration.max_unsafe_release_rate, calibration.confidence) == (0.9, 0.2, 0.95)
    assert calibration.verifier == verifier_in_use().calibrated_as
    group = calibration.groups[0]
    assert (group.name, group.consistent, group.inconsistent, group.unsafe_released) == (
        "customer-support/reviewer-labels", 6, 14, 0)
    assert (group.unsafe_upper_bound, group.automation) == (0.1926, 1.0)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", calibration.computed)
    assert version.constitution().rules == ConstitutionVersion.objects.get(
        document__name="customer-support", number=1).constitution().rules
    changes = list(AuditEvent.objects.filter(action="policy.changed", object_type="ConstitutionVersion",
                                             object_id=str(version.pk)).values_list("payload__change", flat=True))
    assert sorted(changes) == ["draft saved", "published"]

    after = _submit(seed.client, "after")

    assert after.constitution_pin_id == version.pk
    assert (after.terminal, after.reason, after.run_record["release_threshold"]) == ("REVIEW",
                                                                                     "BELOW_RELEASE_THRESHOLD", 0.9)
    assert after.run_record["release_calibration"].startswith(
        "release threshold 0.9000 for at most 20% unsafe releases (95% upper bound 19.3% on "
        "customer-support/reviewer-labels; calibrated on customer-support/reviewer-labels, 20 labelled answers")
    assert after.status == CaseStatus.ESCALATED and after.escalation.reason == "BELOW_RELEASE_THRESHOLD"
    gate = admin_client.get(PAGE).content.decode()
    assert "its own calibration, from labels:" in gate and "release threshold 0.9000 for at most 20%" in gate


def test_the_index_and_the_constitution_page_lead_to_the_gate(admin_client, labelled):
    index = admin_client.get("/policy/release-gate/").content.decode()

    row = index.split('<tr data-constitution="customer-support">')[1].split("</tr>")[0]
    assert f'<a href="{PAGE}">customer-support</a>' in row
    assert "<td>5.0%</td>" in row and f"{IN_FORCE} <span class=\"muted\">(built-in)</span>" in row
    assert "<td>7 (4 / 3)</td>" in row
    assert 'href="/policy/release-gate/" aria-current="page">Release gate</a>' in index
    constitution = admin_client.get("/policy/constitutions/customer-support/").content.decode()
    assert f'<a href="{PAGE}">Release gate</a>' in constitution


MODEL_PATH = "cove/1:fake-llm-7b 0123456789abcdef"


def test_with_a_model_endpoint_the_labels_calibrate_the_claims_the_model_decided(seed):
    cascade = seed.case(verifier="cascade/1")
    candidate = seed.answer(cascade, (S, 0.9, (S,)), (S, 0.4, (S,)))
    # The second claim was the model's: the offline verifier could not settle it.
    Claim.objects.filter(candidate=candidate, position=1).delete()
    Claim.objects.create(candidate=candidate, position=1, claim_id="k1", text="t", start=0, end=1, state=S,
                         severity="MINOR", method="model:fake-llm-7b", confidence=0.9, release_score=0.7,
                         decided_by=MODEL_PATH, escalation="offline SUPPORTED at 0.40, below the safe band (0.76)")
    ClaimLabel.objects.create(claim=Claim.objects.get(candidate=candidate, position=1), case=cascade,
                              reviewer=seed.reviewers[0], label=R)
    seed.answer(seed.case(verifier="cascade/1"), (S, 0.95, (S,)))  # settled offline: nothing of the model's
    seed.answer(seed.case(verifier="cove/1:fake-llm-7b"), (S, 0.8, (S,)))  # every claim the model's
    seed.answer(seed.case(verifier="offline/7"), (S, 0.9, (S,)))

    labels = reviewer_labels(constitution="customer-support", verifier="cove/1:fake-llm-7b", model_path=MODEL_PATH)

    # The cascade's answer scores by the model's claim alone (0.7, not the offline claim's 0.9), and keeps
    # the whole answer's label: inconsistent.
    assert sorted((answer.score, answer.consistent) for answer in labels.answers) == [(0.7, False), (0.8, True)]
    assert labels.excluded == (("offline/7", 1),)


def test_with_a_model_endpoint_the_page_calibrates_the_model_path(admin_client, seed, settings):
    settings.LLM_BASE_URL, settings.LLM_MODEL = "http://127.0.0.1:9/v1", "fake-llm-7b"  # never called by the page
    path = verifier_in_use()
    assert path.cascade and path.name == "cove/1:fake-llm-7b"
    seed.answer(seed.case(verifier="cascade/1"), (S, 0.95, (S,)))  # settled offline: not the model's to count
    seed.answer(seed.case(verifier="cove/1:fake-llm-7b"), (S, 0.8, (S,)))

    html = admin_client.get(PAGE).content.decode()

    assert "the model path of the cascade: these labels calibrate the claims the model decided" in html
    assert "<dd id=\"labelled-consistent\">1</dd>" in html and "<dd id=\"labelled-inconsistent\">0</dd>" in html


def test_the_page_lists_each_stratum_of_the_threshold_in_force_with_what_it_released(admin_client, seed):
    for stratum in ("proven", "proven", "partial"):
        Case.objects.create(client=seed.client, question="q", answer="a", status=CaseStatus.RELEASED,
                            constitution_name="customer-support", terminal="PERMIT",
                            constitution_pin=constitution_in_force("customer-support"),
                            run_record={"verifier": seed.verifier, "release_stratum": stratum})

    html = admin_client.get(PAGE).content.decode()

    table = html.split('<table id="strata">')[1].split("</table>")[0]
    rows = {row.split("</th>")[0]: row for row in table.split('<th scope="row">')[1:]}
    assert list(rows) == [stratum.name for stratum in BUILTIN.strata] == ["proven", "aligned", "partial", "bare"]
    for stratum in BUILTIN.strata:
        bound = stratum.bound
        threshold = ("none" if stratum.threshold is None and not stratum.pooled
                     else f"pooled {BUILTIN.threshold:.4f}" if stratum.pooled else f"{stratum.threshold:.4f}")
        assert f"<td>{bound.consistent + bound.inconsistent}</td><td>{threshold}</td>" in rows[stratum.name]
    assert "<td>2</td></tr>" in rows["proven"]
    assert "<td>1</td></tr>" in rows["partial"] and "<td>0</td></tr>" in rows["bare"]

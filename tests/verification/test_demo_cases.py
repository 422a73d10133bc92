"""The demo a newcomer sees: every kind of outcome, and the two demo cases the release gate got wrong before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verification.engine import check_case
from verification.policy.constitution import builtin_names
from verification.types import Case, Reason, Source, State, Terminal

ROOT = Path(__file__).resolve().parents[2]
DEMO_FILES = (ROOT / "verification" / "demo_cases.json",
              ROOT / "reviewconsole" / "intake" / "fixtures" / "demo_cases.json",
              ROOT / "reviewconsole" / "intake" / "fixtures" / "demo_cases_languages.json")
DEMO = {raw["external_id"]: Case.model_validate(raw) for path in DEMO_FILES for raw in json.loads(path.read_text())}


@pytest.fixture(scope="module")
def records():
    return {name: check_case(case) for name, case in DEMO.items()}


def test_the_demo_releases_some_answers_and_escalates_each_kind_of_doubt(records) -> None:
    released = [name for name, record in records.items() if record.terminal is Terminal.PERMIT]
    reasons = {record.reason for record in records.values() if record.terminal is Terminal.REVIEW}

    assert released, "a demo where nothing is released shows no release"
    assert {Reason.CRITICAL_CLAIM, Reason.CONFLICTING_EVIDENCE, Reason.BELOW_RELEASE_THRESHOLD} <= reasons
    for name in released:
        record = records[name]
        assert all(claim.state is State.SUPPORTED for claim in record.candidates[-1].claims)
        assert all((claim.release_score or 0) >= (record.release_threshold or 0)
                   for claim in record.candidates[-1].claims)


def test_each_demo_case_is_judged_under_the_built_in_constitution_that_fits_it(records) -> None:
    under = {name: record.constitution.partition("@")[0] for name, record in records.items()}

    assert set(under.values()) == set(builtin_names())  # the demo shows every built-in constitution
    assert under["demo-dosage"] == "medical-information"
    assert {under[name] for name in ("demo-refund-window", "demo-pricing", "demo-warranty", "demo-roaming")} == {
        "customer-support"
    }
    assert under["demo-earnings-q3"] == under["demo-company-history"] == "default"
    # The medication answer is held to the patient-facing rules, the support replies to the support ones.
    assert {v.rule for v in records["demo-dosage"].candidates[0].rule_verdicts} >= {"no-diagnosis", "word-limit"}
    assert "no-guarantees" in {v.rule for v in records["demo-warranty"].candidates[0].rule_verdicts}


def test_the_demo_answers_in_chinese_and_german_are_verified_or_sent_to_a_person(records) -> None:
    travel, hours, refund = records["demo-travel-zh"], records["demo-museum-hours-zh"], records["demo-refund-de"]

    assert [claim.state for claim in travel.candidates[0].claims] == [State.INSUFFICIENT_EVIDENCE, State.REFUTED]
    assert travel.terminal is Terminal.REVIEW
    assert hours.terminal is Terminal.PERMIT
    assert {claim.language for claim in hours.candidates[0].claims} == {"zh"}
    assert refund.terminal is Terminal.REVIEW
    assert {claim.language for claim in refund.candidates[0].claims} == {"de"}


def test_demo_case_2_keeps_the_true_daily_maximum(records) -> None:
    # "6 tablets (1,200 mg) in any 24 hours" states the claim's maximum; it used to be refuted and replaced.
    record = records["demo-dosage"]
    (limit,) = [claim for claim in record.candidates[0].claims if "1,200 mg" in claim.text]
    assert limit.state is State.SUPPORTED
    assert "Do not take more than 1,200 mg in 24 hours." in record.final_answer


def test_demo_case_10_grounds_the_weight_in_the_spec_sheet_line(records) -> None:
    record = records["demo-laptop-specs"]
    (weight,) = [claim for claim in record.candidates[0].claims if "1.2 kg" in claim.text]
    assert weight.state is State.SUPPORTED
    assert [span.quote for span in weight.evidence] == ["Weight: 1.2 kg"]


PLANS = Case(
    question="Which plans include phone support, and what does Basic cost?",
    answer="Both plans include phone support. The Basic plan costs $10 per month.",
    sources=[Source(
        id="plans",
        text="Team plan: $25 per user per month, with email support.\n"
        "Basic plan: $10 per month, with email support.\n"
        "Only the Enterprise plan includes phone support.",
    )],
)


def test_a_false_quantifier_is_not_kept_while_the_true_price_is() -> None:
    # It used to go the other way: "Both plans ..." SUPPORTED, the true Basic price REFUTED against the
    # Team plan's line, and the repairs omitted the true claim and kept the false one.
    record = check_case(PLANS)
    first = {claim.text: claim.state for claim in record.candidates[0].claims}

    assert first["Both plans include phone support."] is not State.SUPPORTED
    assert first["The Basic plan costs $10 per month."] is State.SUPPORTED
    assert "Both plans include phone support" not in record.final_answer
    assert "The Basic plan costs $10 per month." in record.final_answer


def test_a_reviewers_correct_edit_is_not_refuted() -> None:
    # The edit reasons from the 30-day window; the old verifier compared 40 with 30 and refuted it.
    refund = DEMO["demo-refund-window"]
    edit = refund.model_copy(update={"answer": "A plan bought 40 days ago is no longer refundable."})
    (claim,) = check_case(edit, repair="none").candidates[0].claims
    assert claim.state is State.SUPPORTED

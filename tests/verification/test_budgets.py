"""Budgets are caps: a run never spends more verifier calls, model calls or time than its policy allows.
A run that would stops with the budget's reason, and a person sees what was left unverified."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.verification.replies import NO_FINDINGS, verdict_json
from tests.verification.verifiers import KeywordVerifier
from verification.engine import check_case
from verification.llm.client import ModelRequest, ScriptedModel
from verification.llm.cove import ModelVerifier
from verification.loop.contract import Proposal, RepairContext, RepairContract
from verification.loop.repair import RepairPlan
from verification.policy.constitution import DEFAULT, Policy
from verification.types import Candidate, Case, Reason, Source, State, Terminal

S, IE, U = State.SUPPORTED, State.INSUFFICIENT_EVIDENCE, State.UNRESOLVED
HANDBOOK = Source(
    id="handbook",
    text=(
        "Larkspur Basic costs $10 per month. Larkspur Team costs $25 per user per month. "
        "The Team plan includes up to 10 seats. Annual billing saves 15%. Support answers within one business day."
    ),
)
FIVE_CLAIMS = (
    "Larkspur Basic costs $10 per month. Larkspur Team costs $25 per user per month. "
    "The Team plan includes up to 10 seats. Annual billing saves 15%. Support answers within one business day."
)
NO_REVIEW = DEFAULT.model_copy(update={"policy": Policy(review_critical_claims=False)})


def _case(answer: str | None) -> Case:
    return Case(question="What does Larkspur cost?", answer=answer, sources=[HANDBOOK])


def test_a_first_answer_with_more_claims_than_the_verifier_budget_is_verified_up_to_the_cap() -> None:
    verifier = KeywordVerifier({})

    record = check_case(_case(FIVE_CLAIMS), verifier=verifier, max_verifier_calls=3)

    assert record.metrics.verifier_calls == 3 and len(verifier.seen) == 3
    assert (record.terminal, record.reason) == (Terminal.ABSTAIN, Reason.VERIFIER_BUDGET_EXHAUSTED)
    [first] = record.candidates
    assert [claim.state for claim in first.claims] == [S, S, S, U, U]
    for claim in first.claims[3:]:
        assert "verifier budget ran out" in claim.rationale and claim.evidence == []
    package = record.review_package
    assert package is not None and package.target_failures == ["k4", "k5"]
    assert package.budget_reason == "3 verifier calls, the budget is 3"


@dataclass(frozen=True)
class SplitInTwo:
    """A repair operator that replaces its target with two new sentences (two new claims to verify)."""

    name: str = "SPLIT"

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal:
        text = candidate.text
        for claim in candidate.claims:
            if claim.id in contract.target_claim_ids:
                text = text.replace(claim.text, "Support replies by email. Phone support is for Team plans.")
        return Proposal(text=text)


def test_a_repair_that_would_pass_the_verifier_budget_is_not_verified_and_the_run_stops() -> None:
    # Five calls for the first answer; the rewrite brings two new claims and one call is left.
    plan = RepairPlan(by_state={IE: (SplitInTwo(),)}, name="split")
    verifier = KeywordVerifier({"one business day": IE})

    record = check_case(
        _case(FIVE_CLAIMS), verifier=verifier, repair=plan, max_verifier_calls=6, constitution=NO_REVIEW
    )

    assert record.metrics.verifier_calls == 5 and len(verifier.seen) == 5
    assert (record.terminal, record.reason) == (Terminal.ABSTAIN, Reason.VERIFIER_BUDGET_EXHAUSTED)
    [attempt] = record.repairs
    assert (attempt.operation, attempt.outcome, attempt.to) == ("SPLIT", "REJECTED", None)
    assert attempt.failure == "not verified: 2 claims to verify, 1 of 6 verifier calls left"
    assert "Phone support" in (attempt.proposed_text or "")
    # The unverified rewrite never joined the chain, so it can never be approved as if checked.
    assert [candidate.id for candidate in record.candidates] == ["c0"]
    assert record.final_answer == FIVE_CLAIMS


def test_a_model_verifier_makes_no_call_the_model_budget_cannot_afford() -> None:
    model = ScriptedModel({"verifier": lambda request: verdict_json(request.text), "critic": NO_FINDINGS})
    verifier = ModelVerifier(model, write_questions=False)

    record = check_case(_case(FIVE_CLAIMS), verifier=verifier, model=model, max_model_calls=4)

    # Each claim could take three calls with retries: after two claims, four calls cannot cover a third.
    assert record.metrics.model_calls == len(model.requests) == 2
    assert (record.terminal, record.reason) == (Terminal.ABSTAIN, Reason.MODEL_BUDGET_EXHAUSTED)
    assert [claim.state for claim in record.candidates[0].claims] == [S, S, U, U, U]
    assert "model budget ran out" in record.candidates[0].claims[2].rationale
    assert model.requests_for("critic") == [], "the critic's call was not affordable either"


def test_no_verification_starts_once_the_time_budget_is_spent() -> None:
    def slow_draft(request: ModelRequest) -> str:
        time.sleep(0.05)
        return json.dumps({"answer": FIVE_CLAIMS})

    model = ScriptedModel({"generator": [slow_draft], "critic": NO_FINDINGS})
    verifier = KeywordVerifier({})

    record = check_case(_case(None), verifier=verifier, model=model, max_wall_ms=20)

    assert verifier.seen == [] and record.metrics.verifier_calls == 0
    assert (record.terminal, record.reason) == (Terminal.ABSTAIN, Reason.TIME_BUDGET_EXHAUSTED)
    assert {claim.state for claim in record.candidates[0].claims} == {U}
    assert model.requests_for("critic") == []


CASES = json.loads((Path(__file__).resolve().parents[2] / "verification" / "demo_cases.json").read_text("utf-8"))


@pytest.mark.parametrize("raw", CASES, ids=[case["external_id"] for case in CASES])
@pytest.mark.parametrize("budget", [1, 3])
def test_no_demo_case_spends_more_verifier_calls_than_its_budget(raw: dict, budget: int) -> None:
    record = check_case(Case.model_validate(raw), max_verifier_calls=budget)

    assert record.metrics.verifier_calls <= budget
    unverified = [c for candidate in record.candidates for c in candidate.claims if c.method == "budget"]
    if unverified:
        assert (record.terminal, record.reason) == (Terminal.ABSTAIN, Reason.VERIFIER_BUDGET_EXHAUSTED)
        assert all(claim.state is U for claim in unverified)
    if record.terminal is Terminal.PERMIT:
        assert all(claim.state is S for claim in record.candidates[-1].claims)

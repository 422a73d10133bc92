"""The recovery loop: the behaviours the seeds describe, on cases of our own."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from tests.verification.replies import claim_in, verdict_json
from tests.verification.verifiers import KeywordVerifier, calibrated, every_claim
from verification.decision.offline import OfflineVerifier
from verification.engine import check_case
from verification.llm.client import ModelRequest, ScriptedModel
from verification.loop.contract import Operation, Proposal, RepairContext, RepairContract
from verification.loop.judging import JUDGE_PROMPT
from verification.loop.repair import RepairPlan, UnknownRepairMode
from verification.policy.constitution import (
    DEFAULT,
    Constitution,
    ForbiddenPhrases,
    JudgedRule,
    Policy,
    WordLimit,
)
from verification.types import Candidate, Case, Origin, Reason, Source, State, Terminal

S, IE, R, C = State.SUPPORTED, State.INSUFFICIENT_EVIDENCE, State.REFUTED, State.CONFLICTING

# Q2 and the outlook are in the filing; Q3 revenue is not (the seed's worked example, our own words).
FILING = [Source(id="filing", text="Halden Tools reported Q2 revenue of $43.8 million. Management expects "
                                   "second-half demand to improve.")]
ANSWER = ("Halden Tools had Q2 revenue of $43.8 million. Second-half demand is expected to improve. "
          "Q3 revenue was about $46 million.")
NO_REVIEW = DEFAULT.model_copy(update={"policy": Policy(review_critical_claims=False)})


def _case(answer: str = ANSWER, sources: list[Source] = FILING, **extra: object) -> Case:
    return Case(question="How is Halden Tools doing?", answer=answer, sources=sources, **extra)


def _states(candidate: Candidate) -> dict[str, State]:
    return {claim.id: claim.state for claim in candidate.claims}


def test_omitting_the_unsupported_claim_reaches_permit_and_reverifies_only_what_changed() -> None:
    verifier = KeywordVerifier({"Q3": IE})

    record = check_case(_case(), verifier=verifier, constitution=calibrated(verifier, NO_REVIEW))

    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.REPAIRED)
    first, second = record.candidates
    assert _states(first) == {"k1": S, "k2": S, "k3": IE}
    assert _states(second) == {"k1": S, "k2": S}
    assert (second.parent, second.origin, second.operation) == ("c0", Origin.REPAIR, "OMIT_CLAIM")
    assert "Q3" not in record.final_answer and record.final_answer.startswith("Halden Tools had Q2")
    [repair] = record.repairs
    assert (repair.operation, repair.outcome, repair.target_claim_ids) == ("OMIT_CLAIM", "ACCEPTED", ["k3"])
    assert repair.protected_claim_ids == ["k1", "k2"] and repair.changed_claim_ids == ["k3"]
    assert repair.supported_removed == 0 and repair.surface_blast_radius == pytest.approx(1 / 3, abs=1e-3)
    # The unchanged claims came from the cache: three verifications, not five.
    assert verifier.seen == [claim.text for claim in first.claims]
    assert (record.metrics.verifier_calls, record.metrics.cache_hits) == (3, 2)
    assert record.metrics.claims_by_state == {"SUPPORTED": 2} and record.metrics.support_ratio == 1.0
    assert (record.metrics.unsupported_before, record.metrics.unsupported_after) == (1, 0)
    assert record.review_package is None


@dataclass(frozen=True)
class Hedge:
    """A repair operator that softens the claim instead of fixing it; idempotent, like the seed's."""

    name: str = "HEDGE_CLAIM"

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal:
        text = candidate.text
        for claim in candidate.claims:
            if claim.id in contract.target_claim_ids and " may have been " not in claim.text:
                text = text.replace(claim.text, claim.text.replace(" was ", " may have been "))
        return Proposal(text=text)


def test_a_hedging_operator_is_stopped_by_cycle_detection() -> None:
    plan = RepairPlan(by_state={IE: (Hedge(),)}, name="hedge")

    record = check_case(_case(), verifier=KeywordVerifier({"Q3": IE}), repair=plan, constitution=NO_REVIEW)

    assert (record.terminal, record.reason) == (Terminal.ABSTAIN, Reason.CYCLE_DETECTED)
    assert [_states(c) for c in record.candidates] == [{"k1": S, "k2": S, "k3": IE}] * 3
    assert "Q3 revenue may have been about $46 million." in record.candidates[1].text
    assert record.candidates[2].sha256 == record.candidates[1].sha256
    assert [r.operation for r in record.repairs] == ["HEDGE_CLAIM", "HEDGE_CLAIM"]
    package = record.review_package
    assert package is not None and package.target_failures == ["k3"] and package.parent_chain == ["c0", "c1"]
    assert "repeats" in (package.policy_reason or "")


def test_an_unknown_repair_mode_is_refused_before_any_verification() -> None:
    verifier = KeywordVerifier({})

    with pytest.raises(UnknownRepairMode, match="unknown repair mode 'guess'"):
        check_case(_case(), verifier=verifier, repair="guess")

    assert verifier.seen == []


def _critic_silent(request: ModelRequest) -> str:
    return '{"findings": []}'


ACME_SOURCES = [Source(id="about", text="Acme was founded in 1999 by Jane Roe. Acme is based in Oslo.")]
ACME = "Acme was founded in 1999 by Jane Roe. Acme is based in Oslo. Acme employs 40 people."


def test_an_overeager_reviser_that_drops_a_supported_claim_is_rejected_and_the_next_operation_runs() -> None:
    # The reviser "fixes" the refuted head-count by also deleting the founding claim: a regression.
    overeager = {"answer": "Acme is based in Oslo.", "changed_claim_ids": ["k3"]}
    model = ScriptedModel({"reviser": [overeager], "critic": _critic_silent})
    verifier = KeywordVerifier({"40 people": R})

    record = check_case(_case(ACME, ACME_SOURCES), verifier=verifier, model=model,
                        constitution=calibrated(verifier, NO_REVIEW))

    rejected, accepted = record.repairs
    assert (rejected.operation, rejected.outcome, rejected.to) == ("MODEL_REVISION", "REJECTED", None)
    assert rejected.supported_removed == 1 and "regression" in rejected.failure and "k1" in rejected.failure
    assert rejected.regression_severity > 0 and rejected.proposed_text == "Acme is based in Oslo."
    assert rejected.model_record is not None and rejected.model_record.role == "reviser"
    assert (accepted.operation, accepted.outcome) == ("OMIT_CLAIM", "ACCEPTED")
    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.REPAIRED)
    assert record.final_answer == "Acme was founded in 1999 by Jane Roe. Acme is based in Oslo."
    assert record.metrics.supported_removed == 0 and record.metrics.regressions == 1


def test_a_hedging_reviser_is_refused_and_its_attempts_recorded() -> None:
    hedged = {"answer": "Acme was founded in 1999 by Jane Roe. Acme is based in Oslo. Acme may employ 40 people.",
              "changed_claim_ids": ["k3"]}
    model = ScriptedModel({"reviser": [hedged] * 3, "critic": _critic_silent})

    verifier = KeywordVerifier({"40 people": R})
    record = check_case(_case(ACME, ACME_SOURCES), verifier=verifier, model=model,
                        constitution=calibrated(verifier, NO_REVIEW))

    failed = record.repairs[0]
    assert failed.operation == "MODEL_REVISION" and failed.outcome == "REJECTED"
    assert "hedging (may) is not a repair" in failed.failure
    assert record.repairs[-1].operation == "OMIT_CLAIM" and record.terminal is Terminal.PERMIT


def test_a_doubtless_verification_question_is_flagged_on_the_claim_and_by_the_critic() -> None:
    def question(request: ModelRequest) -> str:
        # Asks about something nobody doubted, leaving the year and the founder unchecked.
        return json.dumps({"question": "Is Acme a company?"}) if "1999" in claim_in(request.text) else json.dumps(
            {"question": f"Is it true that {claim_in(request.text)}"}
        )

    model = ScriptedModel({
        "question_writer": question,
        "verifier": lambda request: verdict_json(request.text),
        "critic": _critic_silent,
    })
    case = _case("Acme was founded in 1999 by Jane Roe. Acme is based in Oslo.", ACME_SOURCES)

    record = check_case(case, model=model, repair="none", constitution=every_claim())

    founded, based = record.candidates[0].claims
    assert founded.question_source is not None and founded.question_source.startswith("template:doubtless(")
    assert "1999" in (founded.question or "")
    assert based.question_source == "question_writer"
    flagged = [f for f in record.candidates[0].findings if f.claim == founded.id]
    assert flagged and "doubtless" in flagged[0].evidence


def test_a_word_limit_is_checked_in_code_and_converges() -> None:
    constitution = Constitution(name="short", rules=[WordLimit(name="word-limit", max_words=20)])
    answer = ("Thanks so much for getting in touch with us today! Acme was founded in 1999 by Jane Roe. "
              "Acme is based in Oslo. If you have any other questions, please do not hesitate to contact us.")

    verifier = KeywordVerifier({})
    record = check_case(_case(answer, ACME_SOURCES), verifier=verifier, constitution=calibrated(verifier, constitution))

    first, last = record.candidates[0], record.candidates[-1]
    [before], [after] = first.rule_verdicts, last.rule_verdicts
    assert (before.passed, before.checked_by) == (False, "code") and "words; the limit is 20" in before.critique
    assert (after.passed, after.checked_by) == (True, "code")
    assert record.repairs[0].operation == Operation.RULE_REVISION.value
    assert record.final_answer == "Acme was founded in 1999 by Jane Roe. Acme is based in Oslo."
    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.REPAIRED)
    assert record.metrics.rule_iterations == 1 and record.non_converging_rules == []


def test_a_fuzzy_rule_that_never_passes_is_recorded_as_non_converging_within_the_bound() -> None:
    constitution = Constitution(
        name="concise", rules=[JudgedRule(name="be-concise", instruction="Is the answer as concise as it can be?")]
    )
    # The moving bar: the judge always finds something to trim, the reviser always trims a little.
    revisions = [
        {"answer": "Acme was founded in 1999 by Jane Roe. Acme is based in Oslo!", "changed_claim_ids": []},
        {"answer": "Acme was founded in 1999 by Jane Roe.  Acme is based in Oslo.", "changed_claim_ids": []},
    ]
    judge = {"passed": False, "critique": "It could still be shorter."}
    model = ScriptedModel({"rule_judge": lambda request: json.dumps(judge), "reviser": revisions,
                           "critic": _critic_silent})
    answer = "Acme was founded in 1999 by Jane Roe. Acme is based in Oslo."

    record = check_case(_case(answer, ACME_SOURCES), verifier=KeywordVerifier({}), model=model,
                        constitution=constitution)

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.RULE_NOT_CONVERGING)
    assert record.non_converging_rules == ["be-concise"]
    assert record.metrics.rule_iterations == 2 == constitution.policy.max_rule_iterations
    assert len(record.candidates) == 3 and len(model.requests_for("reviser")) == 2
    assert all(c.rule_verdicts[0].checked_by == "model:scripted" for c in record.candidates)
    assert [r.role for r in record.candidates[0].judge_records] == ["rule_judge", "critic"]
    assert record.candidates[0].judge_records[0].prompt_sha256 == JUDGE_PROMPT.sha256
    assert record.review_package is not None and record.review_package.rule_failures


def test_a_judged_rule_without_a_model_is_reported_not_checked() -> None:
    constitution = Constitution(name="judged", rules=[JudgedRule(name="tone", instruction="Is the tone kind?")])

    verifier = KeywordVerifier({})
    record = check_case(_case("Acme is based in Oslo.", ACME_SOURCES), verifier=verifier,
                        constitution=calibrated(verifier, constitution))

    [verdict] = record.candidates[0].rule_verdicts
    assert (verdict.passed, verdict.checked_by) == (None, "not_checked")
    assert record.terminal is Terminal.PERMIT


def test_a_blocking_rule_that_cannot_be_fixed_rejects_the_answer() -> None:
    constitution = Constitution(
        name="strict", rules=[ForbiddenPhrases(name="no-guarantees", phrases=["guaranteed"], blocking=True)]
    )
    answer = "Acme is guaranteed to be based in Oslo."

    record = check_case(_case(answer, ACME_SOURCES), verifier=KeywordVerifier({}), constitution=constitution)

    assert (record.terminal, record.reason) == (Terminal.REJECT, Reason.BLOCKING_RULE_FAILED)
    assert record.candidates[0].rule_verdicts[0].blocking is True


def test_a_critical_claim_unsupported_in_the_original_goes_to_a_person_even_when_repaired() -> None:
    answer = "Acme is based in Oslo. Refunds are paid within 90 days."

    record = check_case(_case(answer, ACME_SOURCES), verifier=KeywordVerifier({"Refunds": IE}))

    assert record.final_answer == "Acme is based in Oslo."
    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.CRITICAL_CLAIM)
    package = record.review_package
    assert package is not None and package.original_candidate == "c0" and package.current_candidate == "c1"
    assert "not supported in the original answer: k2" in (package.policy_reason or "")
    assert [a.operation for a in package.attempts] == ["OMIT_CLAIM"]


PRO_PLAN = [Source(id="pricing", text="The Pro plan costs $20 per month. It includes 5 seats.")]


@pytest.mark.parametrize(
    "answer",
    [
        "The Pro plan costs $25 per month and includes 5 seats.",
        "The Pro plan, which includes 5 seats, costs $25 per month.",
        "The Pro plan costs $25 per month with 5 seats included.",
    ],
)
def test_a_wrong_value_is_replaced_from_its_evidence_wherever_it_sits_and_the_rest_is_kept(answer: str) -> None:
    record = check_case(Case(question="What does the Pro plan cost?", answer=answer, sources=PRO_PLAN))

    assert record.final_answer == answer.replace("$25", "$20")
    assert [repair.operation for repair in record.repairs] == ["REPLACE_WITH_EVIDENCE"]
    assert {claim.state for claim in record.candidates[-1].claims} == {S}


def test_a_permission_the_policy_grants_is_supported_when_the_answer_states_it_plainly() -> None:
    terms = [Source(id="terms", text="You may cancel your subscription at any time.")]

    record = check_case(Case(question="Can I cancel my subscription?", answer="Yes, you can cancel at any time.",
                             sources=terms))

    assert [claim.state for claim in record.candidates[0].claims] == [S]
    assert record.reason is not Reason.CRITICAL_CLAIM and record.repairs == []


def test_conflicting_evidence_goes_to_a_person_without_any_repair() -> None:
    record = check_case(_case(), verifier=KeywordVerifier({"Q3": C}))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.CONFLICTING_EVIDENCE)
    assert record.repairs == [] and len(record.candidates) == 1


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        ({"max_repairs": 0}, Reason.REPAIR_BUDGET_EXHAUSTED),
        ({"max_verifier_calls": 3}, Reason.VERIFIER_BUDGET_EXHAUSTED),
    ],
)
def test_budgets_stop_the_loop_with_abstain(budget: dict[str, int], reason: Reason) -> None:
    record = check_case(_case(), verifier=KeywordVerifier({"Q3": IE}), **budget)

    assert (record.terminal, record.reason) == (Terminal.ABSTAIN, reason)
    assert record.review_package is not None and record.review_package.budget_reason


def test_nothing_supported_without_a_model_is_rejected() -> None:
    record = check_case(_case("The Q3 report was published in October."), verifier=KeywordVerifier({"Q3": IE}))

    assert (record.terminal, record.reason) == (Terminal.REJECT, Reason.NOTHING_SUPPORTED)


def test_nothing_supported_with_a_critical_claim_goes_to_a_person() -> None:
    record = check_case(_case("Q3 revenue was about $46 million."), verifier=KeywordVerifier({"Q3": IE}))

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.CRITICAL_CLAIM)
    assert record.review_package is not None


def test_full_regeneration_sees_a_typed_failure_record_and_is_verified_from_scratch() -> None:
    new_answer = "Halden Tools reported Q2 revenue of $43.8 million."
    model = ScriptedModel({"generator": [{"answer": new_answer}], "critic": _critic_silent})
    verifier = KeywordVerifier({"Q3": IE})

    record = check_case(_case("Q3 revenue was about $46 million."), verifier=verifier, model=model)

    first, second = record.candidates
    assert (second.origin, second.parent, second.operation) == (Origin.GENERATOR, "c0", "FULL_REGENERATION")
    assert second.text == new_answer and second.model_record is not None
    assert [claim.id for claim in second.claims] == ["k2"], "a regenerated claim is a new claim"
    assert verifier.seen == [first.claims[0].text, new_answer]
    [request] = model.requests_for("generator")
    record_part = request.text.split("Failure record (not evidence):", 1)[1].split("Sources:", 1)[0]
    assert '"origin": "FAILED_CANDIDATE"' in record_part and "FACTUAL_EVIDENCE" in record_part
    sources_part = request.text.split("Sources:", 1)[1]
    assert "Q3 revenue" not in sources_part, "the failed text is never given as a source"
    assert all(claim.state is S for claim in second.claims)
    # The original's $46 million was a critical claim that failed: policy still wants a person.
    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.CRITICAL_CLAIM)


def test_the_offline_loop_runs_on_a_larkspur_answer() -> None:
    case = _case(
        "Your data is kept for 90 days after cancelling. Refunds reach the original payment method in 5 to 10 "
        "business days.",
        [Source(id="retention", text="After cancellation, account data is kept for 30 days."),
         Source(id="timing", text="Refunds reach the original payment method in 5 to 10 business days.")],
    )

    record = check_case(case, verifier=OfflineVerifier())

    for repair in record.repairs:
        assert repair.supported_removed == 0 or repair.outcome == "REJECTED"
    if record.terminal is Terminal.PERMIT:
        assert all(claim.state is S for claim in record.candidates[-1].claims)

"""No sentence goes out unchecked: each sentence of an answer is a claim checked against the sources or is
non-factual by the short list, and a critical claim that no one could verify goes to a person."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.verification.verifiers import KeywordVerifier, calibrated
from verification.engine import check_case
from verification.loop.contract import Proposal, RepairContext, RepairContract
from verification.loop.repair import RepairPlan
from verification.policy.constitution import DEFAULT, Constitution, Policy
from verification.types import Candidate, Case, Reason, Severity, Source, State, Terminal

S, IE, N, U = State.SUPPORTED, State.INSUFFICIENT_EVIDENCE, State.NOT_VERIFIABLE, State.UNRESOLVED
REFUNDS = Source(
    id="refund-policy",
    text=(
        "Annual plans can be refunded in full within 30 days of purchase. "
        "Approved refunds are returned to the original payment method within 5 to 10 business days."
    ),
)
WINDOW = "Annual plans can be refunded in full within 30 days of purchase."
TIMING = "Approved refunds are returned to the original payment method within 5 to 10 business days."
NO_REVIEW = DEFAULT.model_copy(update={"policy": Policy(review_critical_claims=False)})


def _case(answer: str) -> Case:
    return Case(question="Can I get my money back?", answer=answer, sources=[REFUNDS])


def test_a_refund_promise_in_an_imperative_is_checked_and_never_released() -> None:
    promise = "Contact support to get a full refund at any time."
    answer = f"Thanks for reaching out! {WINDOW} {promise} Hope this helps!"

    record = check_case(_case(answer))

    first = record.candidates[0]
    assert [claim.text for claim in first.claims] == [WINDOW, promise]
    checked = first.claims[1]
    assert checked.severity is Severity.CRITICAL and checked.state is not S
    assert record.terminal is not Terminal.PERMIT
    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.CRITICAL_CLAIM)


def test_an_i_think_sentence_is_a_claim_checked_against_the_sources() -> None:
    opinion = "I think the annual plan is still the best value."
    verifier = KeywordVerifier({"best value": IE})

    record = check_case(_case(f"{WINDOW} {opinion}"), verifier=verifier, constitution=calibrated(verifier))

    assert verifier.seen[:2] == [WINDOW, opinion]
    assert [(c.text, c.state) for c in record.candidates[0].claims] == [(WINDOW, S), (opinion, IE)]
    # Released only without it: the hedge did not make the unsupported claim safe.
    assert (record.terminal, record.reason) == (Terminal.PERMIT, Reason.REPAIRED)
    assert record.final_answer == WINDOW


def test_greetings_thanks_offers_of_help_and_sign_offs_are_not_claims_and_the_record_lists_them() -> None:
    answer = f"Hi Sam, thanks for getting in touch! {TIMING}\nLet me know if you need anything else.\nRegards,\nAnna"
    verifier = KeywordVerifier({})

    record = check_case(_case(answer), verifier=verifier, constitution=calibrated(verifier))

    assert verifier.seen == [TIMING]
    assert (record.terminal, record.reason, record.final_answer) == (Terminal.PERMIT, Reason.ALL_SUPPORTED, answer)
    [note] = [note for note in record.notes if note.startswith("not factual, left out of the claims")]
    assert "'Hi Sam, thanks for getting in touch!' (thanks)" in note
    assert "'Let me know if you need anything else.' (offer of help)" in note
    assert "'Regards,' (sign-off); 'Anna' (sign-off)" in note


@pytest.mark.parametrize("constitution", [DEFAULT, NO_REVIEW], ids=["default", "critical-review-off"])
@pytest.mark.parametrize(("state", "reason"), [(N, Reason.CRITICAL_CLAIM), (U, Reason.UNRESOLVED_CLAIM)])
def test_a_critical_claim_that_cannot_be_verified_goes_to_a_person(
    state: State, reason: Reason, constitution: Constitution
) -> None:
    answer = f"{TIMING} You are entitled to a full refund at any time."

    record = check_case(_case(answer), verifier=KeywordVerifier({"any time": state}), constitution=constitution)

    supported, promise = record.candidates[-1].claims
    assert (supported.state, promise.state, promise.severity) == (S, state, Severity.CRITICAL)
    assert (record.terminal, record.reason) == (Terminal.REVIEW, reason)
    assert record.review_package is not None and promise.id in (record.review_package.policy_reason or "")


@dataclass(frozen=True)
class Vague:
    """A repair operator that rewrites its target into a promise no source can check."""

    name: str = "VAGUE"

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal:
        vague = "Refunds are handled as the law allows."
        text, rewritten = candidate.text, {}
        for claim in candidate.claims:
            if claim.id in contract.target_claim_ids:
                text, rewritten[claim.id] = text.replace(claim.text, vague), vague
        return Proposal(text=text, rewritten=rewritten)


def test_a_critical_claim_a_repair_made_unverifiable_is_not_released_even_with_critical_review_off() -> None:
    plan = RepairPlan(by_state={IE: (Vague(),)}, name="vague")
    verifier = KeywordVerifier({"90 days": IE, "law allows": N})

    record = check_case(
        _case(f"{TIMING} Refunds are paid within 90 days."), verifier=verifier, repair=plan, constitution=NO_REVIEW
    )

    first, repaired = record.candidates
    assert [c.state for c in first.claims] == [S, IE] and [c.state for c in repaired.claims] == [S, N]
    assert repaired.claims[1].severity is Severity.CRITICAL
    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.CRITICAL_CLAIM)
    assert "could not be verified: k2" in (record.review_package.policy_reason or "")

"""check_case: from a case to a run record, with the terminal decided from the claim states."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from tests.verification.conftest import LARKSPUR_CLAIMS, LARKSPUR_SOURCES
from tests.verification.verifiers import calibrated
from verification.claims.extraction import ExtractedClaim
from verification.decision.verifier import Verdict
from verification.engine import MissingFieldError, check_case
from verification.errors import PermanentError
from verification.llm.client import ScriptedModel
from verification.types import (
    Case,
    EvidenceSpan,
    Origin,
    Reason,
    RunRecord,
    Severity,
    Source,
    State,
    Terminal,
    sha256_text,
)

S, R, IE, C, U, N = (
    State.SUPPORTED,
    State.REFUTED,
    State.INSUFFICIENT_EVIDENCE,
    State.CONFLICTING,
    State.UNRESOLVED,
    State.NOT_VERIFIABLE,
)
ACME = "Acme was founded in 1999 by Jane Roe. Its headquarters are in Oslo. Acme employs 40 people."
ACME_SOURCES = [Source(id="about", text="Acme, founded in 1999 by Jane Roe, is based in Oslo and has 40 staff.")]


@dataclass
class StubVerifier:
    """Gives the claims the states it is told, in order, and remembers what it was asked."""

    states: Sequence[State]
    name: str = "stub/1"
    seen: list[list[str]] = field(default_factory=list)

    def config_fingerprint(self) -> str:
        return "stub"

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        self.seen.append([claim.text for claim in claims])
        source = sources[0]
        span = EvidenceSpan(source_id=source.id, start=0, end=5, quote=source.text[:5])
        return [
            Verdict(state=state, evidence=(span,), confidence=0.8, method="stub", rationale=f"told {state}")
            for state in self.states
        ]


def _case(answer: str | None, sources: list[Source] = LARKSPUR_SOURCES, **extra: object) -> Case:
    return Case(question="What does the policy say?", answer=answer, sources=sources, **extra)


LARKSPUR_ANSWER = "Hello! " + " ".join(LARKSPUR_CLAIMS)  # three CRITICAL claims (refunds, data)


@pytest.mark.parametrize(
    ("answer", "sources", "states", "terminal", "reason"),
    [
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [S, S, S], Terminal.PERMIT, Reason.ALL_SUPPORTED),
        (ACME, ACME_SOURCES, [S, N, S], Terminal.PERMIT, Reason.ALL_SUPPORTED),
        # A critical promise that no one could check is never released.
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [S, N, S], Terminal.REVIEW, Reason.CRITICAL_CLAIM),
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [S, C, U], Terminal.REVIEW, Reason.CONFLICTING_EVIDENCE),
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [S, R, U], Terminal.REVIEW, Reason.UNRESOLVED_CLAIM),
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [S, S, R], Terminal.REVIEW, Reason.CRITICAL_CLAIM),
        (ACME, ACME_SOURCES, [S, IE, S], Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM),
        # Nothing supported: a customer asking about a refund is owed an answer, so a person writes it...
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [R, IE, R], Terminal.REVIEW, Reason.CRITICAL_CLAIM),
        # ...while an answer with nothing critical in it is rejected.
        (ACME, ACME_SOURCES, [IE, IE, IE], Terminal.REJECT, Reason.NOTHING_SUPPORTED),
        (LARKSPUR_ANSWER, LARKSPUR_SOURCES, [N, N, N], Terminal.REVIEW, Reason.NO_CHECKABLE_CLAIMS),
    ],
)
def test_terminal_follows_the_claim_states(
    answer: str, sources: list[Source], states: list[State], terminal: Terminal, reason: Reason
) -> None:
    # The decision alone, without repairs: the no-repair baseline.
    verifier = StubVerifier(states)
    record = check_case(_case(answer, sources), verifier=verifier, repair="none", constitution=calibrated(verifier))

    assert (record.terminal, record.reason) == (terminal, reason)
    assert [claim.state for claim in record.candidates[0].claims] == states
    assert (record.review_package is not None) == (terminal is Terminal.REVIEW)


def test_the_first_candidate_carries_claim_records_with_exact_spans() -> None:
    verifier = StubVerifier([S, R, S])
    case = _case(LARKSPUR_ANSWER, external_id="x-1", metadata={"ticket": 7})

    record = check_case(case, verifier=verifier, repair="none")

    [candidate] = record.candidates
    assert (candidate.id, candidate.parent, candidate.origin) == ("c0", None, Origin.CLIENT)
    assert candidate.sha256 == sha256_text(LARKSPUR_ANSWER)
    assert [claim.id for claim in candidate.claims] == ["k1", "k2", "k3"]
    for claim in candidate.claims:
        assert LARKSPUR_ANSWER[claim.start : claim.end] == claim.text
        assert claim.severity is Severity.CRITICAL
        assert claim.method == "stub" and claim.rationale.startswith("told")
        assert claim.evidence[0].source_id == "refund-window"
    assert candidate.claims[2].commitments[0].text == "90 days"
    assert verifier.seen == [list(LARKSPUR_CLAIMS)], "greetings are not claims"
    assert record.final_answer == LARKSPUR_ANSWER
    assert (record.external_id, record.metadata, record.verifier) == ("x-1", {"ticket": 7}, "stub/1")
    metrics = record.metrics
    assert (metrics.claims, metrics.unsupported_before, metrics.unsupported_after) == (3, 1, 1)
    assert (metrics.verifier_calls, metrics.model_calls, metrics.supported_removed) == (3, 0, 0)
    assert metrics.elapsed_ms >= 0


def test_the_review_package_says_what_failed_and_why() -> None:
    record = check_case(_case(LARKSPUR_ANSWER), verifier=StubVerifier([S, C, IE]))

    package = record.review_package
    assert package is not None
    assert (package.original_candidate, package.current_candidate) == ("c0", "c0")
    assert package.target_failures == ["k2", "k3"]
    assert package.states == {"k1": S, "k2": C, "k3": IE}
    assert package.evidence_used == [EvidenceSpan(source_id="refund-window", start=0, end=5, quote="Larks")]
    assert package.policy_reason == "the sources disagree on k2"
    assert package.attempts == [] and package.new_failures == []


def test_an_answer_with_no_checkable_claim_has_no_claims_and_a_note() -> None:
    verifier = StubVerifier([])

    record = check_case(_case("Thanks for asking! Hope this helps."), verifier=verifier)

    assert record.candidates[0].claims == []
    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.NO_CHECKABLE_CLAIMS)
    assert any("no checkable claim" in note for note in record.notes)
    assert any("'Hope this helps.' (offer of help)" in note for note in record.notes)
    assert verifier.seen == [] and record.metrics.verifier_calls == 0
    assert record.review_package is not None and record.review_package.target_failures == []


def test_a_missing_answer_without_a_model_is_a_permanent_error_naming_the_field() -> None:
    with pytest.raises(PermanentError, match=r"^answer: required") as caught:
        check_case(_case(None))
    assert isinstance(caught.value, MissingFieldError) and caught.value.field == "answer"


def test_a_generator_that_never_gives_valid_output_sends_the_case_to_a_person() -> None:
    model = ScriptedModel({"generator": ['{"answer": ""}', "nope", '{"text": "x"}']})

    record = check_case(_case(None), model=model)

    assert (record.terminal, record.reason) == (Terminal.REVIEW, Reason.MODEL_OUTPUT_INVALID)
    assert record.candidates == [] and record.final_answer == ""
    assert record.metrics.model_calls == 3
    assert "failed validation 3 times" in record.notes[0]


def test_the_offline_verifier_is_the_default() -> None:
    record = check_case(_case(LARKSPUR_ANSWER))

    assert record.verifier.startswith("offline/")
    claims = record.candidates[0].claims
    assert claims[2].text == LARKSPUR_CLAIMS[2] and claims[2].state is not State.SUPPORTED
    assert record.terminal is not Terminal.PERMIT


def test_the_run_record_survives_a_json_round_trip() -> None:
    case = _case(LARKSPUR_ANSWER, constitution="customer-support")
    record = check_case(case, verifier=StubVerifier([S, R, S]), repair="none")

    assert RunRecord.model_validate_json(record.model_dump_json(by_alias=True)) == record
    assert record.constitution is not None and record.constitution.startswith("customer-support@")


def test_an_unknown_constitution_is_refused_naming_the_field() -> None:
    with pytest.raises(MissingFieldError, match=r"^constitution: unknown constitution 'support-v1'") as caught:
        check_case(_case(LARKSPUR_ANSWER, constitution="support-v1"), verifier=StubVerifier([S, S, S]))
    assert caught.value.field == "constitution"

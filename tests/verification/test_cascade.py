"""The verification cascade against a fake OpenAI-compatible server: the offline verifier settles what it
can, the model sees the uncertain band only, and a model that fails sends the claim to a person."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.verification.fake_openai import MODEL_NAME, FakeOpenAIServer, Received, Reply
from tests.verification.replies import claim_in, cove_reply, role_of
from tests.verification.verifiers import calibrated
from verification.claims.extraction import extract_claims
from verification.decision.calibration import GroupBound, ReleaseCalibration, StratumThreshold, builtin_calibration
from verification.decision.methods import Method
from verification.decision.offline import OfflineVerifier
from verification.decision.verifier import Verdict, identity
from verification.engine import check_case, default_verifier
from verification.errors import PermanentError
from verification.llm.cascade import Cascade, CascadeVerifier
from verification.llm.client import OpenAIChatModel
from verification.llm.cove import ModelVerifier
from verification.policy.constitution import DEFAULT, Constitution, Policy, Route
from verification.types import Case, Reason, Source, State, Terminal

SOURCES = [
    Source(id="retention", text="After cancellation, account data is kept for 30 days."),
    Source(id="refund-timing", text="Refunds reach the original payment method in 5 to 10 business days."),
]
SETTLED = "Refunds reach the original payment method in 5 to 10 business days."
"""Word for word a source sentence: inside the offline verifier's safe band."""
PARAPHRASE = "We hold on to your data for 30 days once you cancel."
"""True, but read offline below the safe band (the threshold of its stratum, partial): the uncertain band."""
CLOSE_PARAPHRASE = "Your data is kept for 30 days after cancelling."
"""True, and read offline below the pooled threshold but above its stratum's: settled offline."""
CONTRADICTION = "Your data is kept for 90 days after cancelling."
"""A typed contradiction (90 days against 30): REFUTED offline, whatever a model would say."""


def _case(*claims: str) -> Case:
    return Case(question="What happens after I cancel?", answer=" ".join(claims), sources=SOURCES)


def _verifier_claims(server: FakeOpenAIServer) -> list[str]:
    return [claim_in(r.text) for r in server.received if role_of(r.system) == "verifier"]


def _model_path_calibrated(model: OpenAIChatModel, constitution: Constitution = DEFAULT) -> Constitution:
    """A constitution whose own calibration was made for the model path (threshold 0, from its labels)."""
    return calibrated(ModelVerifier(model), constitution)


def _with_route(route: Route | None, constitution: Constitution = DEFAULT) -> Constitution:
    return constitution.model_copy(update={"policy": constitution.policy.model_copy(
        update={"model_verification": route})})


def test_a_contradiction_and_a_safe_claim_never_reach_the_model_the_uncertain_one_does(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    fake_server.responder = cove_reply

    record = check_case(_case(SETTLED, PARAPHRASE, CONTRADICTION), model=client_model, repair="none")

    assert _verifier_claims(fake_server) == [PARAPHRASE]
    assert record.verifier == "cascade/1"
    settled, paraphrase, contradiction = record.candidates[0].claims
    assert settled.state is State.SUPPORTED and settled.method == "offline:proof" and settled.escalation is None
    assert contradiction.state is State.REFUTED and contradiction.method == "offline:typed-mismatch"
    assert contradiction.decided_by is None and contradiction.escalation is None
    # The model's verdict is the claim's: its state, its quote, its provenance, and why it was asked.
    assert paraphrase.state is State.SUPPORTED and paraphrase.method == f"model:{MODEL_NAME}"
    assert paraphrase.decided_by == identity(ModelVerifier(client_model))
    assert paraphrase.escalation == "offline SUPPORTED at 0.51, below the safe band (0.65)"
    assert paraphrase.model_record is not None and paraphrase.evidence[0].source_id == "retention"
    assert record.metrics.model_calls == 3  # the paraphrase's question and verification, the critic
    assert record.metrics.model_tokens == 6  # as the server reported them: 2 a call


def test_a_claim_the_model_supports_is_released_only_by_the_model_paths_own_calibration(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    fake_server.responder = cove_reply
    case = _case(SETTLED, PARAPHRASE)

    uncalibrated = check_case(case, model=client_model)
    released = check_case(case, model=client_model, constitution=_model_path_calibrated(client_model))

    # The offline calibration is no measure of the model's confidence: without its own, a person decides.
    assert uncalibrated.terminal is Terminal.REVIEW and uncalibrated.reason is Reason.NOT_CALIBRATED
    assert f"decided by {identity(ModelVerifier(client_model))} (k2)" in uncalibrated.review_package.policy_reason
    assert any("calibrate it on labels of claims it decided" in note for note in uncalibrated.notes)
    assert released.terminal is Terminal.PERMIT and released.reason is Reason.ALL_SUPPORTED
    # The settled claim was still gated by the offline calibration: the run's own (pooled) threshold, since the
    # answer has a claim the model decided and so no stratum of the offline verifier.
    builtin = builtin_calibration(identity(OfflineVerifier()), DEFAULT.policy.max_unsafe_release_rate)
    assert builtin is not None and released.release_threshold == builtin.threshold


def _failing_verifier(reply: Reply) -> object:
    """A server whose verification calls fail with `reply`; every other role answers as it should."""

    def respond(received: Received) -> Reply:
        return reply if role_of(received.system) in ("verifier", "question_writer") else cove_reply(received)

    return respond


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Reply(content="{}", delay=1.0), "unreachable"),  # the client's timeout is 0.3 s
        (Reply(status=429), "HTTP 429"),
        (Reply(content='{"state": "MAYBE"}'), "failed validation 3 times"),
        (Reply(content="I'm sorry, but I can't help with verifying that."), "failed validation 3 times"),
    ],
    ids=["timeout", "rate-limited", "malformed", "refusal"],
)
def test_a_model_that_fails_leaves_the_offline_reading_and_a_person_never_a_release(
    fake_server: FakeOpenAIServer, reply: Reply, why: str
) -> None:
    fake_server.responder = _failing_verifier(reply)
    model = OpenAIChatModel(base_url=fake_server.base_url, model="asked-model", timeout=0.3, max_retries=0)

    record = check_case(_case(SETTLED, PARAPHRASE), model=model, constitution=_model_path_calibrated(model))

    assert record.terminal is Terminal.REVIEW and record.reason is Reason.UNRESOLVED_CLAIM
    settled, paraphrase = record.candidates[-1].claims
    assert settled.state is State.SUPPORTED
    assert paraphrase.state is State.UNRESOLVED and paraphrase.method == "cascade:model-failed"
    assert paraphrase.release_score == 0.0 and why in paraphrase.rationale
    assert "the offline verifier read it as SUPPORTED at 0.51. A person decides." in paraphrase.rationale
    assert paraphrase.evidence and paraphrase.evidence[0].source_id == "retention"
    assert record.review_package is not None and record.review_package.target_failures == ["k2"]
    if reply.status == 200 and not reply.delay:
        # Every refused attempt was a call the server answered, and its tokens are counted.
        assert record.metrics.model_tokens == 2 * record.metrics.model_calls


def test_a_refused_api_key_is_the_configurations_error_not_a_claims(fake_server: FakeOpenAIServer) -> None:
    fake_server.responder = _failing_verifier(Reply(status=401))
    model = OpenAIChatModel(base_url=fake_server.base_url, model="asked-model", max_retries=0)

    with pytest.raises(PermanentError, match="HTTP 401"):
        check_case(_case(SETTLED, PARAPHRASE), model=model)


def test_the_route_is_the_constitutions_setting(fake_server: FakeOpenAIServer, client_model: OpenAIChatModel) -> None:
    fake_server.responder = cove_reply
    case = _case(SETTLED, PARAPHRASE, CONTRADICTION)

    off = check_case(case, model=client_model, constitution=_with_route(Route.OFF), repair="none")
    assert _verifier_claims(fake_server) == []
    every = check_case(case, model=client_model, constitution=_with_route(Route.ALL), repair="none")

    assert off.verifier.startswith("offline/") and all(c.decided_by is None for c in off.candidates[0].claims)
    assert sorted(_verifier_claims(fake_server)) == sorted([SETTLED, PARAPHRASE, CONTRADICTION])
    assert every.verifier == f"cove/1:{client_model.model_id}"


def test_the_default_route_is_the_uncertain_band_only_where_the_offline_verifier_is_calibrated(
    client_model: OpenAIChatModel,
) -> None:
    cascade = default_verifier(client_model)
    assert isinstance(cascade, Cascade)

    assert isinstance(cascade.bind(DEFAULT.policy), CascadeVerifier)
    builtin = builtin_calibration(identity(OfflineVerifier()), DEFAULT.policy.max_unsafe_release_rate)
    assert builtin is not None
    assert cascade.bind(DEFAULT.policy).safe_threshold == builtin.threshold  # type: ignore[attr-defined]
    # An offline configuration no calibration was made for has no safe band: every claim to the model.
    uncalibrated = Cascade(OfflineVerifier(off={"typed-mismatch"}), ModelVerifier(client_model))
    assert isinstance(uncalibrated.bind(DEFAULT.policy), ModelVerifier)
    assert default_verifier().name.startswith("offline/")


def test_the_policy_refuses_an_unknown_route() -> None:
    with pytest.raises(ValueError, match="model_verification"):
        Policy.model_validate({"model_verification": "sometimes"})


def test_calibrate_with_a_model_calibrates_the_model_path_on_the_claims_it_decides(
    tmp_path: Path, fake_server: FakeOpenAIServer
) -> None:
    fake_server.responder = cove_reply

    def labelled(consistent: bool, *claims: str) -> str:
        case = _case(*claims).model_dump(mode="json")
        return json.dumps({**case, "consistent": consistent, "group": "support"})

    lines = [labelled(True, PARAPHRASE)] * 3 + [labelled(False, "Deleted data can be restored within a week.")] * 2
    # Settled offline: neither reaches the model, so neither says anything about the model's scores.
    lines += [labelled(True, SETTLED), labelled(False, CONTRADICTION)]
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith("LLM_")}
    env.update({"LLM_BASE_URL": fake_server.base_url, "LLM_MODEL": "asked-model", "LLM_API_KEY": "k"})

    result = subprocess.run([sys.executable, "-m", "verification", "calibrate", str(path)], capture_output=True,
                            text=True, env=env, timeout=120, check=False)

    assert result.returncode == 0, result.stderr
    calibration = ReleaseCalibration.model_validate_json(result.stdout)
    assert calibration.verifier.startswith("cove/1:asked-model ")
    [group] = calibration.groups
    assert (group.consistent, group.inconsistent) == (3, 2)
    # The fake model supports everything it is asked, the false claims too: no threshold keeps them back.
    assert not calibration.met
    assert sorted(_verifier_claims(fake_server)) == sorted([PARAPHRASE] * 3 + ["Deleted data can be restored within "
                                                                               "a week."] * 2)


def test_the_table_says_which_claims_went_to_the_model_and_why(tmp_path: Path, fake_server: FakeOpenAIServer) -> None:
    fake_server.responder = cove_reply
    path = tmp_path / "case.json"
    path.write_text(_case(SETTLED, PARAPHRASE).model_dump_json(), encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith("LLM_")}
    env.update({"LLM_BASE_URL": fake_server.base_url, "LLM_MODEL": "asked-model"})

    result = subprocess.run([sys.executable, "-m", "verification", "check", str(path), "--format", "table"],
                            capture_output=True, text=True, env=env, timeout=120, check=False)

    assert result.returncode == 0, result.stderr
    assert "verifier cascade/1" in result.stdout
    assert "  k2 sent to the model: offline SUPPORTED at 0.51, below the safe band (0.65)" in result.stdout
    assert "k1 sent to the model" not in result.stdout


def test_a_proven_claim_never_reaches_the_model_even_without_a_calibrated_band(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel,
) -> None:
    # Without an offline calibration every other claim goes to the model; a proof settles its claim alone.
    fake_server.responder = cove_reply
    cascade = CascadeVerifier(OfflineVerifier(), ModelVerifier(client_model), None)
    claims = extract_claims(f"{SETTLED} {PARAPHRASE}")

    proven, paraphrase = cascade.verify(claims, SOURCES)

    assert _verifier_claims(fake_server) == [PARAPHRASE]
    assert proven.method == "offline:proof" and proven.decided_by is None and proven.escalation is None
    assert paraphrase.decided_by is not None


def test_a_claim_in_a_language_the_offline_verifier_does_not_read_goes_to_the_model(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    fake_server.responder = cove_reply
    thai = Source(id="hours", text="พิพิธภัณฑ์เปิดทุกวันตั้งแต่ 9.00 ถึง 17.00 น.")
    answer = "พิพิธภัณฑ์เปิดทุกวันตั้งแต่ 9.00 ถึง 17.00 น."

    record = check_case(Case(question="When is the museum open?", answer=answer, sources=[thai]),
                        model=client_model, repair="none")

    (claim,) = record.candidates[0].claims
    assert _verifier_claims(fake_server) == [answer]
    assert claim.language == "th"
    assert claim.method == f"model:{MODEL_NAME}" and claim.escalation is not None
    assert "Thai" in claim.escalation
    assert claim.evidence[0].source_id == "hours"  # the model's quote, found verbatim in the Thai source
    assert record.reason is not Reason.LANGUAGE_NOT_SUPPORTED


def test_with_every_claim_sent_to_the_model_a_proven_answer_is_released_without_the_models_calibration(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    # Day one with an LLM endpoint: no label of the model path yet. The model quotes the sentence, the
    # quote is found verbatim, and the offline proof aligns the claim to it word for word.
    fake_server.responder = cove_reply

    record = check_case(_case(SETTLED), model=client_model, constitution=_with_route(Route.ALL))

    (claim,) = record.candidates[-1].claims
    assert claim.method == f"model:{MODEL_NAME}" and claim.state is State.SUPPORTED
    assert claim.stratum == "proven" and claim.release_score == 1.0
    assert [(word.word, word.source_id) for word in claim.alignment][:3] == [
        ("Refunds", "refund-timing"), ("reach", "refund-timing"), ("original", "refund-timing")]
    assert claim.evidence[0].quote == SETTLED
    assert record.terminal is Terminal.PERMIT and record.reason is Reason.ALL_SUPPORTED
    assert record.release_stratum == "proven"


def test_a_model_verdict_its_quote_does_not_prove_still_waits_for_the_models_calibration(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    # True, and the model quotes the right sentence; but the words differ, so only a calibrated score
    # of the model could release it.
    fake_server.responder = cove_reply

    record = check_case(_case(SETTLED, PARAPHRASE), model=client_model, constitution=_with_route(Route.ALL))

    settled, paraphrase = record.candidates[0].claims
    assert settled.stratum == "proven"
    assert paraphrase.state is State.SUPPORTED and paraphrase.stratum is None and paraphrase.alignment == []
    assert record.terminal is Terminal.REVIEW and record.reason is Reason.NOT_CALIBRATED


def test_a_model_that_calls_a_wrong_number_supported_is_not_proven_by_the_sentence_it_quotes(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    # A model that errs: SUPPORTED for "90 days", quoting the sentence that says 30. The proof refuses it,
    # so the verdict stays the model's own and nothing is released without its calibration.
    fake_server.responder = cove_reply
    verifier = ModelVerifier(client_model)

    (verdict,) = verifier.verify(extract_claims(CONTRADICTION), SOURCES)

    assert verdict.state is State.SUPPORTED and verdict.evidence[0].source_id == "retention"
    assert verdict.stratum is None and verdict.release_score == 0.9 and "alignment" not in verdict.extra


def test_in_the_cascade_a_claim_the_model_decided_and_its_quotes_prove_needs_no_calibration_of_the_model(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    # The offline verifier, its proof switched off, cannot settle the copied sentence, so it goes to the
    # model; the model's quote proves it. The offline path is calibrated, the model path is not.
    fake_server.responder = cove_reply
    offline = OfflineVerifier(off={"proof"})
    cascade = CascadeVerifier(offline, ModelVerifier(client_model), None)

    record = check_case(_case(SETTLED), verifier=cascade, constitution=calibrated(offline), model=client_model)

    (claim,) = record.candidates[-1].claims
    assert _verifier_claims(fake_server) == [SETTLED]
    assert claim.decided_by == identity(ModelVerifier(client_model)) and claim.stratum == "proven"
    assert record.terminal is Terminal.PERMIT and record.reason is Reason.ALL_SUPPORTED


def test_the_safe_band_is_the_threshold_of_the_stratum_the_settled_claims_are_gated_at(
    fake_server: FakeOpenAIServer, client_model: OpenAIChatModel
) -> None:
    # The close paraphrase scores below the pooled threshold but above its stratum's (partial): the offline
    # verifier alone releases it, so the cascade settles it too instead of asking a model it cannot yet
    # release on. The loose one is below even its stratum's and still goes to the model.
    fake_server.responder = cove_reply
    builtin = builtin_calibration(identity(OfflineVerifier()), DEFAULT.policy.max_unsafe_release_rate)
    assert builtin is not None
    partial = builtin.for_stratum("partial").threshold
    assert partial < builtin.threshold

    record = check_case(_case(SETTLED, CLOSE_PARAPHRASE), model=client_model)
    mixed = check_case(_case(CLOSE_PARAPHRASE, PARAPHRASE), model=client_model, repair="none")

    settled, close = record.candidates[0].claims
    assert close.stratum == "partial" and partial <= (close.release_score or 0) < builtin.threshold
    assert close.decided_by is None and close.escalation is None
    assert record.terminal is Terminal.PERMIT and record.release_threshold == partial
    close, loose = mixed.candidates[0].claims
    assert close.decided_by is None and loose.decided_by is not None
    assert _verifier_claims(fake_server) == [PARAPHRASE]
    # The claim the model decided has no calibration of its own, so a person decides the answer; the
    # settled one is gated at its own stratum's threshold, which it clears.
    assert mixed.reason is Reason.NOT_CALIBRATED and mixed.release_threshold == partial


def test_a_claim_sent_to_the_model_can_change_the_gate_of_those_left_and_the_band_is_read_again(
    client_model: OpenAIChatModel,
) -> None:
    # Partial answers release at 0.5, aligned ones at 0.9. The partial claim (0.4) goes to the model; the
    # aligned claim left (0.8) then meets the aligned gate, which it does not clear: it goes too, rather
    # than being settled offline and held back by the gate its answer meets.
    def bound(name: str) -> GroupBound:
        return GroupBound(name=name, consistent=10, inconsistent=10, unsafe_released=0, unsafe_release_rate=0.0,
                          unsafe_upper_bound=0.01, automation=0.5)

    calibration = ReleaseCalibration(
        threshold=0.7, max_unsafe_release_rate=0.05, confidence=0.95, verifier="offline", groups=[bound("all")],
        computed="2026-12-01T00:00:00+00:00",
        strata=[StratumThreshold(name="aligned", threshold=0.9, bound=bound("aligned")),
                StratumThreshold(name="partial", threshold=0.5, bound=bound("partial"))],
    )
    cascade = CascadeVerifier(OfflineVerifier(), ModelVerifier(client_model), 0.7, calibration)
    aligned = Verdict(state=State.SUPPORTED, release_score=0.8, method=Method.SCORED, stratum="aligned")
    partial = Verdict(state=State.SUPPORTED, release_score=0.4, method=Method.SCORED, stratum="partial")
    clear = Verdict(state=State.SUPPORTED, release_score=0.6, method=Method.SCORED, stratum="partial")

    assert [i for i, _ in cascade.uncertain([aligned, partial])] == [0, 1]
    # With a partial claim that clears its gate left, the answer stays partial: the aligned claim is settled.
    assert [i for i, _ in cascade.uncertain([aligned, partial, clear])] == [1]

"""The critic: at most 8 structured findings, offline from states and rules, and its calibration."""

from __future__ import annotations

import json

from verification.engine import calibration_critic
from verification.llm.client import ScriptedModel
from verification.llm.critic import (
    CRITIC_PROMPT,
    MAX_FINDINGS,
    CalibrationFixture,
    calibrate,
    critic_prompt,
    critique,
    offline_findings,
)
from verification.types import Claim, EvidenceSpan, RuleVerdict, Severity, Source, State

SOURCES = (Source(id="policy", text="Refunds are paid within 14 days. Data is kept for 30 days."),)


def _claim(claim_id: str, state: State, text: str = "Refunds are paid within 14 days.") -> Claim:
    span = EvidenceSpan(source_id="policy", start=0, end=32, quote=SOURCES[0].text[:32])
    return Claim(id=claim_id, text=text, start=0, end=len(text), state=state, severity=Severity.CRITICAL,
                 evidence=[span], method="t", confidence=1.0)


def test_offline_findings_come_from_states_and_failed_rules_at_most_eight() -> None:
    claims = [_claim(f"k{i}", State.REFUTED) for i in range(10)] + [_claim("k99", State.SUPPORTED)]
    rules = [RuleVerdict(rule="say-when-not-found", passed=False, critique="no evidence", checked_by="code")]

    few = offline_findings(claims[:2], rules, {"say-when-not-found": "omission"})
    many = offline_findings(claims, rules)

    assert [(f.claim, f.problem) for f in few] == [("k0", "unsupported"), ("k1", "unsupported"),
                                                    ("rule:say-when-not-found", "omission")]
    assert "the sources say otherwise. [policy] Refunds are paid" in few[0].evidence
    assert len(many) == MAX_FINDINGS


def test_the_model_critic_reads_the_sources_and_the_draft_and_must_quote_the_draft() -> None:
    invented = {"findings": [{"claim": "words not in the draft", "problem": "tone", "evidence": "x"}]}
    good = {"findings": [{"claim": "Refunds are instant", "problem": "unsupported", "evidence": "within 14 days"}]}
    model = ScriptedModel({"critic": [json.dumps(invented), json.dumps(good)]}, model_id="critic-1")

    result = critique(question="When?", sources=SOURCES, draft="Refunds are instant.", claims=[], model=model)

    assert result.method == "model:critic-1" and result.model_record is not None
    assert result.model_record.attempts == 2 and "not words of the draft" in result.model_record.failures[0].error
    assert [(f.claim, f.problem) for f in result.findings] == [("Refunds are instant", "unsupported")]
    first = model.requests_for("critic")[0]
    assert first.messages[0]["content"] == CRITIC_PROMPT.system
    assert "Finding nothing is a valid but unusual outcome" in CRITIC_PROMPT.system
    assert "[policy] Refunds are paid within 14 days." in first.text and "Refunds are instant." in first.text


def test_a_published_rubric_replaces_the_built_in_one_and_changes_the_recorded_prompt_hash() -> None:
    reply = {"findings": [{"claim": "Refunds are instant", "problem": "tone", "evidence": "within 14 days"}]}
    model = ScriptedModel({"critic": [json.dumps(reply)]}, model_id="critic-1")
    rubric = "Rubric: flag only promises of speed that the sources do not make. Failing the draft is expected."

    result = critique(question="When?", sources=SOURCES, draft="Refunds are instant.", claims=[], model=model,
                      rubric=rubric)

    system = model.requests_for("critic")[0].messages[0]["content"]
    assert rubric in system and "wrong_version: the draft cites" not in system
    assert "one of: unsupported, wrong_version, off_question, tone, omission" in system
    assert result.model_record.prompt_sha256 == critic_prompt(rubric).sha256 != CRITIC_PROMPT.sha256


def test_a_broken_model_critic_falls_back_to_the_established_findings() -> None:
    model = ScriptedModel({"critic": ["nope"] * 3})

    result = critique(question="q", sources=SOURCES, draft="d", claims=[_claim("k1", State.REFUTED)], model=model)

    assert result.method == "offline:critic-invalid" and [f.claim for f in result.findings] == ["k1"]


FIXTURES = [
    CalibrationFixture("wrong-window", "How long do refunds take?", SOURCES, "Refunds are paid within 60 days.",
                       bad=True),
    CalibrationFixture("invented-fee", "Is there a fee?", SOURCES, "A cancellation fee of $50 applies.", bad=True),
    CalibrationFixture("faithful", "How long do refunds take?", SOURCES, "Refunds are paid within 14 days.",
                       bad=False),
    CalibrationFixture("faithful-data", "How long is data kept?", SOURCES, "Data is kept for 30 days.", bad=False),
]


def test_calibration_reports_catch_rate_and_false_alarm_rate() -> None:
    calibration = calibrate(FIXTURES, calibration_critic())

    assert calibration.catch_rate == 1.0 and calibration.missed == ()
    assert calibration.false_alarm_rate == 0.0 and calibration.false_alarms == ()


def test_a_lenient_critic_is_caught_by_calibration() -> None:
    calibration = calibrate(FIXTURES, lambda fixture: [])

    assert calibration.catch_rate == 0.0 and calibration.missed == ("wrong-window", "invented-fee")
    assert calibration.false_alarm_rate == 0.0

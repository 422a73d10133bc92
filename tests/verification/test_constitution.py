"""Constitutions: rules as data that round-trip through JSON, versions by content, rules checked in code."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from verification.llm.client import ScriptedModel, describe_error
from verification.loop.judging import count_words, judge
from verification.policy.constitution import (
    CUSTOMER_SUPPORT,
    DEFAULT,
    Constitution,
    ForbiddenPhrases,
    JudgedRule,
    NoPromiseOutsideSources,
    RequiredDisclosure,
    WordLimit,
    builtin,
    builtin_names,
)
from verification.types import Claim, Severity, State


def _claim(claim_id: str, state: State, severity: Severity = Severity.MODERATE) -> Claim:
    return Claim(id=claim_id, text="x", start=0, end=1, state=state, severity=severity, method="t", confidence=1.0)


def test_builtin_constitutions_are_found_by_name_with_a_content_version() -> None:
    assert builtin_names() == ["customer-support", "default", "medical-information"]
    support = builtin("customer-support")
    assert support is CUSTOMER_SUPPORT and builtin("nope") is None
    assert len(support.version) == 12 and support.pinned == f"customer-support@{support.version}"
    assert builtin("default") is DEFAULT and DEFAULT.version != support.version


def test_a_constitution_round_trips_through_json_and_keeps_its_version() -> None:
    data = json.loads(CUSTOMER_SUPPORT.model_dump_json())

    again = Constitution.model_validate(data)

    assert again == CUSTOMER_SUPPORT and again.version == CUSTOMER_SUPPORT.version
    assert [rule.kind for rule in again.rules] == [
        "word_limit", "forbidden_phrases", "required_disclosure", "no_promise_outside_sources", "judged"
    ]
    changed = again.model_copy(update={"rules": [WordLimit(name="word-limit", max_words=151)]})
    assert changed.version != again.version


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x", "rules": [{"kind": "word_limit", "name": "w", "max_words": 0}]},
         "rules.0.word_limit.max_words: Input should be greater than or equal to 1"),
        ({"name": "x", "rules": [{"kind": "forbidden_phrases", "name": "f", "phrases": [" "]}]},
         "rules.0.forbidden_phrases.phrases: a phrase must not be blank"),
        ({"name": "x", "rules": [{"kind": "shout", "name": "s"}]}, "rules.0: Input tag 'shout' found"),
        ({"name": "Bad Name"}, "name: String should match pattern"),
        ({"name": "x", "rules": [{"kind": "judged", "name": "a", "instruction": "i"},
                                 {"kind": "judged", "name": "a", "instruction": "j"}]},
         "rules: duplicate rule name 'a'"),
        ({"name": "x", "policy": {"max_rule_iterations": -1}},
         "policy.max_rule_iterations: Input should be greater than or equal to 0"),
        ({"name": "x", "rules": [{"kind": "required_disclosure", "name": "d", "phrases": ["not found"],
                                  "disclosure": "Sorry."}]}, "disclosure: must contain one of the phrases"),
    ],
)
def test_invalid_constitutions_name_the_field(data: dict, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Constitution.model_validate(data)
    assert message in describe_error(caught.value)


def test_countable_rules_are_checked_in_code() -> None:
    constitution = Constitution(
        name="c",
        rules=[
            WordLimit(name="limit", max_words=5),
            ForbiddenPhrases(name="no-guarantee", phrases=["guaranteed", "100%"], blocking=True),
            RequiredDisclosure(name="disclose", phrases=["could not find"], disclosure="I could not find more."),
            NoPromiseOutsideSources(name="promises"),
        ],
    )
    claims = [_claim("k1", State.SUPPORTED), _claim("k2", State.INSUFFICIENT_EVIDENCE, Severity.CRITICAL)]

    judgement = judge(constitution, text="Refunds are guaranteed at 100% within a week.", claims=claims)

    verdicts = {v.rule: v for v in judgement.verdicts}
    assert all(v.checked_by == "code" for v in verdicts.values()) and judgement.model_calls == 0
    assert (verdicts["limit"].passed, verdicts["limit"].critique) == (False, "8 words; the limit is 5")
    assert verdicts["no-guarantee"].passed is False and verdicts["no-guarantee"].blocking is True
    assert "'guaranteed', '100%'" in verdicts["no-guarantee"].critique
    assert verdicts["disclose"].passed is False and "k2" in verdicts["disclose"].critique
    assert verdicts["promises"].passed is False and "k2" in verdicts["promises"].critique
    assert [v.rule for v in judgement.failing] == ["limit", "no-guarantee", "disclose", "promises"]


def test_a_disclosure_is_due_for_a_claim_found_missing_earlier_in_the_chain() -> None:
    rule = RequiredDisclosure(name="disclose", phrases=["could not find"], disclosure="I could not find more.")
    constitution = Constitution(name="c", rules=[rule])
    earlier = [_claim("k3", State.INSUFFICIENT_EVIDENCE)]

    missing = judge(constitution, text="Refunds take a week.", claims=[], earlier_claims=earlier)
    said = judge(constitution, text="Refunds take a week. I could not find more.", claims=[], earlier_claims=earlier)
    nothing_due = judge(constitution, text="Refunds take a week.", claims=[_claim("k1", State.SUPPORTED)])

    assert [v.passed for v in (*missing.verdicts, *said.verdicts, *nothing_due.verdicts)] == [False, True, True]


def test_forbidden_phrases_match_whole_words_only() -> None:
    constitution = Constitution(name="c", rules=[ForbiddenPhrases(name="f", phrases=["guarantee"])])

    [verdict] = judge(constitution, text="Our warranty guarantees nothing; see the guarantee.", claims=[]).verdicts
    [clean] = judge(constitution, text="Our warranty guarantees nothing.", claims=[]).verdicts

    assert verdict.passed is False and clean.passed is True


def test_judged_rules_are_not_checked_without_a_model_and_judged_by_one_when_configured() -> None:
    constitution = Constitution(name="c", rules=[JudgedRule(name="tone", instruction="Is it polite?")])
    model = ScriptedModel({"rule_judge": ['{"passed": false, "critique": "curt"}']}, model_id="judge-1")

    [offline] = judge(constitution, text="No.", claims=[]).verdicts
    judged = judge(constitution, text="No.", claims=[], question="Can I?", model=model)

    assert (offline.passed, offline.checked_by) == (None, "not_checked")
    [verdict] = judged.verdicts
    assert (verdict.passed, verdict.critique, verdict.checked_by) == (False, "curt", "model:judge-1")
    assert judged.model_calls == 1
    [request] = model.requests_for("rule_judge")
    assert "Is it polite?" in request.text and "Can I?" in request.text
    assert "Failing the answer is allowed" in request.messages[0]["content"]


def test_count_words_counts_what_a_reader_counts() -> None:
    assert count_words("It's a 30-day, money-back plan: $20/month.") == 7

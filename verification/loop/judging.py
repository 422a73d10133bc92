"""Judging a candidate against its constitution: one verdict per rule.

Countable rules are checked here in code, never by a model; rules that need judgment go to the model
when one is configured (the rule judge) and are reported as not checked otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from verification.llm.client import ChatModel, PromptTemplate, run_role
from verification.policy.constitution import (
    Constitution,
    ForbiddenPhrases,
    JudgedRule,
    NoPromiseOutsideSources,
    RequiredDisclosure,
    Rule,
    WordLimit,
    contains_any,
)
from verification.types import Claim, ModelCallRecord, RuleVerdict, Severity, State

_FAILED = frozenset({State.REFUTED, State.INSUFFICIENT_EVIDENCE, State.CONFLICTING, State.UNRESOLVED})
_WORD = re.compile(r"[\w'’-]+")


class RuleJudgement(BaseModel):
    """The model's verdict on one rule that needs judgment."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    passed: bool
    """Whether the answer follows the rule."""
    critique: str
    """What exactly breaks the rule, or an empty string when it passes."""


JUDGE_PROMPT = PromptTemplate(
    role="rule_judge",
    system=(
        "You judge one answer against one rule. Read the question, the sources and the answer. Failing "
        "the answer is allowed and expected when the rule is broken; do not pass it to be agreeable. "
        "When it fails, quote the words that break the rule in the critique. "
        'Reply with one JSON object: {"passed": true|false, "critique": "..."}.'
    ),
    user="Rule: $rule\n\nQuestion: $question\n\nSources:\n$sources\n\nAnswer:\n$answer",
)


@dataclass(frozen=True)
class Judgement:
    """The verdicts on one candidate and what judging it cost."""

    verdicts: tuple[RuleVerdict, ...]
    """One verdict per rule, in the constitution's order."""
    model_calls: int = 0
    """Calls made to judge rules that need judgment."""
    records: tuple[ModelCallRecord, ...] = ()
    """Provenance of those calls, one record per judged rule."""

    @property
    def failing(self) -> tuple[RuleVerdict, ...]:
        """Verdicts that failed (not-checked ones are not failures)."""
        return tuple(verdict for verdict in self.verdicts if verdict.passed is False)


def judge(
    constitution: Constitution,
    *,
    text: str,
    claims: Sequence[Claim],
    earlier_claims: Sequence[Claim] = (),
    question: str = "",
    sources_text: str = "",
    model: ChatModel | None = None,
) -> Judgement:
    """One verdict per rule for the candidate `text` with its verified `claims`.

    `earlier_claims` are the claims of the candidates before this one: a fact found missing in the
    original answer still needs its disclosure after the claim was omitted.
    """
    verdicts = []
    records = []
    for rule in constitution.rules:
        if isinstance(rule, JudgedRule):
            verdict, record = _judge_by_model(rule, text, question, sources_text, model)
            if record is not None:
                records.append(record)
        else:
            passed, critique = _check_in_code(rule, text, claims, earlier_claims)
            verdict = RuleVerdict(rule=rule.name, passed=passed, critique=critique, checked_by="code")
        verdicts.append(verdict.model_copy(update={"blocking": rule.blocking}))
    return Judgement(tuple(verdicts), sum(record.attempts for record in records), tuple(records))


def count_words(text: str) -> int:
    """Words as a reader counts them: runs of letters, digits, apostrophes and hyphens."""
    return len(_WORD.findall(text))


def forbidden_in(text: str, phrases: Sequence[str]) -> list[str]:
    """The phrases that occur in `text` as whole words, whatever the case."""
    return [phrase for phrase in phrases if _phrase_pattern(phrase).search(text)]


def _check_in_code(
    rule: Rule, text: str, claims: Sequence[Claim], earlier_claims: Sequence[Claim]
) -> tuple[bool, str]:
    if isinstance(rule, WordLimit):
        words = count_words(text)
        if words <= rule.max_words:
            return True, f"{words} words, within the limit of {rule.max_words}"
        return False, f"{words} words; the limit is {rule.max_words}"
    if isinstance(rule, ForbiddenPhrases):
        found = forbidden_in(text, rule.phrases)
        if found:
            return False, "uses " + ", ".join(repr(phrase) for phrase in found)
        return True, "none of the forbidden phrases"
    if isinstance(rule, RequiredDisclosure):
        missing = [c.id for c in [*earlier_claims, *claims] if c.state is State.INSUFFICIENT_EVIDENCE]
        if not missing:
            return True, "every claim had evidence: nothing to disclose"
        if contains_any(text, rule.phrases):
            return True, "says that a fact was not found"
        ids = ", ".join(dict.fromkeys(missing))
        return False, f"no evidence was found for {ids}, and the answer does not say so"
    if isinstance(rule, NoPromiseOutsideSources):
        outside = [c.id for c in claims if c.severity is Severity.CRITICAL and c.state in _FAILED]
        if outside:
            return False, f"promises not backed by the sources: {', '.join(outside)}"
        return True, "every promise is backed by a source"
    raise TypeError(f"rule {rule.name!r} of kind {type(rule).__name__} is not checked in code")


def _judge_by_model(
    rule: JudgedRule, text: str, question: str, sources_text: str, model: ChatModel | None
) -> tuple[RuleVerdict, ModelCallRecord | None]:
    if model is None:
        return RuleVerdict(
            rule=rule.name, passed=None, critique="needs judgment and no model is configured", checked_by="not_checked"
        ), None
    result = run_role(
        model,
        JUDGE_PROMPT,
        RuleJudgement,
        values={"rule": rule.instruction, "question": question, "sources": sources_text, "answer": text},
    )
    record = result.record
    if result.output is None:
        last = record.failures[-1].error if record.failures else "no output"
        critique = f"the judge's output failed validation {record.attempts} times; last: {last}"
        return RuleVerdict(rule=rule.name, passed=None, critique=critique, checked_by=f"model:{record.model}"), record
    output = result.output
    return RuleVerdict(
        rule=rule.name, passed=output.passed, critique=output.critique.strip(), checked_by=f"model:{record.model}"
    ), record


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    # Whole words where the phrase starts or ends with a word character; "100%" has no word edge after it.
    start = r"\b" if phrase[:1].isalnum() else ""
    end = r"\b" if phrase[-1:].isalnum() else ""
    return re.compile(start + re.escape(phrase.strip()) + end, re.IGNORECASE)

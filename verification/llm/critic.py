"""The critic: structured findings about a draft, read against the sources, and its calibration.

A critic that reads only the draft is a second vote; one that reads the sources is a check. With a
model configured, the critic role sees the question, the sources and the draft, and returns at most 8
findings `{claim, problem, evidence}` under a rubric that says plainly that failing the draft is
allowed. Offline, findings come from what is already known: the verifier's states and the rules.
`calibrate` runs a critic over fixtures known to be bad and known to be good, so a lenient or drifted
critic shows up as a falling catch rate or a rising false-alarm rate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from verification.llm.client import ChatModel, PromptTemplate, run_role
from verification.types import (
    Claim,
    Finding,
    FindingProblem,
    ModelCallRecord,
    RuleVerdict,
    Severity,
    Source,
    State,
)

MAX_FINDINGS = 8
"""A critic lists the defects that matter, not every quibble."""

_CLAIM_PROBLEMS: dict[State, str] = {
    State.REFUTED: "the sources say otherwise",
    State.INSUFFICIENT_EVIDENCE: "no source says this",
    State.CONFLICTING: "the sources disagree on this",
    State.UNRESOLVED: "no verdict could be reached",
}


class _Output(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class CriticFinding(_Output):
    """One defect the critic found."""

    claim: str
    """The exact words of the draft the finding is about."""
    problem: FindingProblem
    """unsupported, wrong_version, off_question, tone or omission."""
    evidence: str
    """What in the sources shows it, quoted."""


class Critique(_Output):
    """The critic's output."""

    findings: list[CriticFinding] = Field(max_length=MAX_FINDINGS)
    """The defects found, most serious first; empty only when the draft has none."""


DEFAULT_RUBRIC = (
    "Rubric, one finding per defect:\n"
    "- unsupported: the draft states something no source supports.\n"
    "- wrong_version: the draft cites an older or different policy, plan or figure than the sources.\n"
    "- off_question: the draft answers a nearby question instead of the one asked.\n"
    "- tone: wording a customer would find dismissive, overconfident or promising too much.\n"
    "- omission: the sources hold something the asker needs that the draft leaves out.\n"
    "Failing the draft is expected when it has defects; you are not asked to be agreeable. Finding "
    "nothing is a valid but unusual outcome."
)
"""The built-in rubric; policy admins publish their own (see `critic_prompt`)."""


def critic_prompt(rubric: str | None = None) -> PromptTemplate:
    """The critic's prompt under `rubric` (the built-in one when None).

    The output contract stays fixed whatever the rubric says, so a rubric can change what counts as a
    defect but not the shape of the findings; its text is part of the prompt's recorded sha256.
    """
    return PromptTemplate(
        role="critic",
        system=(
            "You are a critic. Find specific defects in a draft answer by reading it against the sources. "
            f"{(rubric or DEFAULT_RUBRIC).strip()}\n"
            "Each finding's `problem` is one of: unsupported, wrong_version, off_question, tone, omission. "
            "Quote the draft's words in `claim` and the sources' words in `evidence`. "
            f"At most {MAX_FINDINGS} findings. "
            'Reply with one JSON object: {"findings": [{"claim": "...", "problem": "...", "evidence": "..."}]}.'
        ),
        user="Question: $question\n\nSources:\n$sources\n\nDraft:\n$draft",
    )


CRITIC_PROMPT = critic_prompt()


@dataclass(frozen=True)
class CriticResult:
    """The findings on one draft and where they came from."""

    findings: tuple[Finding, ...]
    """At most 8 findings."""
    method: str
    """"offline" or "model:<id>"."""
    model_record: ModelCallRecord | None = None
    """The critic role's record on the model path."""


def critique(
    *,
    question: str,
    sources: Sequence[Source],
    draft: str,
    claims: Sequence[Claim],
    rule_verdicts: Sequence[RuleVerdict] = (),
    rule_problems: Mapping[str, FindingProblem] | None = None,
    model: ChatModel | None = None,
    rubric: str | None = None,
) -> CriticResult:
    """Findings about `draft`: from the verifier states and the rules, plus the critic role's when `model`
    is given (at most 8 in all, the established ones first).

    A critic output that fails validation three times falls back to the offline findings, so the
    draft is never reported clean because the critic broke.
    """
    offline = offline_findings(claims, rule_verdicts, rule_problems)
    if model is None:
        return CriticResult(offline, "offline")
    result = run_role(
        model,
        critic_prompt(rubric) if rubric else CRITIC_PROMPT,
        Critique,
        values={"question": question, "sources": _sources_text(sources), "draft": draft},
        check=_QuotesDraft(draft),
    )
    if result.output is None:
        return CriticResult(offline, "offline:critic-invalid", result.record)
    judged = [Finding(claim=f.claim, problem=f.problem, evidence=f.evidence) for f in result.output.findings]
    # What code established (states, rules) comes first: the model adds judgment, it cannot overrule a fact.
    merged = tuple(dict.fromkeys([*offline, *judged]))[:MAX_FINDINGS]
    return CriticResult(merged, f"model:{result.record.model}", result.record)


def offline_findings(
    claims: Sequence[Claim],
    rule_verdicts: Sequence[RuleVerdict] = (),
    rule_problems: Mapping[str, FindingProblem] | None = None,
) -> tuple[Finding, ...]:
    """Findings from what verification and the rules already established, most serious first.

    `rule_problems` names the finding kind of each rule (see `Constitution.rule_problems`); "tone" otherwise.
    """
    findings: list[Finding] = []
    for claim in sorted(claims, key=lambda c: (c.severity is not Severity.CRITICAL, c.start)):
        why = _CLAIM_PROBLEMS.get(claim.state)
        if why is not None:
            quote = f" [{claim.evidence[0].source_id}] {claim.evidence[0].quote}" if claim.evidence else ""
            findings.append(Finding(claim=claim.id, problem="unsupported", evidence=f"{why}.{quote}".strip()))
        if claim.question_source and claim.question_source.startswith("template:doubtless"):
            # The written question tested something nobody doubted; the verdict rests on the template.
            detail = claim.question_source.removeprefix("template:")
            findings.append(Finding(claim=claim.id, problem="off_question",
                                    evidence=f"the written verification question was {detail}; a template was asked"))
    for verdict in rule_verdicts:
        if verdict.passed is False:
            problem = (rule_problems or {}).get(verdict.rule, "tone")
            findings.append(Finding(claim=f"rule:{verdict.rule}", problem=problem, evidence=verdict.critique))
    return tuple(findings[:MAX_FINDINGS])


class _QuotesDraft:
    """Refuses findings whose `claim` is not words of the draft: a finding must point at something."""

    def __init__(self, draft: str) -> None:
        self._draft = " ".join(draft.split()).casefold()

    def __call__(self, output: Critique) -> Critique:
        for number, finding in enumerate(output.findings):
            quoted = " ".join(finding.claim.split()).casefold().strip(" \"'.")
            if finding.problem != "omission" and quoted not in self._draft:
                raise ValueError(f"findings.{number}.claim: not words of the draft: {finding.claim!r}")
        return output


def _sources_text(sources: Sequence[Source]) -> str:
    return "\n\n".join(f"[{source.id}] {source.text}" for source in sources)


# ---------------------------------------------------------------------------------------------
# Calibration


@dataclass(frozen=True)
class CalibrationFixture:
    """A draft whose quality is known: a bad one the critic must catch, or a good one it must pass."""

    name: str
    """What the fixture tests."""
    question: str
    """What the user asked."""
    sources: tuple[Source, ...]
    """The evidence."""
    draft: str
    """The draft to critique."""
    bad: bool
    """True when the critic must return at least one finding."""


@dataclass(frozen=True)
class Calibration:
    """How a critic fared on known-bad and known-good fixtures."""

    catch_rate: float
    """Known-bad fixtures with at least one finding, over known-bad fixtures."""
    false_alarm_rate: float
    """Known-good fixtures with any finding, over known-good fixtures."""
    missed: tuple[str, ...]
    """Names of the bad fixtures it passed."""
    false_alarms: tuple[str, ...]
    """Names of the good fixtures it flagged."""


CriticRun = Callable[[CalibrationFixture], Sequence[Finding]]


def calibrate(fixtures: Sequence[CalibrationFixture], run_critic: CriticRun) -> Calibration:
    """Run `run_critic` over every fixture and score it; rates are 0.0 when a class has no fixture."""
    bad = [fixture for fixture in fixtures if fixture.bad]
    good = [fixture for fixture in fixtures if not fixture.bad]
    missed = tuple(fixture.name for fixture in bad if not run_critic(fixture))
    alarms = tuple(fixture.name for fixture in good if run_critic(fixture))
    return Calibration(
        catch_rate=(len(bad) - len(missed)) / len(bad) if bad else 0.0,
        false_alarm_rate=len(alarms) / len(good) if good else 0.0,
        missed=missed,
        false_alarms=alarms,
    )

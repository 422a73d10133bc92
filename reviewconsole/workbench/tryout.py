"""Try a constitution version on a sample before publishing it: every rule's verdict and the engine's result.

The sample runs through the same engine a case does, in the request, and nothing is stored. The
version in force runs on the same sample, so an admin sees which verdicts the draft would change, and
where the console would send the answer under each (released, to one reviewer or to two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewconsole.policy.engine import run_engine
from reviewconsole.review.services.routing import (
    escalation_severity,
    policy_reviews_required,
    policy_spot_check_share,
)
from reviewconsole.vocabulary import REASON_LABELS, SEVERITY_LABELS
from verification import Case, Constitution, RunRecord, Source, Terminal
from verification.types import RuleVerdict

_SOURCE_ID = re.compile(r"^\[([^\]\s]{1,200})\]\s*")


class SampleInvalid(ValueError):
    """A sample that cannot be checked; `field` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def sources_from_text(text: str) -> list[Source]:
    """Sources pasted as blocks separated by a blank line, each optionally starting with "[id]"."""
    blocks = [block.strip() for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if block.strip()]
    sources = []
    for number, block in enumerate(blocks, start=1):
        found = _SOURCE_ID.match(block)
        source_id = found.group(1) if found else f"s{number}"
        sources.append(Source(id=source_id, text=block[found.end():] if found else block))
    return sources


def sources_as_text(sources: list[Source]) -> str:
    return "\n\n".join(f"[{source.id}] {source.text}" for source in sources)


def sample_case(*, question: str, sources_text: str, answer: str) -> Case:
    if not question.strip():
        raise SampleInvalid("question", "write the question the answer replies to")
    if not answer.strip():
        raise SampleInvalid("answer", "paste the answer to check")
    sources = sources_from_text(sources_text)
    if not sources:
        raise SampleInvalid("sources", "paste at least one source: the answer is checked against them only")
    if len({source.id for source in sources}) != len(sources):
        raise SampleInvalid("sources", "two sources have the same [id]")
    return Case(question=question.strip(), answer=answer.strip(), sources=sources)


@dataclass(frozen=True)
class RuleRow:
    rule: str
    verdict: RuleVerdict | None
    """Under the version tried; None when it has no such rule."""
    in_force: RuleVerdict | None
    """Under the version in force; None when it has no such rule or there is none."""

    @property
    def changed(self) -> bool:
        return _passed(self.verdict) != _passed(self.in_force)

    @property
    def critique(self) -> str:
        shown = self.verdict or self.in_force
        return shown.critique if shown is not None else ""


def _passed(verdict: RuleVerdict | None) -> bool | None:
    return verdict.passed if verdict is not None else None


@dataclass(frozen=True)
class Routing:
    """Where the console would send the answer of a run under a constitution, as routing does a case's."""

    terminal: str
    reason: str
    severity: str
    reviews: int
    """People who must review it: 0 (released or rejected as the engine decided), 1, or 2 (double review)."""
    spot_check_share: float
    """For a release, the share of released answers a person spot-checks."""

    @classmethod
    def of(cls, record: RunRecord, constitution: Constitution) -> Routing:
        policy = constitution.policy.model_dump(mode="json")
        severity, reason = escalation_severity(record), record.reason.value
        reviews = (policy_reviews_required(policy, reason=reason, severity=severity)
                   if record.terminal in (Terminal.REVIEW, Terminal.ABSTAIN) else 0)
        return cls(record.terminal.value, reason, severity, reviews, policy_spot_check_share(policy))

    @property
    def words(self) -> str:
        if self.terminal == Terminal.PERMIT.value:
            spot = f", and spot-checked by a person for {self.spot_check_share:.0%} of releases" \
                if self.spot_check_share > 0 else ""
            return f"released to the client{spot}"
        if self.terminal == Terminal.REJECT.value:
            return "rejected: no answer goes to the client, and no person sees it"
        why = f"{REASON_LABELS.get(self.reason, self.reason).lower()}, {SEVERITY_LABELS.get(self.severity, '').lower()}"
        if self.reviews == 2:
            return f"sent to two independent reviewers, double review ({why})"
        return f"sent to one reviewer ({why})"

    def same_route(self, other: Routing) -> bool:
        return (self.terminal, self.reviews) == (other.terminal, other.reviews)


@dataclass(frozen=True)
class TryResult:
    record: RunRecord
    baseline: RunRecord | None
    rows: tuple[RuleRow, ...]
    routing: Routing
    baseline_routing: Routing | None = None

    @property
    def routing_changed(self) -> bool:
        return self.baseline_routing is not None and not self.routing.same_route(self.baseline_routing)


def _first_verdicts(record: RunRecord | None) -> dict[str, RuleVerdict]:
    # The verdicts on the answer as pasted, before any repair: that is what the rules say about it.
    if record is None or not record.candidates:
        return {}
    return {verdict.rule: verdict for verdict in record.candidates[0].rule_verdicts}


def try_constitution(*, constitution: Constitution, in_force: Constitution | None, case: Case) -> TryResult:
    """Run `case` under `constitution` (and under `in_force` to compare), storing nothing."""
    record = run_engine(case, constitution=constitution)
    baseline = run_engine(case, constitution=in_force) if in_force is not None else None
    tried, before = _first_verdicts(record), _first_verdicts(baseline)
    names = [*tried, *(name for name in before if name not in tried)]
    rows = tuple(RuleRow(name, tried.get(name), before.get(name)) for name in names)
    return TryResult(
        record, baseline, rows, Routing.of(record, constitution),
        Routing.of(baseline, in_force) if baseline is not None and in_force is not None else None,
    )

"""The model reviser: the reviser role repairs an answer under a contract, and never hedges.

It sees the question, the answer, the target claims with their states, the protected claims, the failing
rules and the evidence passages. Output that is blank, touches claims outside the targets or softens a
claim ("may", "possibly") instead of fixing it is refused and retried; whatever it returns is still
verified again and checked against the contract by the controller.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from verification.llm.client import PromptTemplate, run_role
from verification.loop.contract import Operation, Proposal, RepairContext, RepairContract
from verification.types import Candidate, Claim, Source


class RevisedAnswer(BaseModel):
    """The reviser's output under a repair contract."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    answer: str
    """The repaired answer."""
    changed_claim_ids: list[str]
    """Ids of the target claims changed or removed."""


REPAIR_PROMPT = PromptTemplate(
    role="reviser",
    system=(
        "You repair an answer under a contract. Change only the target claims and what the failing rules "
        "require; keep every protected claim word for word.\n"
        "- A REFUTED claim: replace the wrong detail with what the evidence says, or remove the claim.\n"
        "- An INSUFFICIENT_EVIDENCE claim: remove it, or narrow it to exactly what the evidence states.\n"
        "- Never hedge ('may', 'might', 'possibly', 'reportedly'): a hedged claim is the same claim.\n"
        "- Add no number, date or name that the evidence does not contain.\n"
        "- The answer being repaired is not evidence; only the evidence passages are.\n"
        'Reply with one JSON object: {"answer": "...", "changed_claim_ids": ["..."]}.'
    ),
    user=(
        "Question: $question\n\nAnswer to repair:\n$answer\n\nTarget claims:\n$targets\n\n"
        "Protected claims (keep word for word):\n$protected\n\nFailing rules:\n$rules\n\n"
        "Evidence passages:\n$evidence"
    ),
)

_HEDGES = re.compile(
    r"\b(?:may|might|could|possibly|perhaps|probably|likely|reportedly|allegedly|approximately|around|"
    r"roughly|about|it is possible|it seems|appears? to|seems? to|some sources)\b",
    re.IGNORECASE,
)


def hedges_added(before: str, after: str) -> list[str]:
    """Hedging words `after` uses more often than `before`: softening instead of repairing."""
    def counts(text: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for match in _HEDGES.finditer(text):
            word = match.group().lower()
            found[word] = found.get(word, 0) + 1
        return found

    old, new = counts(before), counts(after)
    return sorted(word for word, count in new.items() if count > old.get(word, 0))


class ModelRevision:
    """The reviser role under the contract: targets, protected claims, failing rules, evidence."""

    name = Operation.MODEL_REVISION.value

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal | None:
        """The model's repaired text; None without a model. Hedged or blank output is refused and retried."""
        if context.model is None:
            return None
        claims = {claim.id: claim for claim in candidate.claims}
        targets = [claims[i] for i in contract.target_claim_ids if i in claims]
        if not targets and not contract.failing_rules:
            return None
        protected = [claims[i] for i in contract.protected_claim_ids if i in claims]
        check = _RevisedCheck(candidate.text, set(contract.target_claim_ids))
        result = run_role(
            context.model,
            REPAIR_PROMPT,
            RevisedAnswer,
            values={
                "question": context.question,
                "answer": candidate.text,
                "targets": "\n".join(f"- {c.id} [{c.state.value}] {c.text}" for c in targets) or "(none)",
                "protected": "\n".join(f"- {c.id} {c.text}" for c in protected) or "(none)",
                "rules": "\n".join(f"- {v.rule}: {v.critique}" for v in contract.failing_rules) or "(none)",
                "evidence": _evidence_text(targets, context.sources),
            },
            check=check,
        )
        record = result.record
        if result.output is None:
            last = record.failures[-1].error if record.failures else "no output"
            return Proposal(text="", model_record=record, model_calls=record.attempts,
                            failure=f"the reviser's output failed validation {record.attempts} times; last: {last}")
        output = result.output
        return Proposal(
            text=output.answer.strip(),
            removed=tuple(output.changed_claim_ids),
            model_record=record,
            model_calls=record.attempts,
        )


class _RevisedCheck:
    def __init__(self, original: str, targets: set[str]) -> None:
        self._original = original
        self._targets = targets

    def __call__(self, output: RevisedAnswer) -> RevisedAnswer:
        if not output.answer.strip():
            raise ValueError("answer: must not be blank")
        outside = [claim_id for claim_id in output.changed_claim_ids if claim_id not in self._targets]
        if outside:
            raise ValueError(f"changed_claim_ids: {outside} are not targets of this repair")
        hedges = hedges_added(self._original, output.answer)
        if hedges:
            raise ValueError(f"answer: hedging ({', '.join(hedges)}) is not a repair; replace or remove the claim")
        return output


def _evidence_text(targets: Sequence[Claim], sources: Sequence[Source]) -> str:
    spans = list(dict.fromkeys(span for claim in targets for span in claim.evidence[:3]))
    if spans:
        return "\n".join(f"[{span.source_id}] {span.quote}" for span in spans)
    return "\n".join(f"[{source.id}] {source.text}" for source in sources)

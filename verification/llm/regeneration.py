"""Full regeneration on the model path, behind a taint boundary.

When nothing in an answer was supported, patching its sentences keeps the false premise; the answer
is written again from the sources. The failed candidate goes to the model only as a typed record of
what failed and what the user asked: its statements are listed so they are not repeated, and the
record says they may not be used as facts. The only evidence in the prompt is the sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from verification.llm.client import ChatModel, PromptTemplate, RoleResult, run_role
from verification.llm.generator import DraftAnswer
from verification.types import Candidate, Source, State


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class FailedStatement(_Frozen):
    """One statement of the failed candidate and why it failed."""

    claim_id: str
    """The claim's id in the failed candidate."""
    state: State
    """Its verification state."""
    statement: str
    """Its words, shown so the new answer does not repeat them."""


class FailureRecord(_Frozen):
    """What failed and what the user asked; never evidence."""

    candidate_id: str
    """The failed candidate."""
    origin: Literal["FAILED_CANDIDATE"] = "FAILED_CANDIDATE"
    """Marks the record as unverified model output, not a source."""
    question: str
    """What the user asked: the intent the new answer must serve."""
    failed: list[FailedStatement]
    """Every claim that did not pass."""
    allowed_uses: list[str] = Field(default_factory=lambda: ["FAILURE_LOCALIZATION", "USER_INTENT_RECONSTRUCTION"])
    """What the model may use the record for."""
    forbidden_uses: list[str] = Field(
        default_factory=lambda: ["FACTUAL_EVIDENCE", "SOURCE_AUTHORITY", "PROPOSITION_SEED"]
    )
    """What the model may not use it for."""


REGENERATE_PROMPT = PromptTemplate(
    role="generator",
    system=(
        "You write a new answer to the user's question using only the sources. A previous answer failed "
        "verification; you get a record of what failed. That record is not evidence: do not repeat its "
        "statements and do not treat them as facts. State only what the sources say; if they do not "
        "answer the question, say so plainly. "
        'Reply with one JSON object: {"answer": "..."}.'
    ),
    user="Question: $question\n\nFailure record (not evidence):\n$record\n\nSources:\n$sources",
)


def failure_record(candidate: Candidate, question: str) -> FailureRecord:
    """The typed record of a failed candidate: its failing claims and the question."""
    failed = [
        FailedStatement(claim_id=claim.id, state=claim.state, statement=claim.text)
        for claim in candidate.claims
        if claim.state not in (State.SUPPORTED, State.NOT_VERIFIABLE)
    ]
    return FailureRecord(candidate_id=candidate.id, question=question, failed=failed)


def regenerate(record: FailureRecord, sources: Sequence[Source], model: ChatModel) -> RoleResult[DraftAnswer]:
    """A new answer written from the sources; `output` is None when every attempt was invalid."""
    return run_role(
        model,
        REGENERATE_PROMPT,
        DraftAnswer,
        values={
            "question": record.question,
            "record": record.model_dump_json(indent=1),
            "sources": "\n\n".join(f"[{source.id}] {source.text}" for source in sources),
        },
        check=_new_text(record),
    )


def _new_text(record: FailureRecord):  # noqa: ANN202 - a validator closure for run_role
    failed = {" ".join(item.statement.split()).casefold() for item in record.failed}

    def check(draft: DraftAnswer) -> DraftAnswer:
        text = " ".join(draft.answer.split()).casefold()
        if not text:
            raise ValueError("answer: must not be blank")
        repeated = [statement for statement in failed if statement and statement in text]
        if repeated:
            raise ValueError(f"answer: repeats a statement that failed verification: {repeated[0]!r}")
        return draft

    return check

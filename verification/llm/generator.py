"""Drafting an answer from the sources when a case arrives without one (the generator role)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from verification.llm.client import ChatModel, PromptTemplate, RoleResult, run_role
from verification.types import Source


class DraftAnswer(BaseModel):
    """The generator's output."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    answer: str
    """The answer to the question, using only what the sources say."""


GENERATE_PROMPT = PromptTemplate(
    role="generator",
    system=(
        "You answer a question using only the sources given. State only what the sources say; if they "
        "do not answer the question, say so plainly. Be concise. "
        'Reply with one JSON object: {"answer": "..."}.'
    ),
    user="Question: $question\n\nSources:\n$sources",
)


def draft_answer(question: str, sources: Sequence[Source], model: ChatModel) -> RoleResult[DraftAnswer]:
    """A first candidate written from the sources; `output` is None when every attempt was invalid."""
    return run_role(
        model,
        GENERATE_PROMPT,
        DraftAnswer,
        values={"question": question, "sources": _sources_text(sources)},
        check=_not_blank,
    )


def _sources_text(sources: Sequence[Source]) -> str:
    blocks = []
    for source in sources:
        title = f" {source.title}" if source.title else ""
        blocks.append(f"[{source.id}]{title}\n{source.text}")
    return "\n\n".join(blocks)


def _not_blank(draft: DraftAnswer) -> DraftAnswer:
    if not draft.answer.strip():
        raise ValueError("answer: must not be blank")
    return draft

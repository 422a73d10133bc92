"""Chain-of-verification on the model path: one question, one retrieval and one model call per claim.

Each claim is checked on its own. The question writer sees only the claim; the verifier sees the
question, the claim and passages retrieved from the case's sources, never the draft or the other
claims (a claim checked with the draft in view tends to be confirmed by it). Quotes the verifier gives
must exist in the sources; they are aligned to exact offsets, and a quote that is not there makes the
output invalid.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from verification.claims.extraction import ExtractedClaim
from verification.claims.tokens import content_stems
from verification.decision.verifier import Verdict
from verification.errors import TransientError
from verification.llm.client import ChatModel, PromptTemplate, RoleResult, run_role
from verification.llm.quoted_proof import confirmed, proof_checks
from verification.retrieval.index import SourceIndex
from verification.types import Commitment, EvidenceSpan, ModelCallRecord, Source, State, sha256_text

_VERSION = "cove/1"

# What a verification question must name for the doubtful property to be tested at all.
_QUESTION_MUST_NAME = frozenset({"number", "money", "percentage", "date", "time", "duration", "entity"})


class _Output(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class VerificationQuestion(_Output):
    """The question writer's output."""

    question: str
    """One self-contained question that tests what the claim commits to."""


class Quote(_Output):
    """A passage of a source, copied character for character."""

    source_id: str
    """The id of the source the words come from."""
    quote: str
    """The exact words of the source."""


class VerificationAnswer(_Output):
    """The verifier's output for one claim."""

    state: Literal["SUPPORTED", "REFUTED", "INSUFFICIENT_EVIDENCE", "CONFLICTING", "NOT_VERIFIABLE"]
    """What the passages say about the claim."""
    quotes: list[Quote]
    """The exact words relied on, best first; at least one unless INSUFFICIENT_EVIDENCE or NOT_VERIFIABLE."""
    rationale: str
    """One sentence a reviewer can read: why this state."""
    confidence: float = Field(ge=0.0, le=1.0)
    """How sure, from 0 to 1."""


QUESTION_PROMPT = PromptTemplate(
    role="question_writer",
    system=(
        "You write verification questions for a fact checker. You get one claim. Write one question "
        "that someone holding only the reference documents could answer, to find out whether the claim "
        "is true.\n"
        "- The question must stand on its own: name the product, person, plan or thing; never 'it', "
        "'this' or 'the plan'.\n"
        "- Ask about the part of the claim that could be wrong, and name it: every number, amount, date, "
        "duration, name and condition the claim commits to. Do not ask about background the claim "
        "takes for granted.\n"
        'Reply with one JSON object: {"question": "..."}.'
    ),
    user="Claim: $claim\nWhat it commits to: $commitments",
)

VERIFY_PROMPT = PromptTemplate(
    role="verifier",
    system=(
        "You check one claim against source passages. Use only the passages, never what you know.\n"
        "Decide the state:\n"
        "- SUPPORTED: the passages state what the claim says, every number, date, name and condition "
        "included.\n"
        "- REFUTED: a passage states something the claim contradicts.\n"
        "- INSUFFICIENT_EVIDENCE: the passages do not say enough to decide.\n"
        "- CONFLICTING: some passages support the claim and others contradict it.\n"
        "- NOT_VERIFIABLE: the claim is opinion, advice or courtesy that no document can confirm.\n"
        "Quote the exact words you relied on, copied character for character from one passage, with "
        "that passage's source id. SUPPORTED, REFUTED and CONFLICTING need at least one quote. Give a "
        "one-sentence rationale and a confidence from 0 to 1. Reply with one JSON object only."
    ),
    user="Question: $question\nClaim: $claim\n\nPassages:\n$passages",
)

class ModelVerifier:
    """Chain-of-verification through a chat model; implements the `Verifier` protocol."""

    def __init__(
        self,
        model: ChatModel,
        *,
        write_questions: bool = True,
        passages: int = 3,
        max_workers: int = 8,
    ) -> None:
        self.model = model
        # False asks a templated question instead of spending a question_writer call per claim.
        self.write_questions = write_questions
        self.passages = passages
        self.max_workers = max_workers
        self.name = f"{_VERSION}:{model.model_id}"
        self._search_lock = threading.Lock()

    def config_fingerprint(self) -> str:
        """The settings and prompts that change verdicts."""
        settings = {
            "model": self.model.model_id,
            "write_questions": self.write_questions,
            "passages": self.passages,
            "prompts": [QUESTION_PROMPT.sha256, VERIFY_PROMPT.sha256],
            "proof": proof_checks(),
        }
        return sha256_text(json.dumps(settings, sort_keys=True))

    def verify(self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]) -> list[Verdict]:
        """One verdict per claim, in order; the claims' model calls run concurrently."""
        if not claims:
            return []
        index = SourceIndex(list(sources))
        pool = ThreadPoolExecutor(max_workers=max(1, min(self.max_workers, len(claims))))
        try:
            futures = [pool.submit(self._verify_one, claim, index, sources) for claim in claims]
            return [future.result() for future in futures]
        finally:
            # On the first error, claims not yet started are dropped rather than spending model calls.
            pool.shutdown(wait=True, cancel_futures=True)

    def verify_each(
        self, claims: Sequence[ExtractedClaim], sources: Sequence[Source]
    ) -> list[Verdict | TransientError]:
        """One verdict per claim, concurrently, or the transient error its call raised: one claim's timeout
        or rate limit costs that claim alone (the cascade sends it to a person) and the others still run.
        A PermanentError (a refused key, an unknown model) is the configuration's, and propagates."""
        index = SourceIndex(list(sources))

        def attempt(claim: ExtractedClaim) -> Verdict | TransientError:
            try:
                return self._verify_one(claim, index, sources)
            except TransientError as error:
                return error

        with ThreadPoolExecutor(max_workers=max(1, min(self.max_workers, len(claims)))) as pool:
            return list(pool.map(attempt, claims))

    def _verify_one(self, claim: ExtractedClaim, index: SourceIndex, sources: Sequence[Source]) -> Verdict:
        if not claim.checkable:
            return Verdict(
                state=State.NOT_VERIFIABLE,
                confidence=0.9,
                method=f"{_VERSION}:not-checkable",
                rationale="Opinion or advice: nothing in it can be checked against a source.",
            )
        question, question_note, question_record = self._question(claim)
        extra: dict[str, object] = {"question_source": question_note}
        calls = tokens = 0
        if question_record is not None:
            extra["question_record"] = question_record.model_dump()
            calls += question_record.attempts
            tokens += question_record.tokens
        # A written question adds the words a source would use; a templated one only adds boilerplate.
        query = f"{question} {claim.read_alone}" if question_note == "question_writer" else claim.read_alone
        with self._search_lock:
            retrieved = index.search(query, k=self.passages)
        if not retrieved:
            return Verdict(
                state=State.INSUFFICIENT_EVIDENCE,
                confidence=0.6,
                release_score=0.0,
                method=f"{_VERSION}:no-passage",
                rationale="No passage of the sources matched the verification question.",
                question=question,
                extra={**extra, "model_calls": calls, "model_tokens": tokens},
            )
        aligner = _QuoteAligner(sources)
        result = run_role(
            self.model,
            VERIFY_PROMPT,
            VerificationAnswer,
            values={"question": question, "claim": claim.read_alone, "passages": _passages_text(retrieved)},
            check=aligner,
        )
        extra["model_calls"] = calls + result.record.attempts
        extra["model_tokens"] = tokens + result.record.tokens
        verdict = _verdict(result, aligner.spans, retrieved, question, extra)
        with self._search_lock:  # the index's sentences read their values once, on first use
            return confirmed(claim, verdict, aligner.spans, index)

    def _question(self, claim: ExtractedClaim) -> tuple[str, str, ModelCallRecord | None]:
        """The question to ask, where it came from, and the question writer's record if it ran."""
        if not self.write_questions:
            return template_question(claim), "template", None
        result = run_role(
            self.model,
            QUESTION_PROMPT,
            VerificationQuestion,
            values={"claim": claim.read_alone, "commitments": _commitments_text(claim.commitments)},
        )
        if result.output is None:
            return template_question(claim), "template:question-writer-invalid", result.record
        missing = question_misses(result.output.question, claim)
        if missing:
            # A doubtless question tests something nobody doubted; the templated one names it all.
            return template_question(claim), f"template:doubtless({', '.join(missing)})", result.record
        return result.output.question.strip(), "question_writer", result.record


def _verdict(
    result: RoleResult[VerificationAnswer],
    spans: list[EvidenceSpan],
    retrieved: list[EvidenceSpan],
    question: str,
    extra: dict[str, object],
) -> Verdict:
    record = result.record
    if result.output is None:
        last_error = record.failures[-1].error if record.failures else "no output"
        return Verdict(
            state=State.UNRESOLVED,
            evidence=tuple(retrieved),
            confidence=0.0,
            release_score=0.0,
            method=f"model:{record.model}:invalid-output",
            rationale=f"The verifier's output failed validation {record.attempts} times; last: {last_error}",
            question=question,
            model_record=record,
            extra=extra,
        )
    answer = result.output
    rationale = answer.rationale.strip()
    source = str(extra.get("question_source", ""))
    if source.startswith("template:"):
        # The question writer's own record is not part of the claim; the reviewer still learns why.
        rationale += f" (Templated question asked: {source.removeprefix('template:')}.)"
    return Verdict(
        state=State(answer.state),
        # Quotes are what the verdict rests on; with none, the passages read are what a reviewer needs.
        evidence=tuple(spans) if spans else tuple(retrieved),
        confidence=answer.confidence,
        # The model's own confidence ranks its SUPPORTED verdicts; a calibration on labelled cases turns it
        # into a threshold. Anything else cannot be released as written, so it scores 0.
        release_score=answer.confidence if answer.state == State.SUPPORTED.value else 0.0,
        method=f"model:{record.model}",
        rationale=rationale,
        question=question,
        model_record=record,
        extra=extra,
    )


def question_misses(question: str, claim: ExtractedClaim) -> list[str]:
    """What the claim commits to that `question` does not mention; non-empty means a doubtless question.

    A claim without numbers, money, dates or entities must at least share a content word with it.
    """
    if not question.strip():
        return ["the claim"]
    required = [c for c in claim.commitments if c.kind in _QUESTION_MUST_NAME]
    if not required:
        return [] if set(content_stems(question)) & set(content_stems(claim.text)) else ["the claim"]
    folded = question.casefold()
    numbers = set(_numbers(question))
    words = set(re.findall(r"\w+", folded))
    return list(dict.fromkeys(c.text for c in required if not _mentions(c, folded, numbers, words)))


def _mentions(commitment: Commitment, folded_question: str, numbers: set[str], words: set[str]) -> bool:
    if commitment.text.casefold() in folded_question:
        return True
    values = _numbers(commitment.text)
    if values:
        # "$230M" is mentioned by "230 million dollars": the figure is what is in doubt, not its spelling.
        return all(value in numbers for value in values)
    names = [word for word in re.findall(r"\w+", commitment.text.casefold()) if len(word) > 2]
    return any(name in words for name in names)


def _numbers(text: str) -> list[str]:
    return [match.replace(",", "") for match in re.findall(r"\d+(?:[.,]\d+)*", text)]


def template_question(claim: ExtractedClaim) -> str:
    """A deterministic, self-contained question naming everything the claim commits to."""
    statement = claim.statement.strip().rstrip(".!?;:")
    question = (f'According to the sources, is "{statement}" the right answer to "{claim.context}"?' if claim.context
                else f'According to the sources, is this statement true: "{statement}"?')
    values = list(dict.fromkeys(c.text for c in claim.commitments if c.kind in _QUESTION_MUST_NAME))
    if values:
        question += f" Check specifically: {'; '.join(values)}."
    return question


def _commitments_text(commitments: Sequence[Commitment]) -> str:
    if not commitments:
        return "(nothing specific detected)"
    return "; ".join(f"{c.kind} {c.text!r}" for c in commitments)


def _passages_text(passages: Sequence[EvidenceSpan]) -> str:
    return "\n".join(f"[{span.source_id}] {span.quote}" for span in passages)


class _QuoteAligner:
    """Validates the verifier's quotes against the sources and keeps their exact spans."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self._sources = list(sources)
        self.spans: list[EvidenceSpan] = []
        """The spans of the last output that passed."""

    def __call__(self, answer: VerificationAnswer) -> VerificationAnswer:
        if answer.state in ("SUPPORTED", "REFUTED", "CONFLICTING") and not answer.quotes:
            raise ValueError(f"quotes: a {answer.state} verdict needs at least one quote from the passages")
        spans = []
        for number, quote in enumerate(answer.quotes):
            span = align_quote(quote.quote, self._sources, prefer=quote.source_id)
            if span is None:
                raise ValueError(f"quotes.{number}.quote: not found in any source: {quote.quote!r}")
            spans.append(span)
        self.spans = list(dict.fromkeys(spans))
        return answer


_EDGE_NOISE = " \t\n\"'“”‘’…."


def align_quote(quote: str, sources: Sequence[Source], *, prefer: str | None = None) -> EvidenceSpan | None:
    """The exact span of `quote` in the sources (the preferred source first), or None.

    Matching tolerates differences in whitespace and surrounding quotation marks or ellipses, which
    models add freely; the span returned is always the source's own text.
    """
    needle = quote.strip(_EDGE_NOISE)
    if not needle:
        return None
    ordered = sorted(sources, key=lambda source: source.id != prefer)
    for source in ordered:
        at = source.text.find(needle)
        if at >= 0:
            return EvidenceSpan(source_id=source.id, start=at, end=at + len(needle), quote=needle)
    pattern = re.compile(r"\s+".join(re.escape(word) for word in needle.split()))
    for source in ordered:
        match = pattern.search(source.text)
        if match:
            return EvidenceSpan(source_id=source.id, start=match.start(), end=match.end(), quote=match.group())
    return None

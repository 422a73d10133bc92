"""The case contract: what a client submits and the run record the engine returns.

Field names here are the public contract shared by the HTTP API, the CLI, fixtures and tests
(see DESIGN.md, "The case contract"). Fields may be added; existing names are never renamed. The codes
the records carry (states, severities, terminals, reasons, origins) are in `codes.py`.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verification.codes import Origin, Reason, Severity, State, Terminal


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


def sha256_text(text: str) -> str:
    """Hex sha256 of a text's UTF-8 bytes: the identity of candidates, sources and prompts."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Input


class Source(_Frozen):
    """One piece of admissible evidence submitted with the case."""

    id: str = Field(min_length=1, max_length=200)
    """The client's identifier for this source, unique within the case."""
    text: str = Field(min_length=1)
    """The full text; evidence offsets point into it."""
    title: str | None = None
    """Optional human-readable title."""
    uri: str | None = None
    """Optional link to where the source lives."""

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value


class Case(_Frozen):
    """An answer to check, with the sources it was built from."""

    external_id: str | None = Field(default=None, max_length=200)
    """The client's idempotency key: a second submission with the same key returns the first run."""
    question: str = Field(min_length=1)
    """What the end user asked."""
    answer: str | None = None
    """The draft to check; optional only where a model is configured to draft one."""
    sources: list[Source] = Field(min_length=1)
    """The only admissible evidence."""
    constitution: str | None = None
    """Name of the constitution to judge against; the version in force is pinned into the run."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Opaque client data, echoed back in the run record."""

    @field_validator("question")
    @classmethod
    def _question_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("sources")
    @classmethod
    def _unique_source_ids(cls, sources: list[Source]) -> list[Source]:
        seen: set[str] = set()
        for source in sources:
            if source.id in seen:
                raise ValueError(f"duplicate id {source.id!r}")
            seen.add(source.id)
        return sources


# ---------------------------------------------------------------------------------------------
# Output


CommitmentKind = Literal[
    "number", "money", "percentage", "date", "time", "duration", "entity", "relation", "negation"
]


class Commitment(_Frozen):
    """One checkable thing a claim commits to, such as "$230M" or "not"."""

    kind: CommitmentKind
    """What sort of value this is."""
    text: str
    """The words in the claim that carry it."""
    start: int
    """Offset of `text` in the claim's text."""
    end: int
    """End offset (exclusive) of `text` in the claim's text."""
    value: float | None = None
    """Normalised numeric value (money in base units, percentages as numbers, years for dates)."""
    unit: str | None = None
    """Normalised unit: a currency code, "%", "day", "mg", ..."""


class EvidenceSpan(_Frozen):
    """An exact span of a source that bears on a claim."""

    source_id: str
    """Which source the span is in."""
    start: int
    """Character offset of the span in the source's text."""
    end: int
    """End offset (exclusive); `source.text[start:end] == quote`."""
    quote: str
    """The quoted text."""
    covers: tuple[str, ...] = ()
    """The claim's commitments this span grounds or contradicts, as the claim writes them ("$20", "Team plan")."""


class AlignedWord(_Frozen):
    """One word of a proven claim and the word of its evidence that states it (`checks/proof/`)."""

    word: str
    """The claim's word, as the claim writes it."""
    source_id: str
    """The source the evidence word is in."""
    start: int
    """Offset of the evidence word (or the value that states it) in the source's text."""
    end: int
    """End offset (exclusive) in the source's text."""


class ModelCallRecord(_Frozen):
    """Provenance of one model-backed judgement, kept so drift can be audited later."""

    role: str
    """Which model role answered: verifier, question_writer, critic, reviser, generator."""
    model: str
    """The model id the server reported (or was asked for)."""
    prompt_sha256: str
    """sha256 of the prompt template that produced the request."""
    attempts: int
    """How many calls it took; 1 when the first output validated."""
    tokens: int = 0
    """Tokens the server reported over every attempt (prompt and completion); 0 when it reported none."""
    failures: list[ModelFailure] = Field(default_factory=list)
    """Each attempt whose output failed validation: the raw output and the error."""


class ModelFailure(_Frozen):
    """One model output that failed validation."""

    raw_output: str
    """What the model returned, verbatim."""
    error: str
    """Why it was refused."""


class Claim(_Frozen):
    """One atomic, self-contained assertion of a candidate, with its verdict."""

    id: str
    """Stable across versions: an unchanged claim keeps its id, a replaced one keeps it with new text."""
    text: str
    """The claim as it reads in the candidate."""
    start: int
    """Character offset of the claim in its candidate's text."""
    end: int
    """End offset (exclusive) in its candidate's text."""
    state: State
    """The verification state."""
    severity: Severity
    """How much harm the claim can do if wrong."""
    question: str | None = None
    """The self-contained verification question asked about this claim."""
    evidence: list[EvidenceSpan] = Field(default_factory=list)
    """Spans of the sources that bear on it, best first."""
    method: str
    """Which procedure decided the state, such as "offline:typed-match" or "model:gpt-4o"."""
    confidence: float = Field(ge=0.0, le=1.0)
    """How sure the method is of the state."""
    release_score: float | None = Field(default=None, ge=0.0, le=1.0)
    """How safe the claim is to release as written, 0..1; a release needs it at or above the constitution's
    calibrated threshold. None when the verifier gives no score (NOT_VERIFIABLE)."""
    commitments: list[Commitment] = Field(default_factory=list)
    """What the claim commits to: numbers, money, dates, entities, negation."""
    rationale: str = ""
    """One line a reviewer can read: why this state."""
    model_record: ModelCallRecord | None = None
    """Present when a model decided the state."""
    question_source: str | None = None
    """Where `question` came from: "question_writer", "template", or "template:doubtless(...)" when the
    question writer's question left what the claim commits to unasked and the template replaced it."""
    decided_by: str | None = None
    """In a cascade, the verifier ("name fingerprint") that decided the claim when it is not the run's
    own: the model, for a claim the offline verifier could not settle. Its calibration gates the score."""
    stratum: str | None = None
    """What its evidence is ("proven", "aligned", "partial", "bare"): an answer is gated at the threshold
    of its weakest claim's stratum. None for a claim decided by the model, unless the sentences it quoted
    prove the claim (`llm/quoted_proof.py`): then "proven"."""
    alignment: list[AlignedWord] = Field(default_factory=list)
    """For a proven claim (method "offline:proof", or a model's verdict its quotes prove): each of its
    content words with the evidence word that states it. Empty for every other claim."""
    escalation: str | None = None
    """In a cascade, why the claim went to the model ("offline SUPPORTED at 0.61, below the safe band
    (0.76)"); None when the offline verdict stood."""
    language: str = "en"
    """The language it is written in (ISO 639-1; "und" where no letters tell), as the verifier read it."""


class RuleVerdict(_Frozen):
    """How a candidate fared against one rule of the constitution."""

    rule: str
    """The rule's name."""
    passed: bool | None
    """True or False; None when the rule needs judgment and no model is configured."""
    critique: str = ""
    """Why it failed, or what was checked."""
    checked_by: str
    """"code", "model:<id>" or "not_checked"."""
    blocking: bool = False
    """Whether the constitution rejects the answer outright when this rule fails."""


FindingProblem = Literal["unsupported", "wrong_version", "off_question", "tone", "omission"]


class Finding(_Frozen):
    """One problem the critic found in a candidate."""

    claim: str
    """The claim id, or the quoted text the finding is about."""
    problem: FindingProblem
    """What kind of problem."""
    evidence: str = ""
    """What in the sources shows it."""


class Candidate(_Frozen):
    """One version of the answer in the chain."""

    id: str
    """Identifier within the run, such as "c0", "c1"."""
    parent: str | None
    """The candidate this one was made from; None for the first."""
    origin: Origin
    """Who produced it."""
    text: str
    """The full answer text."""
    sha256: str
    """sha256 of `text`."""
    claims: list[Claim] = Field(default_factory=list)
    """Its claims, in text order."""
    rule_verdicts: list[RuleVerdict] = Field(default_factory=list)
    """One verdict per rule of the pinned constitution."""
    findings: list[Finding] = Field(default_factory=list)
    """The critic's findings, at most 8."""
    operation: str | None = None
    """For a repair candidate, the operation that made it."""
    model_record: ModelCallRecord | None = None
    """Provenance when a model wrote this text (generator or reviser)."""
    judge_records: list[ModelCallRecord] = Field(default_factory=list)
    """Provenance of the model calls that judged this candidate: rule judges, then the critic."""

    @model_validator(mode="after")
    def _hash_matches(self) -> Candidate:
        if self.sha256 != sha256_text(self.text):
            raise ValueError("sha256 does not match text")
        return self


class Repair(_Frozen):
    """One bounded repair attempt, kept whether it succeeded or not."""

    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from")
    """The candidate repaired."""
    to: str | None
    """The candidate it produced; None when nothing usable was produced."""
    operation: str
    """OMIT_CLAIM, REPLACE_WITH_EVIDENCE, NARROW_TO_SUPPORTED_SCOPE or MODEL_REVISION."""
    target_claim_ids: list[str]
    """Claims the repair was allowed to change."""
    protected_claim_ids: list[str]
    """Claims it had to leave unchanged and supported."""
    outcome: Literal["ACCEPTED", "REJECTED"]
    """Whether the new candidate was kept."""
    supported_removed: int = 0
    """How many previously supported claims the repair removed or broke."""
    failure: str = ""
    """Why it was rejected: which invariant broke."""
    changed_claim_ids: list[str] = Field(default_factory=list)
    """Claims of the repaired candidate that the repair removed or rewrote."""
    regression_severity: float = 0.0
    """Share of the checks that passed before the repair (supported claims, passing rules) failing after it."""
    surface_blast_radius: float = 0.0
    """Share of the repaired candidate's claims that the repair changed or removed."""
    new_failures: list[str] = Field(default_factory=list)
    """Claim ids or rule names that failed only after this repair."""
    proposed_text: str | None = None
    """The text a rejected repair proposed, kept so a reviewer can see what was refused."""
    model_record: ModelCallRecord | None = None
    """Provenance when a model proposed the repair."""


class Metrics(_Frozen):
    """Counts and timings for one run."""

    claims: int
    """Claims in the first candidate."""
    unsupported_before: int
    """Claims of the first candidate not SUPPORTED (NOT_VERIFIABLE excluded)."""
    unsupported_after: int
    """Claims of the final candidate not SUPPORTED (NOT_VERIFIABLE excluded)."""
    supported_removed: int
    """Supported claims lost over the whole run."""
    model_calls: int
    """Calls made to a model, retries included."""
    verifier_calls: int
    """Claim verifications run (cache hits excluded)."""
    elapsed_ms: int
    """Wall time of the run."""
    claims_by_state: dict[str, int] = Field(default_factory=dict)
    """Claims of the final candidate per verification state."""
    support_ratio: float | None = None
    """SUPPORTED claims of the final candidate over its judged ones (NOT_VERIFIABLE excluded); None if none."""
    repairs_attempted: int = 0
    """Repair attempts, rejected ones included."""
    repairs_accepted: int = 0
    """Repairs whose candidate was kept."""
    regressions: int = 0
    """Repairs rejected because they removed or broke a supported claim or a passing rule."""
    rule_iterations: int = 0
    """Critique-revise rounds spent on failing rules."""
    cache_hits: int = 0
    """Claim verifications answered from the cache instead of the verifier."""
    model_tokens: int = 0
    """Tokens the model server reported over every call of the run (prompt and completion)."""


class ReviewPackage(_Frozen):
    """What a person needs to decide a case the engine could not."""

    original_candidate: str
    """Id of the client's candidate."""
    current_candidate: str
    """Id of the candidate on offer."""
    target_failures: list[str]
    """Claim ids that are not supported in the current candidate."""
    states: dict[str, State]
    """State of every claim of the current candidate, by id."""
    evidence_used: list[EvidenceSpan]
    """Every span any verdict relied on."""
    attempts: list[Repair]
    """Repairs tried, failed ones included."""
    new_failures: list[str]
    """Claim ids that failed only after a repair."""
    budget_reason: str | None = None
    """Which budget ran out, if one did."""
    policy_reason: str | None = None
    """Which policy sent the case to a person."""
    parent_chain: list[str] = Field(default_factory=list)
    """Ids of the candidates before the current one, oldest first."""
    rule_failures: list[str] = Field(default_factory=list)
    """Rules the current candidate fails, with their critique."""


class RunRecord(_Frozen):
    """Everything the engine did with one case."""

    external_id: str | None = None
    """Echo of the case's idempotency key."""
    terminal: Terminal
    """Where the run ended."""
    reason: Reason
    """Why it ended there."""
    final_answer: str
    """Text of the last candidate; released only on PERMIT or a person's approval."""
    candidates: list[Candidate]
    """The chain, oldest first."""
    repairs: list[Repair] = Field(default_factory=list)
    """Every repair attempt."""
    metrics: Metrics
    """Counts and timings."""
    review_package: ReviewPackage | None = None
    """Present when a person must look."""
    notes: list[str] = Field(default_factory=list)
    """Plain remarks, such as "the answer has no checkable claim"."""
    verifier: str
    """Name and version of the verifier, such as "offline/1"."""
    verifier_fingerprint: str | None = None
    """sha256 (16 hex digits) of the verifier's configuration: its stages' versions, weights, model file
    and prompts. Runs with the same fingerprint were judged by the same rules."""
    constitution: str | None = None
    """The constitution (name@version) the run was judged against."""
    scorer_model: str | None = None
    """sha256 of the learned scorer's model file the offline verifier scored with; None with the rules
    scorer, or when the model verifier alone checked the claims."""
    non_converging_rules: list[str] = Field(default_factory=list)
    """Rules that still failed after the bounded critique-revise loop."""
    release_threshold: float | None = None
    """The release threshold the gate applied: every claim needed a score at or above it. None when the
    verifier has no calibration for its configuration: then a person decides (NOT_CALIBRATED)."""
    release_calibration: str | None = None
    """What backs the threshold: the risk budget, the bound, the labelled data and when it was computed."""
    release_stratum: str | None = None
    """The final answer's stratum, whose threshold the gate applied ("proven", "aligned", "partial",
    "bare"); None when the pooled threshold applied (a claim decided by the model, or no strata)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Echo of the case's metadata."""


ModelCallRecord.model_rebuild()

"""Constitutions: named rules as data, one verdict per rule, and the policy knobs of a run.

Countable rules (word limit, forbidden phrases, required disclosure, no promise outside the sources)
are checked in code and never by a model: a model judge can always find fault with a fuzzy rule (the
moving bar), while a count is stable. Rules that need judgment go to the model when one is configured
and are reported as not checked otherwise (`judging.py` gives the verdicts). A constitution is a frozen
pydantic model that round-trips through JSON, so the console can store versions of it as data; its
version is a prefix of the sha256 of its content.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from verification.decision.calibration import (
    DEFAULT_MAX_UNSAFE_RELEASE_RATE,
    ReleaseCalibration,
    calibration_groups,
    release_threshold,
)
from verification.types import FindingProblem, Reason, Severity, Terminal, sha256_text


def contains_any(text: str, phrases: Sequence[str]) -> bool:
    """Whether `text` contains one of the phrases, whatever the case."""
    folded = text.casefold()
    return any(phrase.casefold() in folded for phrase in phrases)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class _Rule(_Frozen):
    name: str = Field(min_length=1, max_length=100)
    """The rule's name, unique within its constitution; verdicts carry it."""
    description: str = ""
    """What the rule asks, in a sentence a policy admin reads."""
    blocking: bool = False
    """When true, an answer that still fails the rule is rejected instead of sent to a person."""


class WordLimit(_Rule):
    """The answer has at most `max_words` words (checked in code)."""

    kind: Literal["word_limit"] = "word_limit"
    """Discriminator."""
    max_words: int = Field(ge=1, le=100_000)
    """The most words the answer may have."""


class ForbiddenPhrases(_Rule):
    """The answer uses none of the phrases, matched as whole words whatever the case (checked in code)."""

    kind: Literal["forbidden_phrases"] = "forbidden_phrases"
    """Discriminator."""
    phrases: list[str] = Field(min_length=1)
    """Phrases that must not appear."""

    @field_validator("phrases")
    @classmethod
    def _phrases_not_blank(cls, phrases: list[str]) -> list[str]:
        if any(not phrase.strip() for phrase in phrases):
            raise ValueError("a phrase must not be blank")
        return phrases


class RequiredDisclosure(_Rule):
    """When a claim had no evidence, the answer says the fact was not found (checked in code)."""

    kind: Literal["required_disclosure"] = "required_disclosure"
    """Discriminator."""
    phrases: list[str] = Field(min_length=1)
    """Wordings that count as the disclosure, matched whatever the case."""
    disclosure: str = Field(min_length=1)
    """The sentence the engine adds when the answer lacks one; it asserts nothing about the world."""

    @model_validator(mode="after")
    def _disclosure_counts(self) -> RequiredDisclosure:
        if not contains_any(self.disclosure, self.phrases):
            raise ValueError("disclosure: must contain one of the phrases, or adding it would not satisfy the rule")
        return self


class NoPromiseOutsideSources(_Rule):
    """Every promise (a CRITICAL claim: money, dosage, legal, safety, policy) is supported by a source."""

    kind: Literal["no_promise_outside_sources"] = "no_promise_outside_sources"
    """Discriminator."""


class JudgedRule(_Rule):
    """A rule that needs judgment: judged by the model backend, reported not checked without one."""

    kind: Literal["judged"] = "judged"
    """Discriminator."""
    instruction: str = Field(min_length=1)
    """What the judge checks, as an instruction."""


Rule = Annotated[
    WordLimit | ForbiddenPhrases | RequiredDisclosure | NoPromiseOutsideSources | JudgedRule,
    Field(discriminator="kind"),
]


class Route(StrEnum):
    """Which claims a run with a model endpoint sends to the model (`cascade.py`)."""

    OFF = "off"
    """None: the offline verifier decides every claim."""
    UNCERTAIN = "uncertain"
    """The claims the offline verifier cannot settle: no typed check decided them and their release score
    is below the calibrated safe band."""
    ALL = "all"
    """Every claim, the offline verifier not consulted."""


class MinorTier(StrEnum):
    """What happens to a MINOR claim that cannot be released as written, once repairs are done."""

    HOLD = "hold"
    """It holds the answer back, as a claim of any severity does."""
    REMOVE = "remove"
    """The answer goes out without it."""
    NOTE = "note"
    """The answer goes out with it, followed by the constitution's `minor_note`; a contradicted one
    (REFUTED, CONFLICTING) is taken out instead: a note never carries what the sources deny."""


class Policy(_Frozen):
    """The knobs that decide where a run stops and who looks at it."""

    needs_person: list[Terminal] = Field(default_factory=lambda: [Terminal.REVIEW, Terminal.ABSTAIN])
    """Terminal states that go to the review queue and carry a review package."""
    review_critical_claims: bool = True
    """Send to a person any run whose original answer had a CRITICAL claim that was not supported,
    even when a repair fixed it: a wrong refund or dosage deserves a human look."""
    max_repairs: int = Field(default=6, ge=0, le=100)
    """Repair attempts per run, rejected ones included."""
    max_verifier_calls: int = Field(default=200, ge=1)
    """Claim verifications per run (cache hits are free)."""
    max_model_calls: int = Field(default=60, ge=0)
    """Model calls per run, retries included."""
    max_wall_ms: int = Field(default=120_000, ge=1)
    """Wall time per run, in milliseconds."""
    max_rule_iterations: int = Field(default=2, ge=0, le=10)
    """Critique-revise rounds for failing rules before a rule is recorded as non-converging."""
    max_blast_radius: float = Field(default=0.5, gt=0.0, le=1.0)
    """Largest share of a candidate's claims one repair may change or remove beyond the claim it repairs."""
    max_unsafe_release_rate: float = Field(default=DEFAULT_MAX_UNSAFE_RELEASE_RATE, gt=0.0, lt=1.0)
    """The risk budget: the largest share of inconsistent answers this constitution accepts to release
    without a person. The release threshold is calibrated for it (`verification.decision.calibration`)."""
    release_calibration: ReleaseCalibration | None = None
    """A threshold calibrated on this organisation's own labelled cases, with its provenance; None uses
    the built-in calibration of the verifier for `max_unsafe_release_rate`."""
    shadow: bool = False
    """Shadow mode: until this constitution's own release calibration (`release_calibration`, from its
    reviewers' labels) meets the budget, every answer the gate would release goes to a person instead,
    who reviews it blind, and their labels become calibration data. Read by the console's routing, not by
    the engine. False: the calibration in force (the verifier's built-in one, at first) releases."""
    auto_publish_calibration: bool = False
    """In shadow mode, publish a new version with the calibration the labels allow, by itself, as soon as
    they allow one within the budget (audited as any publication). Read by the console, not by the engine."""
    calibration_group: str | None = Field(default=None, max_length=100)
    """The group of labelled answers this constitution's answers resemble (a group of the calibration in
    force; the built-in ones are "wice/hold", single claims checked against a web page, "summedits/hold",
    summaries of long documents, and "halueval/hold", short answers to a question): that group's own
    threshold applies, bounded on it alone. None: the threshold of each answer's stratum, computed from
    what its evidence is, where the calibration has strata, else the pooled one. A group the calibration
    does not have is an error naming it (`calibration.UnknownGroup`), never a silent fallback."""
    model_verification: Route | None = None
    """With a model endpoint configured, which claims go to the model: "off", "uncertain" (those the
    offline verifier cannot settle) or "all". None: "uncertain" when the offline verifier has a release
    calibration in force, "all" when it has none. Without an endpoint every claim is verified offline."""
    minor_unsupported: MinorTier = MinorTier.HOLD
    """What a MINOR claim that is not supported (or scores below the release threshold) does to the answer
    once repairs are done: "hold" it back for a person, "remove" the claim, or keep it with `minor_note`.
    Only when every claim holding the answer back is MINOR: a CRITICAL or MODERATE one always holds it."""
    minor_note: str = Field(default="", max_length=200)
    """The sentence that follows a MINOR claim let out under "note", such as "We could not confirm this in
    our documentation." It asserts nothing about the world and is never checked as a claim."""
    spot_check_share: float | None = Field(default=None, ge=0.0, le=1.0)
    """Share (0..1) of PERMIT runs also queued for a person as spot checks; None leaves it to the
    deployment's default. The engine does not read it: routing a released case is the console's job."""
    double_review_reasons: list[Reason] = Field(default_factory=list)
    """Escalation reasons whose cases get two independent reviews before a decision; when the two
    disagree, a review lead decides. Read by the console's routing, not by the engine."""
    double_review_severities: list[Severity] = Field(default_factory=list)
    """Severities (of an escalation's highest failing claim) whose cases get two independent reviews."""
    review_deadline_hours: int | None = Field(default=None, ge=1, le=24 * 90)
    """Hours an escalated case may wait for a decision before the queue marks it overdue; None: never."""
    review_deadline_hours_critical: int | None = Field(default=None, ge=1, le=24 * 90)
    """The time to decision of a case whose escalation is CRITICAL, in hours; None: `review_deadline_hours`."""
    review_deadline_hours_moderate: int | None = Field(default=None, ge=1, le=24 * 90)
    """The same for a MODERATE escalation."""
    review_deadline_hours_minor: int | None = Field(default=None, ge=1, le=24 * 90)
    """The same for a MINOR escalation."""
    scorer_model: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """sha256 of the learned scorer's model file this constitution's claims are scored with: a model
    retrained on the organisation's labels and promoted for it. None: the deployment's model (the shipped
    one, or VERIFICATION_MODEL_DIR's). A run whose verifier scores with another model is refused, so a
    calibration made for the pinned model is never applied to another's scores."""


    def calibration_group_error(self) -> str | None:
        """Why `calibration_group` names no group of the calibrations it could be read from (its own, else
        the built-in ones), or None: for an editor to say where the group is typed, not when a case runs."""
        known = calibration_groups(self.release_calibration)
        if self.calibration_group is None or self.calibration_group in known:
            return None
        return (f"calibration_group: {self.calibration_group!r} is not a group of the calibration in force; "
                f"choose one of: {', '.join(known) or 'none'}")

    def calibration_for(self, verifier: str) -> ReleaseCalibration | None:
        """The release calibration in force for `verifier` ("name fingerprint") under this policy: its own
        when made for that verifier, else the built-in one for the budget, at `calibration_group`'s threshold."""
        calibration = release_threshold(verifier, max_unsafe_release_rate=self.max_unsafe_release_rate,
                                        calibration=self.release_calibration)
        return calibration.for_group(self.calibration_group) if calibration is not None else None

    @property
    def in_shadow(self) -> bool:
        """Shadow mode is on and no calibration of the constitution's own meets its budget yet."""
        return self.shadow and (self.release_calibration is None or not self.release_calibration.met)

    @model_validator(mode="after")
    def _note_when_noting(self) -> Policy:
        note = self.minor_note.strip()
        if self.minor_unsupported is MinorTier.NOTE and not note:
            raise ValueError('minor_note: required when minor_unsupported is "note"')
        if note and note[-1] not in ".!?":
            raise ValueError("minor_note: must be one sentence ending in . ! or ?")
        return self


class ErrorKind(_Frozen):
    """A kind of error a reviewer can tag on a claim or a whole answer. For people only: no run reads it."""

    code: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9][a-z0-9-]*$")
    """Lower-case code that exports and tags carry, such as "wrong-number"."""
    label: str = Field(min_length=1, max_length=80)
    """What a reviewer reads, such as "Wrong number"."""


DEFAULT_ERROR_KINDS: tuple[ErrorKind, ...] = (
    ErrorKind(code="contradicts-source", label="Contradicts the source"),
    ErrorKind(code="not-in-source", label="Not in the source"),
    ErrorKind(code="outdated", label="Outdated"),
    ErrorKind(code="wrong-number", label="Wrong number"),
    ErrorKind(code="off-question", label="Off the question"),
)
"""The kinds a constitution offers until a policy admin defines its own."""
MAX_ERROR_KINDS = 20


class Constitution(_Frozen):
    """A named, versioned set of rules and the policy a run follows."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[a-z0-9][a-z0-9._-]*$")
    """Lower-case name a case refers to, such as "customer-support"."""
    description: str = ""
    """What the constitution is for."""
    rules: list[Rule] = Field(default_factory=list)
    """The rules, each judged on its own."""
    policy: Policy = Field(default_factory=Policy)
    """Stops, budgets and routing."""
    error_kinds: list[ErrorKind] = Field(default_factory=list, max_length=MAX_ERROR_KINDS)
    """The error taxonomy reviewers tag with; empty: DEFAULT_ERROR_KINDS. Left out of the content while
    empty, so a constitution without its own keeps the version it had before taxonomies existed."""

    @model_validator(mode="after")
    def _unique_rule_names(self) -> Constitution:
        seen: set[str] = set()
        for rule in self.rules:
            if rule.name in seen:
                raise ValueError(f"rules: duplicate rule name {rule.name!r}")
            seen.add(rule.name)
        codes = [kind.code for kind in self.error_kinds]
        repeated = sorted({code for code in codes if codes.count(code) > 1})
        if repeated:
            raise ValueError(f"error_kinds: each code once ({', '.join(repeated)} repeated)")
        return self

    @model_serializer(mode="wrap")
    def _without_default_taxonomy(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.error_kinds:
            data.pop("error_kinds", None)
        return data

    @property
    def taxonomy(self) -> tuple[ErrorKind, ...]:
        """The kinds of error reviewers tag this constitution's cases with."""
        return tuple(self.error_kinds) or DEFAULT_ERROR_KINDS

    @property
    def version(self) -> str:
        """The first 12 hex digits of the sha256 of the content: equal content, equal version."""
        return sha256_text(json.dumps(self.model_dump(mode="json"), sort_keys=True))[:12]

    @property
    def pinned(self) -> str:
        """"name@version", as a run record pins it."""
        return f"{self.name}@{self.version}"

    def rule_problems(self) -> dict[str, FindingProblem]:
        """The critic's finding kind for each rule's failure: a missing disclosure is an omission, a promise
        outside the sources is unsupported, the rest is tone."""
        kinds: dict[str, FindingProblem] = {
            "required_disclosure": "omission",
            "no_promise_outside_sources": "unsupported",
        }
        return {rule.name: kinds.get(rule.kind, "tone") for rule in self.rules}

    def disclosures(self) -> frozenset[str]:
        """The sentences this constitution's disclosure rules add: statements about the evidence, not claims."""
        notes = {self.policy.minor_note.strip()} if self.policy.minor_note.strip() else set()
        return frozenset({rule.disclosure for rule in self.rules if isinstance(rule, RequiredDisclosure)} | notes)


# ---------------------------------------------------------------------------------------------
# Built-in constitutions

_NOT_FOUND = ("could not find", "couldn't find", "not found", "no information", "do not have information",
              "don't have information", "not in our documentation", "not stated in")

DEFAULT = Constitution(
    name="default",
    description="Used when a case names no constitution: promises must come from the sources.",
    rules=[
        NoPromiseOutsideSources(
            name="no-promise-outside-sources",
            description="Refunds, prices, dosages, legal and safety statements must be backed by a source.",
        ),
        WordLimit(name="word-limit", description="Long answers hide what matters.", max_words=400),
    ],
)

CUSTOMER_SUPPORT = Constitution(
    name="customer-support",
    description="Replies to customers about plans, billing, refunds and accounts.",
    rules=[
        WordLimit(name="word-limit", description="A reply a customer reads in one go.", max_words=150),
        ForbiddenPhrases(
            name="no-guarantees",
            description="Support never guarantees outcomes policy does not.",
            phrases=["guaranteed", "guarantee", "100%", "always refund", "no questions asked"],
            blocking=True,
        ),
        RequiredDisclosure(
            name="say-when-not-found",
            description="When a fact the customer asked about is not in the sources, say so.",
            phrases=list(_NOT_FOUND),
            disclosure="I could not find anything more on this in our documentation.",
        ),
        NoPromiseOutsideSources(
            name="no-promise-outside-sources",
            description="Refunds, prices and account promises must be backed by a source.",
        ),
        JudgedRule(
            name="answers-the-question",
            description="The reply addresses what the customer asked, not a nearby question.",
            instruction="Does the answer address the question the customer asked, rather than a nearby one?",
        ),
    ],
)

MEDICAL_INFORMATION = Constitution(
    name="medical-information",
    description="Patient-facing answers drawn from leaflets: no advice beyond them.",
    rules=[
        WordLimit(name="word-limit", description="Short enough to read before taking a dose.", max_words=120),
        ForbiddenPhrases(
            name="no-diagnosis",
            description="The assistant never diagnoses or promises safety.",
            phrases=["you have", "completely safe", "no side effects", "diagnosis"],
            blocking=True,
        ),
        RequiredDisclosure(
            name="say-when-not-found",
            description="When the leaflet does not say, tell the patient to ask a pharmacist.",
            phrases=["not in the leaflet", "ask a pharmacist", "could not find"],
            disclosure="The leaflet does not say more on this; please ask a pharmacist.",
        ),
        NoPromiseOutsideSources(
            name="no-promise-outside-sources", description="Every dosage and safety statement is in the leaflet."
        ),
    ],
)

_BUILTIN = {constitution.name: constitution for constitution in (DEFAULT, CUSTOMER_SUPPORT, MEDICAL_INFORMATION)}


def builtin(name: str) -> Constitution | None:
    """The built-in constitution called `name`, or None when there is none."""
    return _BUILTIN.get(name)


def builtin_names() -> list[str]:
    """Names of the built-in constitutions, sorted."""
    return sorted(_BUILTIN)

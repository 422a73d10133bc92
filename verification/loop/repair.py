"""Repair operations and the contract each one runs under.

The operation follows the verification state: REFUTED -> replace the wrong detail from the evidence,
or omit; INSUFFICIENT_EVIDENCE -> narrow to what the evidence says, or omit, never hedge ("may have
been" is the same claim in weaker words); CONFLICTING and UNRESOLVED go to a person. An operator only
proposes a new text; the controller verifies the result again and checks the contract's invariants
in code (`contract.contract_violations`), because an operator's own account of its change is not evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from verification.checks.check import PREFIX
from verification.checks.grounding.conditions import NARROWER_IN_SOURCE
from verification.claims.clauses import clause_tokens
from verification.claims.commitments import VALUE_KINDS, agree, comparable, find_mentions
from verification.claims.sentences import split_sentences
from verification.claims.tokens import content_stems
from verification.errors import PermanentError
from verification.loop.cohesion import opening_pronoun, restore_cohesion
from verification.loop.contract import Operation, Operator, Proposal, RepairContext, RepairContract
from verification.loop.edits import removal, sentence_of, splice, tidy
from verification.loop.judging import count_words, forbidden_in
from verification.loop.reviser import ModelRevision
from verification.policy.constitution import ForbiddenPhrases, RequiredDisclosure, WordLimit
from verification.types import Candidate, Claim, State


class UnknownRepairMode(PermanentError, ValueError):
    """A repair mode nobody declared; refused before any repair runs."""


@dataclass(frozen=True)
class RepairPlan:
    """Which operators to try, in order, for each verification state, and for failing rules."""

    by_state: Mapping[State, tuple[Operator, ...]] = field(default_factory=dict)
    """Operators per state of the target claim, tried in order until one is accepted."""
    for_rules: tuple[Operator, ...] = ()
    """Operators that revise a candidate whose claims pass but whose rules fail."""
    regenerate: bool = False
    """Regenerate from the sources (model path) when nothing in the answer was supported."""
    name: str = "custom"
    """The mode's name, for the run record."""

    @property
    def repairs_anything(self) -> bool:
        """False for the no-repair baseline."""
        return bool(self.by_state or self.for_rules or self.regenerate)


# ---------------------------------------------------------------------------------------------
# Offline operators


class OmitClaim:
    """Removes the target claims, then runs the cohesion pass on what follows each cut."""

    name = Operation.OMIT_CLAIM.value

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal | None:
        """The text without the targets; None when a target is not in the candidate."""
        targets = _targets(candidate, contract)
        if not targets:
            return None
        edits = [removal(candidate.text, claim) for claim in targets]
        # Mark each cut so the cohesion pass knows where a premise may have gone.
        marker = "\u0000"
        # The cut is before a capitalised continuation and after a kept clause's full stop.
        marked = splice(candidate.text, [
            (start, end, replacement + marker if replacement in ("", ".", "!", "?") else marker + replacement)
            for start, end, replacement in edits
        ])
        cut_points = []
        while marker in marked:
            at = marked.index(marker)
            cut_points.append(at)
            marked = marked[:at] + marked[at + 1 :]
        cohesion = restore_cohesion(marked, cut_points)
        removed = tuple(claim.id for claim in targets)
        if cohesion.warnings:
            # Rebinding the pronoun would mean writing a subject in; refusing keeps the answer honest.
            return Proposal(text="", removed=removed, failure="cohesion: " + "; ".join(cohesion.warnings))
        return Proposal(text=tidy(cohesion.text), removed=removed, notes=cohesion.edits)


class ReplaceWithEvidence:
    """REFUTED: puts the evidence's value where the claim's disagreeing value was, or the evidence
    sentence where the whole claim was."""

    name = Operation.REPLACE_WITH_EVIDENCE.value

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal | None:
        """The text with each target corrected from its evidence; None when no evidence says otherwise."""

        def corrected(claim: Claim) -> str | None:
            swapped = _corrected_value(claim)
            if swapped is not None:
                swapped_text, at = swapped
                return swapped_text if _anchored(swapped_text, claim.evidence[0].quote, at) else None
            return _as_the_source_says(candidate.text, claim)

        return _rewrite_targets(candidate, contract, corrected)


def _corrected_value(claim: Claim) -> tuple[str, int] | None:
    """The claim with its disagreeing value swapped for the deciding evidence span's value, and where the
    new value starts in it; None when no value disagrees."""
    if not claim.evidence:
        return None
    seen = [m for span in claim.evidence[:3] for m in find_mentions(span.quote) if m.kind in VALUE_KINDS]
    deciding = [m for m in find_mentions(claim.evidence[0].quote) if m.kind in VALUE_KINDS]
    claimed = [m for m in find_mentions(claim.text) if m.kind in VALUE_KINDS]
    for mention in claimed:
        # A value the evidence confirms somewhere is not the one in dispute.
        if any(comparable(mention, other) and agree(mention, other) for other in seen):
            continue
        # Nor is a value the claim states elsewhere the one to put in its place: "earned $3.1 billion or
        # $6.78 per share" corrects "$6.90 per share ... earned $3.1 billion" with "$6.78".
        told = [other for other in claimed if other is not mention]
        for value in deciding:
            if comparable(mention, value) and not agree(mention, value) and not any(
                    comparable(value, other) and agree(value, other) for other in told):
                return claim.text[: mention.start] + value.text + claim.text[mention.end :], mention.start
    return None


def _anchored(new_text: str, quote: str, at: int | None = None) -> bool:
    """Whether the evidence span talks about what the corrected claim talks about.

    Swapping in a value is only a correction when the span is about the same thing: "Q3 revenue was
    $46 million" must not borrow Q2's figure from a sentence that never mentions Q3. Every name-like
    word (capitalised inside the claim, or mixing letters and digits) must be in the span, and most of
    the content words around the new value (at `at`; the whole text without it). Only those: the rest
    of the sentence ("which includes 5 seats") is the claim's own, kept as written and judged again when
    the repaired claim is verified.
    """
    folded = quote.casefold()
    words = re.findall(r"[\w'’.-]+", new_text)
    names = [w.strip(".") for w in words[1:] if w[:1].isupper() or (re.search(r"\d", w) and re.search(r"[A-Za-z]", w))]
    if any(name.casefold() not in folded for name in names if name):
        return False
    stems = set(content_stems(new_text if at is None else _said_around(new_text, at)))
    if not stems:
        return False
    return len(stems & set(content_stems(quote))) / len(stems) >= 0.75


def _said_around(text: str, at: int) -> str:
    """The words of `text` that the value at offset `at` belongs to: its clause, cut at the values either
    side of it ("The Pro plan costs $20 per month" of "The Pro plan costs $20 per month with 5 seats
    included"; "costs $20 per month" of "The Pro plan, which includes 5 seats, costs $20 per month.")."""
    tokens = clause_tokens(text)
    here = next((token for token in tokens if token.end > at), None)
    if here is None:
        return text
    values = [m for m in find_mentions(text) if m.kind in VALUE_KINDS]
    before = max((m.end for m in values if m.end <= at), default=0)
    after = min((m.start for m in values if m.start > at), default=len(text))
    kept = [token for token in tokens if token.clause == here.clause and before <= token.start and token.end <= after]
    return text[kept[0].start : kept[-1].end] if kept else text


def _as_the_source_says(text: str, claim: Claim) -> str | None:
    """The claim's first evidence sentence in its place, where that sentence is about what the claim is about."""
    new_text = _evidence_sentence(text, claim)
    return new_text if new_text and _anchored(new_text, claim.evidence[0].quote) else None


def _evidence_sentence(text: str, claim: Claim) -> str | None:
    # Only a claim that is a whole sentence can become the evidence sentence without breaking grammar.
    if sentence_of(text, claim.start, claim.end) != (claim.start, claim.end) or not claim.evidence:
        return None
    quote = " ".join(claim.evidence[0].quote.split())
    if len(quote.split()) < 4:
        return None
    # "He was then employed by ..." names its subject in the source's sentence before: put in the answer,
    # its pronoun would point at whatever the answer's sentence before is about. Only where the claim opens
    # with the same pronoun does the answer already say whom it means.
    pronoun = opening_pronoun(quote)
    if pronoun is not None and opening_pronoun(claim.text) != pronoun:
        return None
    return quote if quote[-1:] in ".!?。！？" else quote + "."


_PREPOSITION = re.compile(
    r"\s+(?:in|on|at|for|within|during|since|until|after|before|by|from)\s+$", re.IGNORECASE
)


def from_evidence(claim: Claim) -> bool:
    """Whether the evidence can correct the claim rather than only remove it: a REFUTED claim takes the
    evidence's value or sentence, and one the source states only narrower takes the source's words."""
    return claim.state is State.REFUTED or (
        claim.state is State.INSUFFICIENT_EVIDENCE and claim.method.removeprefix(PREFIX) in NARROWER_IN_SOURCE
    )


class NarrowToSupportedScope:
    """INSUFFICIENT_EVIDENCE: drops a prepositional detail no source contains ("founded in 1992" ->
    "founded"), so the claim asserts only what the evidence can license; where the source states the
    claim only under a condition, a restriction or a limit the claim leaves out, says it as the source
    does ("Shipping is free." -> "Shipping is free on orders over $50."). Never hedges."""

    name = Operation.NARROW_TO_SUPPORTED_SCOPE.value

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal | None:
        """The text with each target narrowed; None when a target has no detail that can go cleanly."""
        source_mentions = [m for source in context.sources for m in find_mentions(source.text)]
        sources_folded = " ".join(source.text.casefold() for source in context.sources)

        def narrowed(claim: Claim) -> str | None:
            if claim.method.removeprefix(PREFIX) in NARROWER_IN_SOURCE:
                return _as_the_source_says(candidate.text, claim)
            return _narrowed(claim.text, source_mentions, sources_folded)

        return _rewrite_targets(candidate, contract, narrowed)


def _narrowed(text: str, source_mentions: Sequence, sources_folded: str) -> str | None:
    result = text
    for mention in sorted(find_mentions(text), key=lambda m: -m.start):
        if mention.kind not in VALUE_KINDS | {"entity"} or _in_sources(mention, source_mentions, sources_folded):
            continue
        preposition = _PREPOSITION.search(result[: mention.start])
        after = result[mention.end :]
        if preposition is None or not re.match(r"^\s*(?:[.,;!?]|$|\s(?:by|in|on|at|for)\b)", after):
            continue
        result = result[: preposition.start()] + after
    if result == text or count_words(result) < 4:
        return None
    return result


def _in_sources(mention: object, source_mentions: Sequence, sources_folded: str) -> bool:
    text = getattr(mention, "text", "")
    if text.casefold() in sources_folded:
        return True
    return any(comparable(mention, other) and agree(mention, other) for other in source_mentions)  # type: ignore[arg-type]


class RuleRevision:
    """Offline fixes for countable rules: trim sentences that assert nothing checkable to meet a word
    limit or drop a forbidden phrase, and add the constitution's disclosure sentence when one is due.
    Supported claims are never touched; when only they could change, there is nothing to propose."""

    name = Operation.RULE_REVISION.value

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal | None:
        """The text revised for the failing rules this operator can fix in code; None when it can fix none."""
        failing = {verdict.rule for verdict in contract.failing_rules}
        rules = [rule for rule in context.constitution.rules if rule.name in failing]
        text = candidate.text
        notes = []
        for rule in rules:
            if isinstance(rule, ForbiddenPhrases):
                text = _drop_sentences(text, candidate, lambda s, r=rule: bool(forbidden_in(s, r.phrases)))
            elif isinstance(rule, RequiredDisclosure):
                text = f"{text.rstrip()} {rule.disclosure}"
                notes.append(f"added the disclosure of rule {rule.name!r}")
        for rule in rules:
            if isinstance(rule, WordLimit):
                text = _trim_to(text, candidate, rule.max_words)
        text = tidy(text)
        if text == candidate.text:
            return None
        return Proposal(text=text, notes=tuple(notes))


def _loose_sentences(text: str, candidate: Candidate) -> list[tuple[int, int]]:
    """Sentences holding no judged claim (greetings, opinions, sign-offs): safe to drop."""
    judged = [c for c in candidate.claims if c.state is not State.NOT_VERIFIABLE]
    return [
        (start, end)
        for start, end in split_sentences(text)
        if not any(start < claim.end and claim.start < end for claim in judged)
    ]


def _drop_sentences(text: str, candidate: Candidate, matches: object) -> str:
    if text != candidate.text:
        return text  # offsets of the claims no longer apply; one edit per round keeps them honest
    drops = [(start, end, "") for start, end in _loose_sentences(text, candidate) if matches(text[start:end])]  # type: ignore[operator]
    return splice(text, drops) if drops else text


def _trim_to(text: str, candidate: Candidate, max_words: int) -> str:
    if text != candidate.text or count_words(text) <= max_words:
        return text
    drops = []
    excess = count_words(text) - max_words
    # From the end: sign-offs and asides come last in most answers.
    for start, end in reversed(_loose_sentences(text, candidate)):
        if excess <= 0:
            break
        drops.append((start, end, ""))
        excess -= count_words(text[start:end])
    return splice(text, drops) if drops else text


def _rewrite_targets(
    candidate: Candidate, contract: RepairContract, rewrite: Callable[[Claim], str | None]
) -> Proposal | None:
    """Each target replaced by `rewrite(target)` in place; None when any target has no new text."""
    edits = []
    rewritten = {}
    for claim in _targets(candidate, contract):
        new_text = rewrite(claim)
        if new_text is None or new_text == claim.text:
            return None
        edits.append((claim.start, claim.end, new_text))
        rewritten[claim.id] = new_text
    if not edits:
        return None
    return Proposal(text=splice(candidate.text, edits), rewritten=rewritten)


def _targets(candidate: Candidate, contract: RepairContract) -> list[Claim]:
    wanted = set(contract.target_claim_ids)
    return [claim for claim in candidate.claims if claim.id in wanted]


# ---------------------------------------------------------------------------------------------
# Repair modes


def _auto() -> RepairPlan:
    return RepairPlan(
        by_state={
            State.REFUTED: (ReplaceWithEvidence(), ModelRevision(), OmitClaim()),
            State.INSUFFICIENT_EVIDENCE: (NarrowToSupportedScope(), OmitClaim()),
        },
        for_rules=(RuleRevision(), ModelRevision()),
        regenerate=True,
        name="auto",
    )


def _omit() -> RepairPlan:
    omit = (OmitClaim(),)
    return RepairPlan(by_state={State.REFUTED: omit, State.INSUFFICIENT_EVIDENCE: omit}, name="omit")


_MODES = {"none": lambda: RepairPlan(name="none"), "auto": _auto, "omit": _omit}
REPAIR_MODES = tuple(_MODES)
"""The declared repair modes: "none" (the no-repair baseline), "auto" and "omit"."""


def repair_plan(mode: str | RepairPlan) -> RepairPlan:
    """The plan for a declared mode (or `mode` itself); UnknownRepairMode for anything else."""
    if isinstance(mode, RepairPlan):
        return mode
    factory = _MODES.get(mode)
    if factory is None:
        raise UnknownRepairMode(f"repair: unknown repair mode {mode!r}; choose one of {', '.join(REPAIR_MODES)}")
    return factory()


def operations_for(state: State) -> tuple[str, ...]:
    """The operations the state allows, in the order they are tried (the design's state-to-repair map)."""
    plan = _auto()
    return tuple(operator.name for operator in plan.by_state.get(state, ()))

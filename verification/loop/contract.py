"""The contract a repair runs under, and the invariants checked in code once it has run.

A repair operator only proposes text. What it was allowed to touch (targets), what it had to leave
alone (protected claims), and what must hold afterwards (protected claims unchanged, no new number,
date or entity that no source contains, surface blast radius under a bound) are checked here, on the
new candidate, because an operator's own account of its change is not evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, TypedDict

from verification.claims.commitments import VALUE_KINDS, agree, comparable, find_mentions
from verification.llm.client import ChatModel
from verification.loop.cohesion import claim_core
from verification.policy.constitution import Constitution
from verification.types import Candidate, ModelCallRecord, RuleVerdict, Source, State


class Operation(StrEnum):
    """What a repair did."""

    OMIT_CLAIM = "OMIT_CLAIM"
    REPLACE_WITH_EVIDENCE = "REPLACE_WITH_EVIDENCE"
    NARROW_TO_SUPPORTED_SCOPE = "NARROW_TO_SUPPORTED_SCOPE"
    MODEL_REVISION = "MODEL_REVISION"
    RULE_REVISION = "RULE_REVISION"
    FULL_REGENERATION = "FULL_REGENERATION"
    NOTE_CLAIM = "NOTE_CLAIM"
    """The constitution's note added after a MINOR claim let out as it is (`Policy.minor_unsupported`)."""


# A `Repair`'s fields, gathered as the controller tries a repair: what was tried on what (the functional
# form because "from" is a Python keyword), then what it did.
RepairFields = TypedDict("RepairFields", {
    "from": str,
    "operation": str,
    "target_claim_ids": list[str],
    "protected_claim_ids": list[str],
    "model_record": ModelCallRecord | None,
})


class RepairEffects(TypedDict, total=False):
    """What an attempted repair did to the candidate it started from."""

    changed_claim_ids: list[str]
    supported_removed: int
    regression_severity: float
    surface_blast_radius: float
    new_failures: list[str]


@dataclass(frozen=True)
class RepairContract:
    """What one repair may touch and what must hold afterwards."""

    target_claim_ids: tuple[str, ...]
    """Claims the repair is allowed to change or remove."""
    protected_claim_ids: tuple[str, ...]
    """Claims that must come out unchanged (and, if supported, still supported)."""
    allowed_operations: tuple[str, ...]
    """Operations the repair may use."""
    max_blast_radius: float
    """Largest share of the candidate's claims the repair may change or remove beyond its targets."""
    failing_rules: tuple[RuleVerdict, ...] = ()
    """Rules the repair should make pass, with their critiques."""


@dataclass(frozen=True)
class RepairContext:
    """What an operator may read: the question and the sources, never an earlier candidate as evidence."""

    question: str
    """What the user asked."""
    sources: Sequence[Source]
    """The only admissible evidence."""
    constitution: Constitution
    """The rules in force."""
    model: ChatModel | None = None
    """The model backend, where one is configured."""


@dataclass(frozen=True)
class Proposal:
    """A repaired text, not yet trusted: the controller verifies it and checks the contract."""

    text: str
    """The new answer."""
    rewritten: Mapping[str, str] = field(default_factory=dict)
    """Claim id -> the new text the operator wrote for it."""
    removed: tuple[str, ...] = ()
    """Claim ids the operator removed."""
    notes: tuple[str, ...] = ()
    """What the operator did beyond the claims (cohesion edits, warnings)."""
    model_record: ModelCallRecord | None = None
    """Provenance when a model proposed it."""
    model_calls: int = 0
    """Model calls spent, retries included."""
    failure: str = ""
    """Why no usable text came out (for a model whose output never validated); `text` is then empty."""


class Operator(Protocol):
    """One repair operation: proposes a new text for a candidate under a contract, or None if it cannot."""

    name: str
    """The operation's name, recorded with the attempt."""

    def propose(self, candidate: Candidate, contract: RepairContract, context: RepairContext) -> Proposal | None:
        """A new text, or None when this operation does not apply to the targets."""
        ...


def contract_violations(
    parent: Candidate, child: Candidate, contract: RepairContract, sources: Sequence[Source]
) -> list[str]:
    """Every invariant the repaired `child` breaks; empty when the contract holds.

    Checked: protected claims unchanged, no new number, date or entity that no source contains, and
    the surface blast radius under its bound. Whether protected claims are still supported is a
    regression, which the controller measures from the new verdicts.
    """
    violations = []
    child_claims = {claim.id: claim for claim in child.claims}
    parent_claims = {claim.id: claim for claim in parent.claims}
    for claim_id in contract.protected_claim_ids:
        before = parent_claims.get(claim_id)
        after = child_claims.get(claim_id)
        if before is None:
            continue
        if after is None:
            violations.append(f"protected claim {claim_id} was removed")
        elif claim_core(after.text) != claim_core(before.text):
            violations.append(f"protected claim {claim_id} was changed: {after.text!r}")
    new_values = new_unsourced_values(parent.text, child.text, sources)
    if new_values:
        violations.append(f"adds what no source contains: {', '.join(new_values)}")
    # The bound is on collateral: a repair of the one claim of a one-claim answer changes all of it, and
    # that is the repair it was asked for.
    collateral = [claim_id for claim_id in changed_claims(parent, child) if claim_id not in contract.target_claim_ids]
    radius = len(collateral) / len(parent.claims) if parent.claims else 0.0
    if radius > contract.max_blast_radius + 1e-9:
        violations.append(f"changes {radius:.2f} of the claims beyond its target, more than "
                          f"{contract.max_blast_radius:.2f}")
    return violations


def new_unsourced_values(before: str, after: str, sources: Sequence[Source]) -> list[str]:
    """Numbers, amounts, dates and names in `after` that are neither in `before` nor in any source."""
    known_text = " ".join([before, *(source.text for source in sources)]).casefold()
    known_words = set(re.findall(r"\w+", known_text))
    known_values = [m for text in (before, *(s.text for s in sources)) for m in find_mentions(text)]
    found = []
    for mention in find_mentions(after):
        if mention.kind == "entity":
            # Word by word: an omission can make a name run into the next sentence's first word.
            if any(word not in known_words for word in re.findall(r"\w+", mention.text.casefold())):
                found.append(mention.text)
        elif (
            mention.kind in VALUE_KINDS
            and mention.text.casefold() not in known_text
            and not any(comparable(mention, other) and agree(mention, other) for other in known_values)
        ):
            found.append(mention.text)
    return list(dict.fromkeys(found))


def changed_claims(parent: Candidate, child: Candidate) -> list[str]:
    """Ids of the parent's claims that the child removed or rewrote."""
    child_claims = {claim.id: claim for claim in child.claims}
    return [
        claim.id
        for claim in parent.claims
        if claim.id not in child_claims or claim_core(child_claims[claim.id].text) != claim_core(claim.text)
    ]


def state_of(candidate: Candidate, claim_id: str) -> State | None:
    """The state of claim `claim_id` in `candidate`; None when it has no such claim."""
    return next((c.state for c in candidate.claims if c.id == claim_id), None)


def rule_passed(candidate: Candidate, rule: str) -> bool | None:
    """How `candidate` fared against `rule`; None when it was not judged."""
    return next((v.passed for v in candidate.rule_verdicts if v.rule == rule), None)


def new_failures(parent: Candidate, child: Candidate) -> list[str]:
    """Claims failing in `child` that did not fail in `parent`, then its newly failing rules ("rule:<name>")."""
    kept = (State.SUPPORTED, State.NOT_VERIFIABLE)
    before = {c.id for c in parent.claims if c.state not in kept}
    claims = [c.id for c in child.claims if c.state not in kept and c.id not in before]
    failed_rules = {v.rule for v in parent.rule_verdicts if v.passed is False}
    rules = [f"rule:{v.rule}" for v in child.rule_verdicts if v.passed is False and v.rule not in failed_rules]
    return claims + rules


def surface_blast_radius(parent: Candidate, child: Candidate) -> float:
    """Share of the parent's claims the child changed or removed."""
    if not parent.claims:
        return 0.0
    return len(changed_claims(parent, child)) / len(parent.claims)

"""The recovery loop: verify, judge, repair under a contract, verify again, stop.

Each repair makes a new candidate that inherits no trust (`candidates.py` builds and verifies it). A
repair that removes or breaks a supported claim or a passing rule is a regression: rejected, recorded
as a failed attempt, and the next operation is tried. The loop stops on PERMIT; ABSTAIN when a
(candidate hash, state vector) repeats or a budget runs out; REVIEW when policy needs a person; REJECT
when nothing worth sending survives or a blocking rule fails (`stop_policy.py` has the budgets and the
final decision).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from verification.decision.methods import Method, unread_methods
from verification.decision.strata import UNSCORED
from verification.decision.verifier import Verifier, identity
from verification.llm.cascade import release_paths
from verification.llm.client import ChatModel
from verification.llm.regeneration import failure_record, regenerate
from verification.loop import severity_tiers
from verification.loop.candidates import CandidateBuilder
from verification.loop.contract import (
    Operation,
    Operator,
    Proposal,
    RepairContext,
    RepairContract,
    RepairEffects,
    RepairFields,
    changed_claims,
    contract_violations,
    new_failures,
    rule_passed,
    state_of,
    surface_blast_radius,
)
from verification.loop.repair import RepairPlan, from_evidence
from verification.loop.stop_policy import Budget, Outcome, permit_or_review, unreadable, unrepaired
from verification.policy.constitution import Constitution, Policy
from verification.types import (
    Candidate,
    Case,
    Claim,
    ModelCallRecord,
    Origin,
    Reason,
    Repair,
    Severity,
    State,
    Terminal,
)

_FAILED = frozenset({State.REFUTED, State.INSUFFICIENT_EVIDENCE})
_JUDGED_OUT = frozenset({State.NOT_VERIFIABLE})
_KEPT = (State.SUPPORTED, State.NOT_VERIFIABLE)
_UNREAD = unread_methods()

@dataclass
class Controller:
    """Runs the recovery loop for one case; read its fields for the chain and the counts (`budget` for what
    it spent)."""

    case: Case
    verifier: Verifier
    constitution: Constitution
    plan: RepairPlan
    policy: Policy
    model: ChatModel | None = None
    critic_rubric: str | None = None
    """The published critic rubric's instructions; None for the built-in rubric."""
    candidates: list[Candidate] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    non_converging_rules: list[str] = field(default_factory=list)
    rule_iterations: int = 0
    regressions: int = 0
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.budget = Budget(self.policy, uses_model=self.model is not None, started=self.started)
        """What the run has spent: verifier and model calls, and the time since it started."""
        self._builder = CandidateBuilder(
            self.case, self.verifier, self.constitution, self.budget, chain=self.candidates, notes=self.notes,
            model=self.model, critic_rubric=self.critic_rubric,
        )
        self._seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        self._context = RepairContext(self.case.question, self.case.sources, self.constitution, self.model)
        self.gated, others = release_paths(self.verifier)
        """The verifier whose calibration is the run's release threshold: the offline one in a cascade."""
        self.calibration = self.policy.calibration_for(identity(self.gated))
        """The release threshold in force; None when the verifier has no calibration (then states alone decide)."""
        self.path_calibrations = {identity(other): self.policy.calibration_for(identity(other)) for other in others}
        """In a cascade, the model's own calibration, by its name: it gates the claims the model decided."""

    @property
    def cache_hits(self) -> int:
        """Claim verifications answered from the cache instead of the verifier."""
        return self._builder.cache_hits

    # -- entry point

    def run(self, text: str, origin: Origin, model_record: ModelCallRecord | None = None) -> Outcome:
        """Verify the first candidate and repair until a stop."""
        first, stop = self._builder.build(text, parent=None, origin=origin, operation=None, model_record=model_record)
        self._append(first)
        return stop or self._loop()

    def _loop(self) -> Outcome:
        unrepairable: set[str] = set()
        regenerated = False
        while True:
            current = self.candidates[-1]
            judged = [c for c in current.claims if c.state not in _JUDGED_OUT]
            if not judged:
                return Outcome(Terminal.REVIEW, Reason.NO_CHECKABLE_CLAIMS, "nothing in the answer could be checked")
            if unread := [c for c in judged if c.method == Method.LANGUAGE]:
                return unreadable(unread)
            for state, reason, why in (
                (State.CONFLICTING, Reason.CONFLICTING_EVIDENCE, "the sources disagree on"),
                (State.UNRESOLVED, Reason.UNRESOLVED_CLAIM, "no verdict could be reached on"),
            ):
                hits = [c.id for c in judged if c.state is state]
                if hits:
                    return Outcome(Terminal.REVIEW, reason, f"{why} {', '.join(hits)}")
            failing = [c for c in judged if c.state in _FAILED]
            nothing_supported = bool(failing) and len(failing) == len(judged)
            if nothing_supported:
                # Omitting would leave nothing worth sending; only corrections from the evidence can salvage it.
                salvage = [c for c in _by_priority(failing) if from_evidence(c) and c.id not in unrepairable]
                if salvage and self.plan.by_state and self._budget_stop() is None:
                    result = self._repair_claim(current, salvage[0], salvage_only=True)
                    if isinstance(result, Outcome):
                        return result
                    if not result:
                        unrepairable.add(salvage[0].id)
                    continue
                if self.plan.regenerate and self.model is not None and not regenerated and not self._budget_stop():
                    regenerated = True
                    result = self._regenerate(current)
                    if isinstance(result, Outcome):
                        return result
                    if result:
                        unrepairable.clear()
                        continue
                if any(c.severity is Severity.CRITICAL or c.stratum == UNSCORED or c.method in _UNREAD
                       for c in failing):
                    # A refund or a dosage the customer asked about is owed an answer: a person writes it. And an answer
                    # read by rules alone, or a bare yes or no, is never thrown away unseen: the rules may not read it.
                    return unrepaired(failing)
                return Outcome(Terminal.REJECT, Reason.NOTHING_SUPPORTED, None)
            targets = [c for c in _by_priority(failing) if c.id not in unrepairable]
            if failing and self.plan.by_state and targets:
                stop = self._budget_stop()
                if stop is not None:
                    return stop
                result = self._repair_claim(current, targets[0])
                if isinstance(result, Outcome):
                    return result
                if result:
                    # The text changed: an omission refused for cohesion before may be clean now.
                    unrepairable.clear()
                else:
                    unrepairable.add(targets[0].id)
                continue
            if failing:
                return self._minor_tier(current, failing) or unrepaired(failing)
            failing_rules = [v for v in current.rule_verdicts if v.passed is False]
            if failing_rules:
                outcome = self._revise_for_rules(current)
                if outcome is None:
                    continue
                return outcome
            outcome = permit_or_review(self.candidates, self.policy, self.calibration, self.path_calibrations)
            if outcome.reason is Reason.BELOW_RELEASE_THRESHOLD:
                return self._minor_tier(current) or outcome
            return outcome

    # -- severity tiers

    def _minor_tier(self, current: Candidate, failing: Sequence[Claim] = ()) -> Outcome | None:
        """The answer let out as the constitution's severity tier allows (`severity_tiers`); None when the
        tier holds it for a person or the changed answer is not the same answer otherwise."""
        held = severity_tiers.holding(current, self.calibration, self.path_calibrations, failing)
        tiered = severity_tiers.plan(current, held, self.policy)
        if tiered is None:
            return None
        record: RepairFields = {"from": current.id, "operation": tiered.operation.value,
                            "target_claim_ids": [c.id for c in held], "model_record": None,
                            "protected_claim_ids": [c.id for c in current.claims if c not in held]}
        child, stop = self._builder.build(tiered.text, parent=current, origin=Origin.REPAIR,
                                          operation=tiered.operation.value)
        why = f"not verified: {stop.budget_reason}" if stop else severity_tiers.failure(current, child, tiered)
        if why:
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED", failure=why, proposed_text=child.text))
            return stop
        self.repairs.append(Repair(**record, to=child.id, outcome="ACCEPTED", changed_claim_ids=list(tiered.removed)))
        if (cycle := self._cycle(child)) is not None:
            return cycle
        outcome = permit_or_review(self.candidates, self.policy, self.calibration, self.path_calibrations,
                                   excused=frozenset(tiered.noted))
        return tiered.outcome if outcome.terminal is Terminal.PERMIT else outcome

    # -- claim repairs

    def _repair_claim(self, current: Candidate, target: Claim, *, salvage_only: bool = False) -> bool | Outcome:
        """Try the target's operations in order; True when one was accepted, an Outcome on a stop.

        `salvage_only` leaves omission out: when nothing is supported yet, removing a claim salvages nothing.
        """
        operators = tuple(
            op for op in self.plan.by_state.get(target.state, ())
            if not (salvage_only and op.name == Operation.OMIT_CLAIM.value)
        )
        contract = RepairContract(
            target_claim_ids=(target.id,),
            protected_claim_ids=tuple(c.id for c in current.claims if c.id != target.id),
            allowed_operations=tuple(op.name for op in operators),
            max_blast_radius=self.policy.max_blast_radius,
        )
        for position, operator in enumerate(operators):
            stop = self._budget_stop()
            if stop is not None:
                return stop
            proposal = operator.propose(current, contract, self._context)
            if proposal is None:
                continue
            # A repair that leaves its target failing is kept only when no other operation is left:
            # otherwise the next one might fix it, and a non-fix would just spend the budget.
            last = position == len(operators) - 1
            result = self._attempt(current, proposal, operator, contract, require_fix=not last)
            if result is not False:
                return result
        return False

    def _revise_for_rules(self, current: Candidate) -> Outcome | None:
        """One critique-revise round for failing rules; None when a revision was accepted."""
        failing = [v for v in current.rule_verdicts if v.passed is False]
        can_revise = self.plan.for_rules and self.rule_iterations < self.policy.max_rule_iterations
        if can_revise and self._budget_stop() is None:
            contract = RepairContract(
                target_claim_ids=(),
                protected_claim_ids=tuple(c.id for c in current.claims),
                allowed_operations=tuple(op.name for op in self.plan.for_rules),
                max_blast_radius=self.policy.max_blast_radius,
                failing_rules=tuple(failing),
            )
            for operator in self.plan.for_rules:
                stop = self._budget_stop()
                if stop is not None:
                    return stop
                proposal = operator.propose(current, contract, self._context)
                if proposal is None:
                    continue
                self.rule_iterations += 1
                result = self._attempt(current, proposal, operator, contract, require_fix=False)
                if isinstance(result, Outcome):
                    return result
                if result:
                    return None
        blocking = [v.rule for v in failing if v.blocking]
        if blocking:
            return Outcome(Terminal.REJECT, Reason.BLOCKING_RULE_FAILED, f"blocking rules fail: {', '.join(blocking)}")
        if self.rule_iterations:
            self.non_converging_rules = [v.rule for v in failing]
            rules = ", ".join(self.non_converging_rules)
            why = f"rules still fail after {self.rule_iterations} revision rounds: {rules}"
            return Outcome(Terminal.REVIEW, Reason.RULE_NOT_CONVERGING, why)
        return Outcome(Terminal.REVIEW, Reason.RULE_FAILED, "rules fail: " + ", ".join(v.rule for v in failing))

    def _attempt(
        self, parent: Candidate, proposal: Proposal, operator: Operator, contract: RepairContract, *, require_fix: bool
    ) -> bool | Outcome:
        """Verify a proposal as a new candidate and keep it or record why not."""
        self.budget.model_calls += proposal.model_calls
        self.budget.model_tokens += proposal.model_record.tokens if proposal.model_record else 0
        record: RepairFields = {
            "from": parent.id,
            "operation": operator.name,
            "target_claim_ids": list(contract.target_claim_ids),
            "protected_claim_ids": list(contract.protected_claim_ids),
            "model_record": proposal.model_record,
        }
        if proposal.failure:
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED", failure=proposal.failure))
            return False
        child, stop = self._builder.build(
            proposal.text, parent=parent, origin=Origin.REPAIR, operation=operator.name,
            rewritten=proposal.rewritten, model_record=proposal.model_record,
        )
        if stop is not None:
            # Not verified in full, so not a candidate: the chain ends at its parent.
            self.repairs.append(Repair(
                **record, to=None, outcome="REJECTED", failure=f"not verified: {stop.budget_reason}",
                proposed_text=child.text,
            ))
            return stop
        lost = [
            c.id for c in parent.claims if c.state is State.SUPPORTED and state_of(child, c.id) is not State.SUPPORTED
        ]
        broken = [v.rule for v in parent.rule_verdicts if v.passed and rule_passed(child, v.rule) is False]
        passing_before = sum(c.state is State.SUPPORTED for c in parent.claims) + sum(
            bool(v.passed) for v in parent.rule_verdicts
        )
        failures = contract_violations(parent, child, contract, self.case.sources)
        if lost:
            failures.append(f"regression: supported claims removed or broken: {', '.join(lost)}")
        if broken:
            failures.append(f"regression: passing rules now fail: {', '.join(broken)}")
        still = [i for i in contract.target_claim_ids if state_of(child, i) not in (None, *_KEPT)]
        if require_fix and still and not failures:
            failures.append(f"targets still fail after the repair: {', '.join(still)}")
        details: RepairEffects = {
            "changed_claim_ids": changed_claims(parent, child),
            "supported_removed": len(lost),
            "regression_severity": round((len(lost) + len(broken)) / max(1, passing_before), 4),
            "surface_blast_radius": round(surface_blast_radius(parent, child), 4),
            "new_failures": new_failures(parent, child),
        }
        self.notes.extend(f"{child.id} ({operator.name}): {note}" for note in proposal.notes)
        if failures:
            self.regressions += bool(lost or broken)
            self.repairs.append(Repair(
                **record, **details, to=None, outcome="REJECTED", failure="; ".join(failures), proposed_text=child.text
            ))
            return False
        self.repairs.append(Repair(**record, **details, to=child.id, outcome="ACCEPTED"))
        return self._cycle(child) or True

    # -- full regeneration

    def _regenerate(self, current: Candidate) -> bool | Outcome:
        """One full regeneration; True when accepted, an Outcome when a budget stopped its verification."""
        assert self.model is not None
        failed = failure_record(current, self.case.question)
        result = regenerate(failed, self.case.sources, self.model)
        self.budget.model_calls += result.record.attempts
        self.budget.model_tokens += result.record.tokens
        record: RepairFields = {"from": current.id, "operation": Operation.FULL_REGENERATION.value,
                            "target_claim_ids": [c.id for c in current.claims], "protected_claim_ids": [],
                            "model_record": result.record}
        if result.output is None:
            last = result.record.failures[-1].error if result.record.failures else "no output"
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED",
                                       failure=f"the generator's output failed validation: {last}"))
            return False
        child, stop = self._builder.build(
            result.output.answer.strip(), parent=current, origin=Origin.GENERATOR,
            operation=Operation.FULL_REGENERATION.value, fresh=True, model_record=result.record,
        )
        if stop is not None:
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED",
                                       failure=f"not verified: {stop.budget_reason}", proposed_text=child.text))
            return stop
        contract = RepairContract((), (), (Operation.FULL_REGENERATION.value,), max_blast_radius=1.0)
        failures = contract_violations(current, child, contract, self.case.sources)
        details: RepairEffects = {"changed_claim_ids": [c.id for c in current.claims], "surface_blast_radius": 1.0,
                              "new_failures": new_failures(current, child)}
        if failures or not self._append(child):
            self.repairs.append(Repair(**record, **details, to=None, outcome="REJECTED",
                                       failure="; ".join(failures) or "repeats an earlier candidate",
                                       proposed_text=child.text))
            return False
        self.repairs.append(Repair(**record, **details, to=child.id, outcome="ACCEPTED"))
        return True

    # -- the chain and the budgets

    def _budget_stop(self) -> Outcome | None:
        """The stop before a repair: one that the budgets left cannot carry through is not started."""
        return self.budget.before_repair(len(self.repairs))

    def _cycle(self, child: Candidate) -> Outcome | None:
        """Add `child` to the chain; the stop when it repeats an earlier candidate."""
        if self._append(child):
            return None
        return Outcome(Terminal.ABSTAIN, Reason.CYCLE_DETECTED,
                       f"{child.id} repeats the text and claim states of an earlier candidate")

    def _append(self, candidate: Candidate) -> bool:
        """Add to the chain; False when its (hash, state vector) was seen before: a cycle."""
        self.candidates.append(candidate)
        signature = (candidate.sha256, tuple(sorted((c.id, c.state.value) for c in candidate.claims)))
        if signature in self._seen:
            return False
        self._seen.add(signature)
        return True


# ---------------------------------------------------------------------------------------------
# Helpers


def _by_priority(claims: Sequence[Claim]) -> list[Claim]:
    """Critical first, refuted before merely unsupported, then in text order."""
    rank = {Severity.CRITICAL: 0, Severity.MODERATE: 1, Severity.MINOR: 2}
    return sorted(claims, key=lambda c: (rank[c.severity], c.state is not State.REFUTED, c.start))

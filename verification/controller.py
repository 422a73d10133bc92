"""The recovery loop: verify, judge, repair under a contract, verify again, stop.

Every repair makes a new candidate (parent link, origin, sha256) that inherits no trust: its claims are
verified again, though only the ones the repair invalidated cost a verifier call, because verdicts are
cached by (claim hash, evidence snapshot hash, verifier version, verifier config). A repair that
removes or breaks a supported claim or a passing rule is a regression: rejected, recorded as a failed
attempt, and the next operation is tried. The loop stops on PERMIT; ABSTAIN when a (candidate hash,
state vector) repeats or a budget runs out; REVIEW when policy needs a person; REJECT when nothing
worth sending survives or a blocking rule fails.

Budgets are caps, not tallies: a verification, a model call or a repair starts only while the budgets
left can pay for it (model calls counted at their worst case, every retry included). A claim the budget
did not reach is UNRESOLVED, never assumed supported, and the run stops with that budget's reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from verification.cache import VerificationCache
from verification.claims import ExtractedClaim, Extraction, extract
from verification.cohesion import claim_core
from verification.constitution import Constitution, JudgedRule, Policy, judge
from verification.contract import (
    Operation,
    Operator,
    Proposal,
    RepairContext,
    RepairContract,
    changed_claims,
    contract_violations,
    surface_blast_radius,
)
from verification.cove import ModelVerifier
from verification.critic import critique
from verification.model import MAX_ATTEMPTS, ChatModel
from verification.regeneration import failure_record, regenerate
from verification.release import held_back, release_threshold
from verification.repair import RepairPlan
from verification.tokens import content_stems
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
    sha256_text,
)
from verification.verifier import Verdict, Verifier

_FAILED = frozenset({State.REFUTED, State.INSUFFICIENT_EVIDENCE})
_JUDGED_OUT = frozenset({State.NOT_VERIFIABLE})
_KEPT = (State.SUPPORTED, State.NOT_VERIFIABLE)
# No one could decide these: a critical one goes to a person whatever the policy says.
_UNDECIDED = frozenset({State.NOT_VERIFIABLE, State.UNRESOLVED, State.CONFLICTING})
_BUDGETS = {
    Reason.VERIFIER_BUDGET_EXHAUSTED: "verifier",
    Reason.MODEL_BUDGET_EXHAUSTED: "model",
    Reason.TIME_BUDGET_EXHAUSTED: "time",
}


# ---------------------------------------------------------------------------------------------
# The loop


@dataclass(frozen=True)
class Outcome:
    """Where the loop stopped and why."""

    terminal: Terminal
    """The terminal state."""
    reason: Reason
    """The reason code."""
    policy_reason: str | None = None
    """Why policy sends it to a person, in words."""
    budget_reason: str | None = None
    """Which budget ran out, if one did."""


@dataclass
class Controller:
    """Runs the recovery loop for one case; read its fields for the chain and the counts."""

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
    verifier_calls: int = 0
    model_calls: int = 0
    cache_hits: int = 0
    rule_iterations: int = 0
    regressions: int = 0
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self._cache = VerificationCache(self.verifier, self.case.sources)
        self._seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        self._claim_numbers = 0
        # Cache keys of every claim text verified so far: the rest are misses that cost a verifier call.
        self._verified: set[tuple[str, str, str, str]] = set()
        self._context = RepairContext(self.case.question, self.case.sources, self.constitution, self.model)
        self._sources_text = "\n\n".join(f"[{s.id}] {s.text}" for s in self.case.sources)
        self.calibration = release_threshold(
            self.verifier.name, max_unsafe_release_rate=self.policy.max_unsafe_release_rate,
            calibration=self.policy.release_calibration,
        )
        """The release threshold in force; None when the verifier has no calibration (then states alone decide)."""

    # -- entry point

    def run(self, text: str, origin: Origin, model_record: ModelCallRecord | None = None) -> Outcome:
        """Verify the first candidate and repair until a stop."""
        first, stop = self._build(text, parent=None, origin=origin, operation=None, model_record=model_record)
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
                salvage = [c for c in _by_priority(failing) if c.state is State.REFUTED and c.id not in unrepairable]
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
                return _unrepaired(failing)
            failing_rules = [v for v in current.rule_verdicts if v.passed is False]
            if failing_rules:
                outcome = self._revise_for_rules(current)
                if outcome is None:
                    continue
                return outcome
            return self._permit_or_review()

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
        self.model_calls += proposal.model_calls
        record = {
            "from": parent.id,
            "operation": operator.name,
            "target_claim_ids": list(contract.target_claim_ids),
            "protected_claim_ids": list(contract.protected_claim_ids),
            "model_record": proposal.model_record,
        }
        if proposal.failure:
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED", failure=proposal.failure))
            return False
        child, stop = self._build(
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
            c.id for c in parent.claims if c.state is State.SUPPORTED and _state_of(child, c.id) is not State.SUPPORTED
        ]
        broken = [v.rule for v in parent.rule_verdicts if v.passed and _rule_passed(child, v.rule) is False]
        passing_before = sum(c.state is State.SUPPORTED for c in parent.claims) + sum(
            bool(v.passed) for v in parent.rule_verdicts
        )
        failures = contract_violations(parent, child, contract, self.case.sources)
        if lost:
            failures.append(f"regression: supported claims removed or broken: {', '.join(lost)}")
        if broken:
            failures.append(f"regression: passing rules now fail: {', '.join(broken)}")
        still = [i for i in contract.target_claim_ids if _state_of(child, i) not in (None, *_KEPT)]
        if require_fix and still and not failures:
            failures.append(f"targets still fail after the repair: {', '.join(still)}")
        details = {
            "changed_claim_ids": changed_claims(parent, child),
            "supported_removed": len(lost),
            "regression_severity": round((len(lost) + len(broken)) / max(1, passing_before), 4),
            "surface_blast_radius": round(surface_blast_radius(parent, child), 4),
            "new_failures": _new_failures(parent, child),
        }
        self.notes.extend(f"{child.id} ({operator.name}): {note}" for note in proposal.notes)
        if failures:
            self.regressions += bool(lost or broken)
            self.repairs.append(Repair(
                **record, **details, to=None, outcome="REJECTED", failure="; ".join(failures), proposed_text=child.text
            ))
            return False
        self.repairs.append(Repair(**record, **details, to=child.id, outcome="ACCEPTED"))
        if not self._append(child):
            return Outcome(Terminal.ABSTAIN, Reason.CYCLE_DETECTED,
                           f"{child.id} repeats the text and claim states of an earlier candidate")
        return True

    # -- full regeneration

    def _regenerate(self, current: Candidate) -> bool | Outcome:
        """One full regeneration; True when accepted, an Outcome when a budget stopped its verification."""
        assert self.model is not None
        failed = failure_record(current, self.case.question)
        result = regenerate(failed, self.case.sources, self.model)
        self.model_calls += result.record.attempts
        record = {"from": current.id, "operation": Operation.FULL_REGENERATION.value,
                  "target_claim_ids": [c.id for c in current.claims], "protected_claim_ids": [],
                  "model_record": result.record}
        if result.output is None:
            last = result.record.failures[-1].error if result.record.failures else "no output"
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED",
                                       failure=f"the generator's output failed validation: {last}"))
            return False
        child, stop = self._build(result.output.answer.strip(), parent=current, origin=Origin.GENERATOR,
                                  operation=Operation.FULL_REGENERATION.value, fresh=True, model_record=result.record)
        if stop is not None:
            self.repairs.append(Repair(**record, to=None, outcome="REJECTED",
                                       failure=f"not verified: {stop.budget_reason}", proposed_text=child.text))
            return stop
        contract = RepairContract((), (), (Operation.FULL_REGENERATION.value,), max_blast_radius=1.0)
        failures = contract_violations(current, child, contract, self.case.sources)
        details = {"changed_claim_ids": [c.id for c in current.claims], "surface_blast_radius": 1.0,
                   "new_failures": _new_failures(current, child)}
        if failures or not self._append(child):
            self.repairs.append(Repair(**record, **details, to=None, outcome="REJECTED",
                                       failure="; ".join(failures) or "repeats an earlier candidate",
                                       proposed_text=child.text))
            return False
        self.repairs.append(Repair(**record, **details, to=child.id, outcome="ACCEPTED"))
        return True

    # -- decisions

    def _permit_or_review(self) -> Outcome:
        # A promise no one could check is never released, whatever the policy says (NOT_VERIFIABLE
        # included: that a verifier cannot check a refund promise does not make it true).
        undecided = _critical_ids(c for candidate in self.candidates for c in candidate.claims if c.state in _UNDECIDED)
        if undecided:
            why = f"critical claims could not be verified: {', '.join(undecided)}"
            return Outcome(Terminal.REVIEW, Reason.CRITICAL_CLAIM, why)
        original = self.candidates[0]
        critical = _critical_ids(c for c in original.claims if c.state is not State.SUPPORTED)
        if critical and self.policy.review_critical_claims:
            why = f"critical claims were not supported in the original answer: {', '.join(critical)}"
            return Outcome(Terminal.REVIEW, Reason.CRITICAL_CLAIM, why)
        if self.calibration is not None:
            doubtful = held_back(self.candidates[-1].claims, self.calibration)
            if doubtful:
                scores = ", ".join(f"{c.id} {c.release_score or 0:.2f}" for c in doubtful)
                why = (f"supported, but below the release threshold {self.calibration.threshold:.2f} that keeps "
                       f"unsafe releases under {self.calibration.max_unsafe_release_rate:.0%}: {scores}")
                return Outcome(Terminal.REVIEW, Reason.BELOW_RELEASE_THRESHOLD, why)
        return Outcome(Terminal.PERMIT, Reason.REPAIRED if len(self.candidates) > 1 else Reason.ALL_SUPPORTED)

    def _budget_stop(self) -> Outcome | None:
        """The stop before a repair: one that the budgets left cannot carry through is not started."""
        attempts = len(self.repairs)
        if attempts >= self.policy.max_repairs:
            return _exhausted(Reason.REPAIR_BUDGET_EXHAUSTED,
                              f"{attempts} repair attempts, the budget is {self.policy.max_repairs}")
        if self.verifier_calls >= self.policy.max_verifier_calls:
            return _exhausted(Reason.VERIFIER_BUDGET_EXHAUSTED,
                              f"{self.verifier_calls} verifier calls, the budget is {self.policy.max_verifier_calls}")
        # With a model, every new candidate costs at least one role call (the critic's).
        return self._time_stop() or self._model_stop(MAX_ATTEMPTS if self.model is not None else 0)

    def _time_stop(self) -> Outcome | None:
        elapsed_ms = (time.monotonic() - self.started) * 1000
        if elapsed_ms >= self.policy.max_wall_ms:
            return _exhausted(Reason.TIME_BUDGET_EXHAUSTED,
                              f"{elapsed_ms:.0f} ms, the budget is {self.policy.max_wall_ms} ms")
        return None

    def _model_stop(self, calls: int) -> Outcome | None:
        """The stop when `calls` more model calls cannot be made: the time is up or the budget cannot afford them."""
        if not calls:
            return None
        if (stop := self._time_stop()) is not None:
            return stop
        if self.model_calls + calls > self.policy.max_model_calls:
            return _exhausted(Reason.MODEL_BUDGET_EXHAUSTED,
                              f"{self.model_calls} model calls, {calls} more could be needed and the budget is "
                              f"{self.policy.max_model_calls}")
        return None

    # -- building a candidate

    def _append(self, candidate: Candidate) -> bool:
        """Add to the chain; False when its (hash, state vector) was seen before: a cycle."""
        self.candidates.append(candidate)
        signature = (candidate.sha256, tuple(sorted((c.id, c.state.value) for c in candidate.claims)))
        if signature in self._seen:
            return False
        self._seen.add(signature)
        return True

    def _build(
        self,
        text: str,
        *,
        parent: Candidate | None,
        origin: Origin,
        operation: str | None,
        rewritten: Mapping[str, str] | None = None,
        fresh: bool = False,
        model_record: ModelCallRecord | None = None,
    ) -> tuple[Candidate, Outcome | None]:
        """The candidate for `text`, verified and judged, and the budget's stop when a budget cut that short."""
        disclosures = self.constitution.disclosures()
        extraction = extract(text)
        found = [c for c in extraction.claims if c.text.strip() not in disclosures]
        if parent is None:
            self.notes.extend(_claim_notes(extraction, found))
        named = self._name_claims(found, None if fresh else parent, rewritten or {})
        # A regenerated answer is verified from scratch: nothing of the failed chain is reused.
        verdicts, stop = self._verify(named, fresh=fresh, partial=parent is None)
        claims = [_claim_record(claim, verdict) for claim, verdict in zip(named, verdicts, strict=True)]
        earlier = [c for candidate in self.candidates for c in candidate.claims]
        # Judged rules and the critic use the model only while the budgets can pay for it: once one has
        # run out, the run stops here and the rest is judged offline for the record.
        judged_rules = sum(isinstance(rule, JudgedRule) for rule in self.constitution.rules)
        stop = stop or self._model_stop(MAX_ATTEMPTS * judged_rules if self.model is not None else 0)
        judgement = judge(
            self.constitution, text=text, claims=claims, earlier_claims=earlier,
            question=self.case.question, sources_text=self._sources_text, model=None if stop else self.model,
        )
        self.model_calls += judgement.model_calls
        stop = stop or self._model_stop(MAX_ATTEMPTS if self.model is not None else 0)
        review = critique(
            question=self.case.question, sources=self.case.sources, draft=text, claims=claims,
            rule_verdicts=judgement.verdicts, rule_problems=self.constitution.rule_problems(),
            model=None if stop else self.model, rubric=self.critic_rubric,
        )
        if review.model_record is not None:
            self.model_calls += review.model_record.attempts
        if stop is not None and self.model is not None:
            self.notes.append(
                f"c{len(self.candidates)}: {stop.budget_reason}; its rules and critic were judged without the model"
            )
        candidate = Candidate(
            id=f"c{len(self.candidates)}",
            parent=parent.id if parent else None,
            origin=origin,
            text=text,
            sha256=sha256_text(text),
            claims=claims,
            rule_verdicts=list(judgement.verdicts),
            findings=list(review.findings),
            operation=operation,
            model_record=model_record,
            judge_records=[*judgement.records, *([review.model_record] if review.model_record else [])],
        )
        return candidate, stop

    def _verify(
        self, claims: Sequence[ExtractedClaim], *, fresh: bool, partial: bool
    ) -> tuple[list[Verdict], Outcome | None]:
        """One verdict per claim, and the budget's stop if one ran out; cache misses reach the verifier only
        as far as the budgets go, and a claim they could not cover is UNRESOLVED.

        `partial` verifies what the budgets allow (the first candidate: a reviewer sees what was checked);
        without it nothing is verified unless every miss fits, since a repair verified in part is discarded.
        """
        verdicts: list[Verdict | None] = [None] * len(claims)
        pending = [i for i, c in enumerate(claims) if fresh or self._cache.key(c.text) not in self._verified]
        hits = sorted(set(range(len(claims))) - set(pending))
        if hits:
            cached, _ = self._cache.verify([claims[i] for i in hits])
            verdicts = _placed(verdicts, hits, cached)
            self.cache_hits += len(hits)
        stop = None
        left = self.policy.max_verifier_calls - self.verifier_calls
        if not partial and len(pending) > left:
            stop = _exhausted(Reason.VERIFIER_BUDGET_EXHAUSTED,
                              f"{len(pending)} claims to verify, {max(0, left)} of {self.policy.max_verifier_calls} "
                              "verifier calls left")
        while pending and stop is None:
            affordable, stop = self._affordable(len(pending))
            if stop is not None:
                break
            batch, pending = pending[:affordable], pending[affordable:]
            done, fresh_verdicts = self._cache.verify([claims[i] for i in batch], use_cache=not fresh)
            verdicts = _placed(verdicts, batch, done)
            self.verifier_calls += len(fresh_verdicts)
            self.cache_hits += len(batch) - len(fresh_verdicts)
            self.model_calls += sum(_model_calls(verdict) for verdict in fresh_verdicts)
            self._verified.update(self._cache.key(claims[i].text) for i in batch)
        if pending and stop is not None:
            verdicts = _placed(verdicts, pending, [_unverified(stop)] * len(pending))
        return [verdict for verdict in verdicts if verdict is not None], stop

    def _affordable(self, wanted: int) -> tuple[int, Outcome | None]:
        """How many of `wanted` verifications the budgets allow now (at least one), or the stop when none."""
        if (stop := self._time_stop()) is not None:
            return 0, stop
        left = self.policy.max_verifier_calls - self.verifier_calls
        if left <= 0:
            why = f"{self.verifier_calls} verifier calls, the budget is {self.policy.max_verifier_calls}"
            return 0, _exhausted(Reason.VERIFIER_BUDGET_EXHAUSTED, why)
        per_claim = _model_calls_per_claim(self.verifier)
        if per_claim:
            # Batches sized for the worst case (every call retried) keep the cap exact; what a batch
            # did not spend pays for the next one.
            by_model = (self.policy.max_model_calls - self.model_calls) // per_claim
            if by_model <= 0:
                return 0, _exhausted(Reason.MODEL_BUDGET_EXHAUSTED,
                                     f"{self.model_calls} model calls, a claim can take {per_claim} more and the "
                                     f"budget is {self.policy.max_model_calls}")
            left = min(left, by_model)
        return min(wanted, left), None

    def _name_claims(
        self, extracted: Sequence[ExtractedClaim], parent: Candidate | None, rewritten: Mapping[str, str]
    ) -> list[ExtractedClaim]:
        """Give each claim its id across versions: unchanged keeps it, rewritten keeps it, new gets a new one."""
        if parent is None and not self.candidates:
            self._claim_numbers = max([self._claim_numbers, *(_number(c.id) for c in extracted)])
            return list(extracted)
        available = {c.id: c for c in parent.claims} if parent else {}
        by_rewrite = {" ".join(text.split()): claim_id for claim_id, text in rewritten.items()}
        names: list[str | None] = [None] * len(extracted)
        matchers = (
            lambda claim, old: claim.text == old.text,
            lambda claim, old: claim_core(claim.text) == claim_core(old.text),
            lambda claim, old: by_rewrite.get(" ".join(claim.text.split())) == old.id,
            lambda claim, old: _overlap(claim.text, old.text) >= 0.6,
        )
        for matches in matchers:
            for index, claim in enumerate(extracted):
                if names[index] is not None:
                    continue
                found = next((old for old in available.values() if matches(claim, old)), None)
                if found is not None:
                    names[index] = found.id
                    del available[found.id]
        named = []
        for claim, name in zip(extracted, names, strict=True):
            if name is None:
                self._claim_numbers += 1
                name = f"k{self._claim_numbers}"
            named.append(replace(claim, id=name))
        return named


# ---------------------------------------------------------------------------------------------
# Helpers


def _by_priority(claims: Sequence[Claim]) -> list[Claim]:
    """Critical first, refuted before merely unsupported, then in text order."""
    rank = {Severity.CRITICAL: 0, Severity.MODERATE: 1, Severity.MINOR: 2}
    return sorted(claims, key=lambda c: (rank[c.severity], c.state is not State.REFUTED, c.start))


def _critical_ids(claims: Iterable[Claim]) -> list[str]:
    """The ids of the CRITICAL ones among `claims`, once each, in order."""
    return list(dict.fromkeys(c.id for c in claims if c.severity is Severity.CRITICAL))


def _exhausted(reason: Reason, why: str) -> Outcome:
    return Outcome(Terminal.ABSTAIN, reason, "a budget ran out before the answer was safe", why)


def _unverified(stop: Outcome) -> Verdict:
    # Never a guess: a claim the budget did not reach is undecided, and the case goes to a person.
    budget = _BUDGETS.get(stop.reason, "run")
    return Verdict(
        state=State.UNRESOLVED,
        confidence=0.0,
        method="budget",
        rationale=f"Not verified: the {budget} budget ran out ({stop.budget_reason}).",
    )


def _placed(verdicts: list[Verdict | None], positions: Sequence[int], found: Sequence[Verdict]) -> list[Verdict | None]:
    placed = list(verdicts)
    for position, verdict in zip(positions, found, strict=True):
        placed[position] = verdict
    return placed


def _model_calls_per_claim(verifier: Verifier) -> int:
    """The most model calls verifying one claim can take: each role call may be retried."""
    if isinstance(verifier, ModelVerifier):
        return MAX_ATTEMPTS * (2 if verifier.write_questions else 1)
    return 0


def _unrepaired(failing: Sequence[Claim]) -> Outcome:
    critical = _critical_ids(failing)
    if critical:
        why = f"critical claims are not supported: {', '.join(critical)}"
        return Outcome(Terminal.REVIEW, Reason.CRITICAL_CLAIM, why)
    return Outcome(Terminal.REVIEW, Reason.UNSUPPORTED_CLAIM,
                   f"claims are not supported: {', '.join(c.id for c in failing)}")


def _state_of(candidate: Candidate, claim_id: str) -> State | None:
    return next((c.state for c in candidate.claims if c.id == claim_id), None)


def _rule_passed(candidate: Candidate, rule: str) -> bool | None:
    return next((v.passed for v in candidate.rule_verdicts if v.rule == rule), None)


def _new_failures(parent: Candidate, child: Candidate) -> list[str]:
    before = {c.id for c in parent.claims if c.state not in _KEPT}
    claims = [c.id for c in child.claims if c.state not in _KEPT and c.id not in before]
    failed_rules = {v.rule for v in parent.rule_verdicts if v.passed is False}
    rules = [f"rule:{v.rule}" for v in child.rule_verdicts if v.passed is False and v.rule not in failed_rules]
    return claims + rules


def _overlap(a: str, b: str) -> float:
    left, right = set(content_stems(a)), set(content_stems(b))
    return len(left & right) / len(left | right) if left | right else 0.0


def _number(claim_id: str) -> int:
    digits = claim_id.lstrip("k")
    return int(digits) if digits.isdigit() else 0


def _claim_record(claim: ExtractedClaim, verdict: Verdict) -> Claim:
    source = verdict.extra.get("question_source")
    return Claim(
        id=claim.id,
        text=claim.text,
        start=claim.start,
        end=claim.end,
        state=verdict.state,
        severity=claim.severity,
        question=verdict.question,
        evidence=list(verdict.evidence),
        method=verdict.method,
        confidence=verdict.confidence,
        release_score=None if verdict.release_score is None else min(1.0, max(0.0, verdict.release_score)),
        commitments=list(claim.commitments),
        rationale=verdict.rationale,
        model_record=verdict.model_record,
        question_source=str(source) if source is not None else None,
    )


def _model_calls(verdict: Verdict) -> int:
    # A verifier that makes more than one call per claim (a question writer, then the verifier)
    # reports the total in `extra`; otherwise the record of the deciding call says it.
    calls = verdict.extra.get("model_calls")
    if isinstance(calls, int):
        return calls
    return verdict.model_record.attempts if verdict.model_record else 0


def _claim_notes(extraction: Extraction, claims: Sequence[ExtractedClaim]) -> list[str]:
    notes = []
    if not claims:
        notes.append("the answer has no checkable claim: nothing in it can be checked against the sources")
    if extraction.left_out:
        listed = "; ".join(f"{sentence.text!r} ({sentence.kind})" for sentence in extraction.left_out)
        notes.append(f"not factual, left out of the claims: {listed}")
    return notes

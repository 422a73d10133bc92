"""The engine's entry point: from a case to a run record.

A run is: draft (only when the case has no answer) -> the recovery loop of `controller.Controller`
(claims, verification, rules, critic, bounded repair, stop) -> the run record with its metrics and, when
a person must look, the review package.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from verification.decision.calibration import calibrated_for, describe
from verification.decision.offline import OfflineVerifier
from verification.decision.strata import PROVEN, answer_stratum, gated_stratum
from verification.decision.verifier import Verifier, fingerprint, identity
from verification.errors import MissingFieldError, PermanentError, UnknownConstitution
from verification.llm.cascade import Cascade
from verification.llm.client import ChatModel
from verification.llm.cove import ModelVerifier
from verification.llm.critic import CalibrationFixture
from verification.llm.generator import draft_answer
from verification.loop.controller import Controller
from verification.loop.repair import RepairPlan, repair_plan
from verification.loop.stop_policy import Outcome
from verification.policy.constitution import DEFAULT, Constitution, builtin, builtin_names
from verification.scorers import Scorer, make_scorer
from verification.types import (
    Candidate,
    Case,
    Claim,
    EvidenceSpan,
    Finding,
    Metrics,
    ModelCallRecord,
    Origin,
    Reason,
    ReviewPackage,
    RunRecord,
    State,
    Terminal,
)

_KEPT = (State.SUPPORTED, State.NOT_VERIFIABLE)


def default_verifier(model: ChatModel | None = None, *, scorer: str | Scorer | None = None) -> Verifier:
    """The offline verifier with `scorer`, or the scorer it names (`scorer.make_scorer`: "learned" or "rules";
    default VERIFICATION_SCORER, else learned); with `model`, the cascade of it and chain-of-verification
    through `model`, which each run binds to its constitution's `Policy.model_verification`."""
    offline = OfflineVerifier(scorer if scorer is not None and not isinstance(scorer, str) else make_scorer(scorer))
    return Cascade(offline, ModelVerifier(model)) if model is not None else offline


class ScorerModelMismatch(PermanentError):
    """The constitution pins a scorer model (`Policy.scorer_model`) the verifier does not score with."""


def scorer_model(verifier: Verifier) -> str | None:
    """sha256 of the learned scorer's model file the verifier's offline part scores with; None when it has
    no offline part (the model verifier alone) or scores by rules."""
    offline = verifier if isinstance(verifier, OfflineVerifier) else getattr(verifier, "offline", None)
    if not isinstance(offline, OfflineVerifier):
        return None
    sha256 = getattr(getattr(offline.scorer, "model", None), "sha256", None)
    return sha256 if isinstance(sha256, str) else None


def check_case(
    case: Case,
    *,
    verifier: Verifier | None = None,
    model: ChatModel | None = None,
    constitution: Constitution | None = None,
    repair: str | RepairPlan = "auto",
    max_repairs: int | None = None,
    max_verifier_calls: int | None = None,
    max_model_calls: int | None = None,
    max_wall_ms: int | None = None,
    critic_rubric: str | None = None,
    calibration_group: str | None = None,
) -> RunRecord:
    """Check one case, repair what can be repaired, and return its run record.

    Without `verifier`, claims are checked by chain-of-verification when `model` is given and by the
    offline verifier otherwise. The constitution is `constitution`, else the built-in one the case
    names, else "default"; an unknown name is an UnknownConstitution (a MissingFieldError naming
    `constitution`). `repair` is "auto", "omit", "none" (the no-repair baseline) or a RepairPlan; an
    unknown mode is refused (UnknownRepairMode) before anything runs. The max_* arguments override the
    constitution's budgets, `calibration_group` its policy's group of the release calibration
    (`Policy.calibration_group`). `critic_rubric` replaces the critic's built-in rubric on the model path.
    A case without an answer needs `model` to draft one (origin GENERATOR);
    without it, MissingFieldError names `answer`. Transport failures of the model propagate as
    TransientError / PermanentError.
    """
    started = time.monotonic()
    plan = repair_plan(repair)
    constitution = constitution or _named_constitution(case)
    overrides = {
        "max_repairs": max_repairs,
        "max_verifier_calls": max_verifier_calls,
        "max_model_calls": max_model_calls,
        "max_wall_ms": max_wall_ms,
        "calibration_group": calibration_group,
    }
    policy = constitution.policy.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    verifier = verifier or default_verifier(model)
    pinned = policy.scorer_model
    if pinned is not None and scorer_model(verifier) != pinned:
        raise ScorerModelMismatch(
            f"constitution {constitution.name} pins the scorer model {pinned[:12]}; the verifier scores with "
            f"{(scorer_model(verifier) or 'no learned model')[:18]}"
        )
    if isinstance(verifier, Cascade):
        verifier = verifier.bind(policy)
    draft = _first_draft(case, model)
    if draft.text is None:
        return _undrafted(case, verifier, draft, started, constitution)

    controller = Controller(
        case=case, verifier=verifier, constitution=constitution, plan=plan, policy=policy, model=model,
        critic_rubric=critic_rubric, started=started,
    )
    controller.budget.model_calls += draft.model_calls
    controller.budget.model_tokens += draft.model_record.tokens if draft.model_record else 0
    outcome = controller.run(draft.text, draft.origin, draft.model_record)
    candidates = controller.candidates
    first, current = candidates[0], candidates[-1]
    needs_person = outcome.terminal in policy.needs_person
    # The threshold the gate applied to the final answer: its stratum's, where the calibration has strata.
    gate = controller.calibration.for_answer(current.claims) if controller.calibration else None
    stratum = gated_stratum(current.claims) if controller.calibration and controller.calibration.strata else None
    if controller.calibration is None and answer_stratum(current.claims) == PROVEN:
        stratum = PROVEN  # released on proof alone (`stop_policy.permit_or_review`)
    return RunRecord(
        external_id=case.external_id,
        terminal=outcome.terminal,
        reason=outcome.reason,
        final_answer=current.text,
        candidates=candidates,
        repairs=controller.repairs,
        metrics=_metrics(controller, first, current, started),
        review_package=_review_package(controller, outcome) if needs_person else None,
        notes=[*draft.notes, *controller.notes, *_gate_notes(controller)],
        verifier=verifier.name,
        verifier_fingerprint=fingerprint(verifier),
        scorer_model=scorer_model(verifier),
        constitution=constitution.pinned,
        non_converging_rules=controller.non_converging_rules,
        release_threshold=gate.threshold if gate else None,
        release_calibration=describe(gate) if gate else None,
        release_stratum=stratum,
        metadata=case.metadata,
    )


def _gate_notes(controller: Controller) -> list[str]:
    notes = []
    own = controller.policy.release_calibration
    gated = [identity(controller.gated), *controller.path_calibrations]
    if own is not None and not any(calibrated_for(own, name) for name in gated):
        notes.append(f"the constitution's release calibration was made for verifier {own.verifier}, not "
                     f"{' or '.join(gated)}: set aside, its threshold does not apply to these scores")
    if controller.calibration is None:
        notes.append(f"no release calibration for verifier {identity(controller.gated)}: every answer goes to a "
                     "person; calibrate it on labelled cases (python -m verification calibrate)")
    for name, calibration in controller.path_calibrations.items():
        if calibration is None:
            notes.append(f"no release calibration for verifier {name}: a claim it decides goes to a person; "
                         "calibrate it on labels of claims it decided")
    return notes


def _named_constitution(case: Case) -> Constitution:
    if case.constitution is None:
        return DEFAULT
    found = builtin(case.constitution)
    if found is None:
        raise UnknownConstitution(
            "constitution", f"unknown constitution {case.constitution!r}; known: {', '.join(builtin_names())}"
        )
    return found


def calibration_critic(
    *, model: ChatModel | None = None, constitution: Constitution | None = None, rubric: str | None = None
) -> Callable[[CalibrationFixture], Sequence[Finding]]:
    """A critic run for `critic.calibrate`: the first candidate's findings under `rubric`, with no repair."""

    def run(fixture: CalibrationFixture) -> Sequence[Finding]:
        case = Case(question=fixture.question, answer=fixture.draft, sources=list(fixture.sources))
        record = check_case(case, model=model, constitution=constitution, repair="none", critic_rubric=rubric)
        return record.candidates[0].findings if record.candidates else []

    return run


# ---------------------------------------------------------------------------------------------
# Drafting


@dataclass(frozen=True)
class _Draft:
    text: str | None
    origin: Origin
    model_calls: int = 0
    notes: tuple[str, ...] = ()
    model_record: ModelCallRecord | None = None


def _first_draft(case: Case, model: ChatModel | None) -> _Draft:
    if case.answer is not None:
        return _Draft(case.answer, Origin.CLIENT)
    if model is None:
        raise MissingFieldError("answer", "required when no model is configured to draft one")
    result = draft_answer(case.question, case.sources, model)
    record = result.record
    if result.output is None:
        last = record.failures[-1].error if record.failures else "no output"
        note = f"the generator's output failed validation {record.attempts} times; last: {last}"
        return _Draft(None, Origin.GENERATOR, record.attempts, (note,))
    note = f"no answer was submitted: the generator drafted one ({_provenance(record)})"
    return _Draft(result.output.answer.strip(), Origin.GENERATOR, record.attempts, (note,), record)


def _provenance(record: ModelCallRecord) -> str:
    return f"model {record.model}, prompt sha256 {record.prompt_sha256[:12]}, attempts {record.attempts}"


def _undrafted(
    case: Case, verifier: Verifier, draft: _Draft, started: float, constitution: Constitution
) -> RunRecord:
    # Nothing to verify or show: the case goes to a person, who can write the answer themselves.
    return RunRecord(
        external_id=case.external_id,
        terminal=Terminal.REVIEW,
        reason=Reason.MODEL_OUTPUT_INVALID,
        final_answer="",
        candidates=[],
        metrics=Metrics(
            claims=0,
            unsupported_before=0,
            unsupported_after=0,
            supported_removed=0,
            model_calls=draft.model_calls,
            verifier_calls=0,
            elapsed_ms=_elapsed_ms(started),
        ),
        notes=list(draft.notes),
        verifier=verifier.name,
        verifier_fingerprint=fingerprint(verifier),
        scorer_model=scorer_model(verifier),
        constitution=constitution.pinned,
        metadata=case.metadata,
    )


# ---------------------------------------------------------------------------------------------
# The record


def _metrics(controller: Controller, first: Candidate, current: Candidate, started: float) -> Metrics:
    judged = [claim for claim in current.claims if claim.state is not State.NOT_VERIFIABLE]
    supported = sum(claim.state is State.SUPPORTED for claim in judged)
    kept = {claim.id for claim in current.claims if claim.state is State.SUPPORTED}
    return Metrics(
        claims=len(first.claims),
        unsupported_before=_unsupported(first.claims),
        unsupported_after=_unsupported(current.claims),
        supported_removed=sum(c.state is State.SUPPORTED and c.id not in kept for c in first.claims),
        model_calls=controller.budget.model_calls,
        model_tokens=controller.budget.model_tokens,
        verifier_calls=controller.budget.verifier_calls,
        elapsed_ms=_elapsed_ms(started),
        claims_by_state=dict(Counter(claim.state.value for claim in current.claims)),
        support_ratio=round(supported / len(judged), 4) if judged else None,
        repairs_attempted=len(controller.repairs),
        repairs_accepted=sum(repair.outcome == "ACCEPTED" for repair in controller.repairs),
        regressions=controller.regressions,
        rule_iterations=controller.rule_iterations,
        cache_hits=controller.cache_hits,
    )


def _unsupported(claims: Sequence[Claim]) -> int:
    return sum(claim.state not in _KEPT for claim in claims)


def _review_package(controller: Controller, outcome: Outcome) -> ReviewPackage:
    candidates = controller.candidates
    original, current = candidates[0], candidates[-1]
    evidence: dict[EvidenceSpan, None] = {}
    for claim in current.claims:
        evidence.update(dict.fromkeys(claim.evidence))
    failed_before = {claim.id for claim in original.claims if claim.state not in _KEPT}
    target_failures = [claim.id for claim in current.claims if claim.state not in _KEPT]
    return ReviewPackage(
        original_candidate=original.id,
        current_candidate=current.id,
        target_failures=target_failures,
        states={claim.id: claim.state for claim in current.claims},
        evidence_used=list(evidence),
        attempts=list(controller.repairs),
        new_failures=[claim_id for claim_id in target_failures if claim_id not in failed_before],
        budget_reason=outcome.budget_reason,
        policy_reason=outcome.policy_reason,
        parent_chain=[candidate.id for candidate in candidates[:-1]],
        rule_failures=[f"{v.rule}: {v.critique}" for v in current.rule_verdicts if v.passed is False],
    )


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)

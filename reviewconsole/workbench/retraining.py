"""Retraining the learned scorer on a constitution's reviewer labels, as claimed work on the `train` queue.

A run reads the constitution's training set (`training_set.py`), fine-tunes the model in force for the
constitution (the deployment's own, or the version promoted for it) on the pairs outside the held-out
slice plus the engine's replay sample of the public mix, then verifies every held-out claim again with
the old model and with the new one and compares them at the constitution's budget
(`verification.training.comparison`). The result is a new model version (policy's `ScorerModel`) whatever
the comparison says; only one found not worse can be promoted.

A run holds its worker until RETRAINING_TIME_LIMIT; one whose worker died is taken again by the sweeper
(it resumes from its last checkpoint), up to the attempt cap every claimed job has.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.audit.actions import WORKER, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy.models import NamedConstitution, ScorerModel
from reviewconsole.policy.scorer_models import model_folder
from reviewconsole.policy.scorer_promotion import pinned_model, scorer_model_add
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.queues import enqueue_on_commit, task_hold
from reviewconsole.workbench.models import RetrainingRun, RetrainingStatus
from reviewconsole.workbench.training_set import TrainingSet, training_set
from verification import (
    DEFAULT_CONSTITUTION,
    SHIPPED_MODEL_DIR,
    OfflineVerifier,
    PermanentError,
    fingerprint,
    learned_scorer,
)
from verification.training import TRAINING_NEEDS

logger = logging.getLogger(__name__)

TRAINING_EXTRA = TRAINING_NEEDS
"""What a worker needs to retrain (the engine's list); running a retrained model needs none of it."""
INSTALL_HINT = "pip install torch==2.13.0 && pip install -e '.[train]' (the docker compose `training` service has it)"
MIN_TRAINING_PAIRS = 20
"""Fewer labels than this teach the model nothing it can be shown to have learnt."""


class RetrainingRefused(PermanentError):
    """A run that cannot go ahead; the message says what is missing."""


def training_extra_missing() -> list[str]:
    """The training extra's packages this machine lacks (empty when it can retrain)."""
    return [name for name in TRAINING_EXTRA if importlib.util.find_spec(name) is None]


def readiness(labels: TrainingSet) -> list[str]:
    """Why a run on `labels` could not compare old and new; empty when it can."""
    counts = labels.counts()
    training, held = counts["training"], counts["held_out"]
    assert isinstance(training, dict) and isinstance(held, dict)
    problems = []
    if training["supported"] + training["not_supported"] < MIN_TRAINING_PAIRS:
        problems.append(f"at least {MIN_TRAINING_PAIRS} labelled claims outside the held-out slice "
                        f"(there are {training['supported'] + training['not_supported']})")
    elif not training["supported"] or not training["not_supported"]:
        problems.append("labelled claims of both kinds outside the held-out slice (supported and not)")
    if not held["supported"] or not held["not_supported"]:
        problems.append("labelled claims of both kinds in the held-out slice, to compare the models on")
    return problems


def retraining_request(
    *, constitution: str, requested_by: User | None, epochs: float = 2.0, enqueue: bool = True
) -> RetrainingRun:
    """Queue a retraining run for `constitution`; a worker of the `train` pool runs it (unless `enqueue` is
    False: the command line runs it in the foreground)."""
    from reviewconsole.workbench.tasks import retrain

    document = NamedConstitution.objects.filter(name=constitution).first()
    if document is None:
        raise RetrainingRefused(f"constitution: no constitution named {constitution!r}")
    if not 0 < epochs <= 10:
        raise RetrainingRefused(f"epochs: must be above 0 and at most 10, got {epochs:g}")
    problems = readiness(training_set(constitution=constitution))
    if problems:
        raise RetrainingRefused("labels: a run needs " + "; and ".join(problems))
    with transaction.atomic():
        run = RetrainingRun.objects.create(constitution=document, requested_by=requested_by, epochs=epochs)
        audit_record(actor=requested_by or "system", action=AuditAction.RETRAINING_REQUESTED,
                     object_type="RetrainingRun", object_id=run.pk,
                     payload={"constitution": constitution, "epochs": epochs})
        if enqueue:
            enqueue_on_commit(retrain, run.pk)
    return run


def retraining_execute(*, run_id: int) -> RetrainingRun | None:
    """Claim a queued run and carry it out; None when it is not ours (another worker has it, or it ended)."""
    now = timezone.now()
    claim = work_claims.claim(RetrainingRun.work_kind, work_id=run_id, now=now,
                              deadline=now + task_hold(settings.RETRAINING_TIME_LIMIT), steps_done=0)
    if claim is None:
        return None
    held = RetrainingRun.objects.filter(pk=run_id, claim_token=claim.token)
    with work_claims.settling(claim):
        try:
            result = _retrain(RetrainingRun.objects.select_related("constitution").get(pk=run_id), held)
        except SoftTimeLimitExceeded:
            raise RetrainingRefused(f"stopped at its deadline of {settings.RETRAINING_TIME_LIMIT} s "
                                    "(RETRAINING_TIME_LIMIT)") from None
        with transaction.atomic():
            if work_claims.finish(claim, status=RetrainingStatus.DONE, now=timezone.now(), stage="done", **result):
                audit_record(actor=WORKER, action=AuditAction.RETRAINING_FINISHED, object_type="RetrainingRun",
                             object_id=run_id, payload={"model": result["model"].number,
                                                        "sha256": result["model"].sha256})
        shutil.rmtree(_work_dir(run_id), ignore_errors=True)
    return RetrainingRun.objects.get(pk=run_id)


def _retrain(run: RetrainingRun, held: Any) -> dict[str, Any]:
    missing = training_extra_missing()
    if missing:
        raise RetrainingRefused(f"this worker lacks the training extra ({', '.join(missing)}): {INSTALL_HINT}")
    # Imported here, on the training worker: a web process that only shows the Scorer page loads none of it.
    from verification.training import (
        RetrainSettings,
        auroc_gap_bound,
        held_out_figures,
        not_worse,
        refit_stack,
        release_scores,
        retrain,
    )

    name = run.constitution.name
    held.update(stage="reading labels")
    labels = training_set(constitution=name)
    problems = readiness(labels)
    if problems:
        raise RetrainingRefused("labels: a run needs " + "; and ".join(problems))
    counts = labels.counts()
    held.update(counts=counts)
    in_force = constitution_in_force(name)
    constitution = in_force.constitution() if in_force is not None else DEFAULT_CONSTITUTION
    base = pinned_model(in_force)
    base_folder = model_folder(base.sha256) if base is not None else deployment_model_dir()
    work = _work_dir(run.pk)
    output = work / "model"

    def progress(step: int, total: int) -> None:
        held.update(stage="training", steps_done=step, steps_total=total)

    figures = retrain(base=base_folder, pairs=[pair.pair(f"org/{name}") for pair in labels.network],
                      output=output, work=work / "checkpoints", settings=RetrainSettings(epochs=run.epochs),
                      progress=progress)
    same = ScorerModel.objects.filter(sha256=figures["sha256"]).only("number").first()
    if same is not None:
        # Training is deterministic: the same labels and base make the same file again.
        raise RetrainingRefused(f"this run made the same model file as {same.label} ({same.short_sha}): no label "
                                "it trains on changed since that run; compare and promote that version")
    held.update(stage="fitting the stack")
    figures["stack_fit"] = refit_stack(output, [pair.labelled_claim() for pair in labels.stack])
    figures["stack"] = json.loads((output / "figures.json").read_text(encoding="utf-8")).get("stack")
    held.update(stage="comparing on the held-out labels")
    claims = [pair.labelled_claim() for pair in labels.held_out]
    budget = constitution.policy.max_unsafe_release_rate
    old_verifier, new_verifier = OfflineVerifier(learned_scorer(base_folder)), OfflineVerifier(learned_scorer(output))
    old_scores, new_scores = release_scores(old_verifier, claims), release_scores(new_verifier, claims)
    old = held_out_figures(claims, old_scores, budget=budget, verifier=_identity(old_verifier))
    new = held_out_figures(claims, new_scores, budget=budget, verifier=_identity(new_verifier))
    gap = auroc_gap_bound(claims, old_scores, new_scores)
    ok, verdict = not_worse(old, new, gap)
    held.update(stage="saving the model version")
    model = scorer_model_add(
        constitution=run.constitution, folder=output, figures=figures, training={**counts, **figures["training"]},
        held_out={"old": old.as_json(), "new": new.as_json(), "not_worse": ok, "verdict": verdict, "budget": budget,
                  "auroc_gap_bound": gap,
                  "old_model": base.number if base is not None else None},
        client_ids=list(labels.clients), base=base, verifier=_identity(new_verifier), actor=run.requested_by,
    )
    return {"model": model}


def _identity(verifier: OfflineVerifier) -> str:
    """As calibrations name the verifier they were made for ("offline/7 10b68657cdbbcbc5")."""
    return f"{verifier.name} {fingerprint(verifier)}"


def deployment_model_dir() -> Path:
    """The model a constitution without a promoted version scores with: VERIFICATION_MODEL_DIR's or the shipped one."""
    return Path(settings.VERIFICATION_MODEL_DIR) if settings.VERIFICATION_MODEL_DIR else SHIPPED_MODEL_DIR


def _work_dir(run_id: int) -> Path:
    return Path(settings.VAR_DIR) / "retraining" / f"run-{run_id}"


def retraining_failed(*, run_id: int, error: str) -> None:
    """A run failed for good (`RetrainingRun.on_work_failed`): audited with its reason."""
    audit_record(actor=WORKER, action=AuditAction.RETRAINING_FAILED, object_type="RetrainingRun", object_id=run_id,
                 payload={"error": error[:500]})


def retrainings_sweep(*, now: datetime) -> list[int]:
    """Runs a worker lost (it died, or the message was lost): run again (from the last checkpoint), or failed
    out of attempts."""
    from reviewconsole.workbench.tasks import retrain

    lost = work_claims.sweep(RetrainingRun.work_kind, now=now)
    for run_id in lost:
        enqueue_on_commit(retrain, run_id)
    return lost

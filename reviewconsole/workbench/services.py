"""Writes the workbench asks for. A constitution version or a scorer model's promotion is saved through
policy's services, which audit it as every policy change is audited; retraining runs, the one table the
workbench owns, are written by `retraining.py`."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.audit.actions import SYSTEM, AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy import scorer_promotion as policy_promotion
from reviewconsole.policy import services as policy_services
from reviewconsole.policy.models import ConstitutionVersion, ScorerModel, ScorerPromotion
from reviewconsole.policy.scorer_promotion import PromotionRefused
from reviewconsole.policy.selectors import constitution_in_force, constitution_names
from reviewconsole.policy.services import FieldRefused
from reviewconsole.workbench.labelled_answers import reviewer_labels
from reviewconsole.workbench.release_gate import budget_outcome, verifier_in_use
from reviewconsole.workbench.training_set import TrainingSet, may_train_for, training_set
from verification import Constitution


class GateRefused(FieldRefused):
    """A recalibration that cannot be saved; `field` names the input at fault."""


def release_calibration_draft_save(
    *, constitution: str, max_unsafe_release_rate: float, author: User | None, now: datetime
) -> ConstitutionVersion:
    """A draft of `constitution`, based on the version in force, whose budget is `max_unsafe_release_rate`
    and whose release calibration is the engine's, computed now on reviewers' labels, with its provenance.

    The draft goes into force only when published, after the same confirmation as any draft. The labels
    are read again here rather than trusted from the page: the draft holds what they say at saving time.
    """
    with transaction.atomic():
        in_force = constitution_in_force(constitution)
        if in_force is None:
            raise GateRefused("constitution", f"{constitution} has no version in force to recalibrate")
        verifier = verifier_in_use(constitution)
        labels = reviewer_labels(constitution=constitution, verifier=verifier.name, scorer_model=verifier.scorer_model)
        outcome = budget_outcome(labels, max_unsafe_release_rate, verifier, now=now)
        if not outcome.met or outcome.calibration is None:  # met implies a calibration
            raise GateRefused("max_unsafe_release_rate", f"no threshold qualifies for {max_unsafe_release_rate:.1%}: "
                              f"{outcome.why_not}")
        calibration = outcome.calibration
        content = in_force.content
        recalibrated = Constitution.model_validate({**content, "policy": {
            **content.get("policy", {}), "max_unsafe_release_rate": max_unsafe_release_rate,
            "release_calibration": calibration.model_dump(mode="json"),
        }})
        note = (f"release gate from reviewer labels: threshold {calibration.threshold:.4f} for at most "
                f"{max_unsafe_release_rate:.1%} unsafe releases, {len(labels.answers)} labelled answers")
        return policy_services.constitution_draft_save(constitution=recalibrated, author=author, note=note,
                                                       based_on=in_force)


def release_calibration_publish(
    *, constitution: str, max_unsafe_release_rate: float, actor: User | None, now: datetime
) -> ConstitutionVersion:
    """Save the calibration the labels allow for the budget as a new version and put it in force at once: the
    offer the release gate makes once a threshold qualifies (`actor` None: the constitution's own opt-in,
    `Policy.auto_publish_calibration`). Both steps are audited, as any save and publication are."""
    with transaction.atomic():
        draft = release_calibration_draft_save(
            constitution=constitution, max_unsafe_release_rate=max_unsafe_release_rate, author=actor, now=now)
        return policy_services.version_publish(version=draft, actor=actor or SYSTEM, now=now)


def calibrations_auto_publish(*, now: datetime) -> list[ConstitutionVersion]:
    """Every constitution in shadow mode that opted in to publish its own calibration, and whose labels now
    allow a threshold within its budget: published by the console itself."""
    published = []
    for name in constitution_names():
        in_force = constitution_in_force(name)
        policy = in_force.constitution().policy if in_force is not None else None
        if policy is None or not (policy.in_shadow and policy.auto_publish_calibration):
            continue
        try:
            published.append(release_calibration_publish(
                constitution=name, max_unsafe_release_rate=policy.max_unsafe_release_rate, actor=None, now=now))
        except GateRefused:
            continue  # not yet: too few labels for the budget
    return published


def scorer_model_promote(*, model: ScorerModel, actor: User, now: datetime) -> ScorerPromotion:
    """Promote `model` for its constitution, unless a client whose labels trained it keeps its labels to
    itself and the constitution judges other clients' cases too (a team admin may let it share them)."""
    refused = may_train_for(model.client_ids, model.constitution.name)
    if refused:
        raise PromotionRefused("model", f"{model.label} was trained on labels of {', '.join(refused)}, which "
                                        f"{'does' if len(refused) == 1 else 'do'} not share labels with other clients, "
                                        f"and {model.constitution.name} judges other clients' cases too")
    return policy_promotion.scorer_model_promote(model=model, actor=actor, now=now)


def training_set_export(*, constitution: str, actor: User) -> TrainingSet:
    """The constitution's training set, for a download; the export is audited (it holds the sources' text)."""
    labels = training_set(constitution=constitution)
    audit_record(actor=actor, action=AuditAction.TRAINING_SET_EXPORTED, object_type="NamedConstitution",
                 object_id=constitution, payload={"constitution": constitution, "pairs": len(labels.pairs)})
    return labels

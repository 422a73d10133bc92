"""Writes for scorer model versions: add one a retraining run made, promote it for its constitution, roll
a promotion back.

A promotion is a publication: the constitution's next version pins the model (`Policy.scorer_model`) and
carries a release calibration made for it, computed from the held-out labels' scores under the new model,
so the gate never applies a threshold made for one model's scores to another's. Rolling back publishes
the pin and the calibration that were in force before, in one step. Each is audited beside the
publication it makes.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.services import audit_record
from reviewconsole.policy import services
from reviewconsole.policy.models import (
    ConstitutionVersion,
    NamedConstitution,
    PromotionAction,
    ScorerModel,
    ScorerPromotion,
)
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import FieldRefused
from verification import SCORER_MODEL_FILE as MODEL_FILE
from verification import SCORER_TOKENIZER_FILE as TOKENIZER_FILE
from verification import Constitution, calibrate_release
from verification.training import HeldOutFigures


class PromotionRefused(FieldRefused):
    """A promotion or rollback that cannot be made; `field` names what is at fault."""


def scorer_model_add(
    *, constitution: NamedConstitution, folder: Path, figures: dict[str, Any], training: dict[str, Any],
    held_out: dict[str, Any], client_ids: list[int], base: ScorerModel | None, verifier: str, actor: User | None,
) -> ScorerModel:
    """A new immutable model version from the files a run wrote to `folder`, numbered after the last."""
    data = (folder / MODEL_FILE).read_bytes()
    sha256 = figures["sha256"]
    with transaction.atomic():
        # Locked so two runs finishing together get consecutive numbers rather than a clash.
        NamedConstitution.objects.select_for_update().get(pk=constitution.pk)
        number = (ScorerModel.objects.aggregate(top=Max("number"))["top"] or 0) + 1
        model = ScorerModel.objects.create(
            number=number, sha256=sha256, onnx=data,
            tokenizer=(folder / TOKENIZER_FILE).read_text(encoding="utf-8"), figures=figures,
            base_sha256=figures.get("base_sha256", ""), base=base, constitution=constitution,
            client_ids=sorted(client_ids), training=training, held_out=held_out, verifier=verifier,
            created_by=actor,
        )
        audit_record(actor=actor or "worker", action=AuditAction.SCORER_MODEL_ADDED, object_type="ScorerModel",
                     object_id=model.pk, payload={"number": number, "sha256": sha256, "constitution": constitution.name,
                                                  "base_sha256": model.base_sha256, "training": training,
                                                  "clients": model.client_ids, "not_worse": model.promotable})
    return model


def pinned_model(version: ConstitutionVersion | None) -> ScorerModel | None:
    """The scorer model version `version` pins; None for the deployment's own model."""
    sha256 = version.constitution().policy.scorer_model if version is not None else None
    return ScorerModel.objects.filter(sha256=sha256).defer("onnx").first() if sha256 else None


def scorer_model_promote(*, model: ScorerModel, actor: User, now: datetime) -> ScorerPromotion:
    """Put `model` in force for the constitution whose labels trained it, with a calibration made for it."""
    with transaction.atomic():
        document = NamedConstitution.objects.select_for_update().get(pk=model.constitution_id)
        in_force = constitution_in_force(document.name)
        if in_force is None:
            raise PromotionRefused("constitution", f"{document.name} has no version in force")
        if not model.promotable:
            raise PromotionRefused("model", f"{model.label} is worse on the held-out labels: "
                                            f"{model.held_out.get('verdict', '')}")
        current = pinned_model(in_force)
        if current is not None and current.pk == model.pk:
            raise PromotionRefused("model", f"{model.label} is already in force for {document.name}")
        if (current.pk if current is not None else None) != model.base_id:
            raise PromotionRefused("model", f"{model.label} was compared with the model in force when it was trained, "
                                            "which is no longer in force: retrain against the one in force now")
        constitution = in_force.constitution()
        budget = constitution.policy.max_unsafe_release_rate
        scores = HeldOutFigures.from_json(model.held_out["new"]).labelled_scores(f"{document.name}/held-out-labels")
        if not scores.inconsistent:
            raise PromotionRefused("model", "the held-out labels hold no inconsistent answer: nothing bounds the "
                                            "unsafe release rate of the new model")
        calibration = calibrate_release([scores], max_unsafe_release_rate=budget, verifier=model.verifier, now=now)
        if not calibration.met:
            raise PromotionRefused("model", f"no threshold keeps the new model within the budget of {budget:.1%} "
                                            "on the held-out labels")
        note = (f"{model.label} promoted: threshold {calibration.threshold:.4f} for at most {budget:.1%} unsafe "
                f"releases, {len(scores.consistent) + len(scores.inconsistent)} held-out answers")
        version = _publish(constitution, in_force, actor=actor, now=now, note=note, policy={
            "scorer_model": model.sha256, "release_calibration": calibration.model_dump(mode="json"),
        })
        promotion = ScorerPromotion.objects.create(
            constitution=document, action=PromotionAction.PROMOTE, model=model, previous_model=current,
            version=version, previous_version=in_force, actor=actor,
        )
        audit_record(actor=actor, action=AuditAction.SCORER_MODEL_PROMOTED, object_type="ScorerModel",
                     object_id=model.pk, payload={
                         "constitution": document.name, "number": model.number, "sha256": model.sha256,
                         "previous_sha256": current.sha256 if current is not None else None, "version": version.number,
                         "threshold": calibration.threshold, "budget": budget})
        return promotion


def scorer_model_rollback(*, constitution: str, actor: User, now: datetime) -> ScorerPromotion:
    """Put back the scorer model and the calibration in force before the last promotion."""
    with transaction.atomic():
        document = NamedConstitution.objects.select_for_update().get(name=constitution)
        in_force = constitution_in_force(constitution)
        last = ScorerPromotion.objects.filter(constitution=document).select_related("model", "previous_version").first()
        if in_force is None or last is None or last.action != PromotionAction.PROMOTE or last.model is None:
            raise PromotionRefused("constitution", f"{constitution} has no promotion to roll back")
        if in_force.constitution().policy.scorer_model != last.model.sha256:
            raise PromotionRefused("constitution", f"{last.model.label} is no longer in force for {constitution}")
        before = last.previous_version.constitution().policy
        current = in_force.constitution()
        # The earlier calibration holds only for the budget it was made for; under another budget the
        # verifier's built-in one applies, as the editor does when a budget changes.
        calibration = before.release_calibration
        if calibration is not None and calibration.max_unsafe_release_rate != current.policy.max_unsafe_release_rate:
            calibration = None
        previous = last.previous_model
        note = f"{last.model.label} rolled back to {previous.label if previous else 'the deployment model'}"
        version = _publish(current, in_force, actor=actor, now=now, note=note, policy={
            "scorer_model": before.scorer_model,
            "release_calibration": calibration.model_dump(mode="json") if calibration is not None else None,
        })
        rollback = ScorerPromotion.objects.create(
            constitution=document, action=PromotionAction.ROLLBACK, model=previous, previous_model=last.model,
            version=version, previous_version=in_force, actor=actor,
        )
        audit_record(actor=actor, action=AuditAction.SCORER_MODEL_ROLLED_BACK, object_type="ScorerModel",
                     object_id=last.model.pk, payload={
                         "constitution": constitution, "number": last.model.number, "sha256": last.model.sha256,
                         "restored_sha256": before.scorer_model, "version": version.number})
        return rollback


def _publish(constitution: Constitution, in_force: ConstitutionVersion, *, actor: User, now: datetime, note: str,
             policy: dict[str, Any]) -> ConstitutionVersion:
    """The version in force with `policy` changed, saved and published (audited as every publication)."""
    content = constitution.model_dump(mode="json")
    changed = Constitution.model_validate({**content, "policy": {**content["policy"], **policy}})
    draft = services.constitution_draft_save(constitution=changed, author=actor, note=note, based_on=in_force)
    return services.version_publish(version=draft, actor=actor, now=now)

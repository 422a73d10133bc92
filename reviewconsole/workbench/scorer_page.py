"""What the scorer page shows for one constitution: the model in force, its training set, retraining runs,
the model versions they made, and which of them may be promoted now."""

from __future__ import annotations

from dataclasses import dataclass

from reviewconsole.policy.models import (
    ConstitutionVersion,
    NamedConstitution,
    PromotionAction,
    ScorerModel,
    ScorerPromotion,
)
from reviewconsole.policy.scorer_promotion import pinned_model
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.workbench.models import RetrainingRun
from reviewconsole.workbench.release_gate import verifier_in_use
from reviewconsole.workbench.retraining import INSTALL_HINT, readiness, training_extra_missing
from reviewconsole.workbench.shipped_model import ShippedModel, shipped_model
from reviewconsole.workbench.training_set import TrainingSet, may_train_for, training_set

RUNS_SHOWN = 20


@dataclass(frozen=True)
class ModelRow:
    """A model version and whether it can be promoted now, and if not, why."""

    model: ScorerModel
    in_force: bool
    promotable_now: bool
    why_not: str


@dataclass(frozen=True)
class ScorerPage:
    constitution: NamedConstitution
    version: ConstitutionVersion | None
    """The version in force."""
    in_force: ScorerModel | None
    """The promoted model in force; None: the deployment's own."""
    scorer_sha256: str | None
    """sha256 of the model file the constitution's claims are scored with (None: the rules scorer)."""
    labels: TrainingSet
    problems: tuple[str, ...]
    """Why a run cannot start on these labels yet."""
    missing_extra: tuple[str, ...]
    """Training packages this machine lacks (a worker of the `train` pool needs them)."""
    runs: tuple[RetrainingRun, ...]
    models: tuple[ModelRow, ...]
    last_promotion: ScorerPromotion | None
    shipped: ShippedModel | None
    """The model this release ships: the deployment's model unless the deployment configured its own."""
    install_hint: str = INSTALL_HINT

    @property
    def can_roll_back(self) -> bool:
        last = self.last_promotion
        return (last is not None and last.action == PromotionAction.PROMOTE and self.in_force is not None
                and last.model_id == self.in_force.pk)

    @property
    def runs_unfinished(self) -> bool:
        return any(not run.is_finished for run in self.runs)


def model_row(model: ScorerModel, in_force: ScorerModel | None) -> ModelRow:
    """Whether `model` can be promoted with `in_force` the model in force now."""
    if in_force is not None and in_force.pk == model.pk:
        return ModelRow(model, True, False, "in force")
    if not model.promotable:
        return ModelRow(model, False, False, str(model.held_out.get("verdict", "worse on the held-out labels")))
    if model.base_id != (in_force.pk if in_force is not None else None):
        return ModelRow(model, False, False, "trained against a model no longer in force: retrain")
    refused = may_train_for(model.client_ids, model.constitution.name)
    if refused:
        return ModelRow(model, False, False, f"trained on labels of {', '.join(refused)}, kept to that client")
    return ModelRow(model, False, True, "")


def scorer_page(constitution: NamedConstitution) -> ScorerPage:
    version = constitution_in_force(constitution.name)
    in_force = pinned_model(version)
    labels = training_set(constitution=constitution.name)
    # Never the model files (tens of MB a version): the page, polled every 2 s while a run is unfinished, shows none.
    models = ScorerModel.objects.filter(constitution=constitution).select_related("constitution", "base").defer(
        "onnx", "base__onnx")
    return ScorerPage(
        constitution=constitution, version=version, in_force=in_force,
        scorer_sha256=verifier_in_use(constitution.name).scorer_model, labels=labels,
        problems=tuple(readiness(labels)), missing_extra=tuple(training_extra_missing()),
        runs=tuple(RetrainingRun.objects.filter(constitution=constitution).select_related("model", "requested_by")
                   .defer("model__onnx")[:RUNS_SHOWN]),
        models=tuple(model_row(model, in_force) for model in models),
        last_promotion=ScorerPromotion.objects.filter(constitution=constitution)
        .select_related("model", "previous_model").defer("model__onnx", "previous_model__onnx").first(),
        shipped=shipped_model(),
    )

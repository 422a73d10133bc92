"""The learned scorer retrained on a constitution's labels: the training set and its export, retraining runs,
model versions compared old against new, promotion and rollback."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.policy.models import NamedConstitution, ScorerModel
from reviewconsole.policy.scorer_promotion import PromotionRefused, pinned_model, scorer_model_rollback
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.workbench.retraining import RetrainingRefused, retraining_request
from reviewconsole.workbench.scorer_page import model_row, scorer_page
from reviewconsole.workbench.services import scorer_model_promote, training_set_export
from reviewconsole.workbench.training_set import jsonl_lines


class RetrainForm(forms.Form):
    epochs = forms.FloatField(min_value=0.1, max_value=10, initial=2.0,
                              error_messages={"invalid": "epochs: a number, such as 2",
                                              "min_value": "epochs: at least 0.1",
                                              "max_value": "epochs: at most 10",
                                              "required": "epochs: required"})


@require_GET
@policy_admin_required
@vary_on_headers("HX-Request")
def scorer(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """The page; an htmx request (the runs table polling while a run is unfinished) gets the runs alone."""
    return _render(request, get_object_or_404(NamedConstitution, name=name))


@require_POST
@policy_admin_required
def retrain(request: HtmxHttpRequest, name: str) -> HttpResponse:
    constitution = get_object_or_404(NamedConstitution, name=name)
    form = RetrainForm(request.POST)
    if not form.is_valid():
        error = " ".join(str(message) for message in form.errors["epochs"])
        return _render(request, constitution, form=form, error=error, status=400)
    try:
        run = retraining_request(constitution=name, requested_by=request.user, epochs=form.cleaned_data["epochs"])
    except RetrainingRefused as refused:
        return _render(request, constitution, form=form, error=str(refused), status=400)
    messages.success(request, f"Retraining run #{run.pk} queued: a worker of the train pool runs it.")
    return redirect("workbench:scorer", name=name)


@require_GET
@policy_admin_required
def training_set_jsonl(request: HtmxHttpRequest, name: str) -> StreamingHttpResponse:
    get_object_or_404(NamedConstitution, name=name)
    labels = training_set_export(constitution=name, actor=request.user)
    response = StreamingHttpResponse(jsonl_lines(labels.pairs), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="training-set-{name}.jsonl"'
    return response


@require_GET
@policy_admin_required
def model_page(request: HtmxHttpRequest, number: int) -> HttpResponse:
    model = get_object_or_404(ScorerModel.objects.select_related("constitution", "base").defer("onnx", "base__onnx"),
                              number=number)
    return _model_render(request, model)


@require_POST
@policy_admin_required
def promote(request: HtmxHttpRequest, number: int) -> HttpResponse:
    model = get_object_or_404(ScorerModel.objects.select_related("constitution", "base").defer("onnx", "base__onnx"),
                              number=number)
    try:
        promotion = scorer_model_promote(model=model, actor=request.user, now=timezone.now())
    except PromotionRefused as refused:
        return _model_render(request, model, error=str(refused), status=400)
    messages.success(request, f"{model.label} promoted for {model.constitution.name}: "
                              f"{promotion.version.label} is in force with its calibration.")
    return redirect("workbench:scorer", name=model.constitution.name)


@require_POST
@policy_admin_required
def rollback(request: HtmxHttpRequest, name: str) -> HttpResponse:
    constitution = get_object_or_404(NamedConstitution, name=name)
    try:
        done = scorer_model_rollback(constitution=name, actor=request.user, now=timezone.now())
    except PromotionRefused as refused:
        return _render(request, constitution, error=str(refused), status=400)
    restored = done.model.label if done.model is not None else "the deployment's model"
    messages.success(request, f"Rolled back: {name} is scored with {restored} again ({done.version.label}).")
    return redirect("workbench:scorer", name=name)


def _render(request: HtmxHttpRequest, constitution: NamedConstitution, *, form: RetrainForm | None = None,
            error: str = "", status: int = 200) -> HttpResponse:
    page = scorer_page(constitution)
    context = {"page": page, "form": form or RetrainForm(), "error": error}
    template = "workbench/scorer.html#runs" if request.htmx and request.method == "GET" else "workbench/scorer.html"
    return render(request, template, context, status=status)


def _model_render(request: HtmxHttpRequest, model: ScorerModel, *, error: str = "", status: int = 200) -> HttpResponse:
    row = model_row(model, pinned_model(constitution_in_force(model.constitution.name)))
    return render(request, "workbench/scorer_model.html", {"row": row, "model": model, "error": error}, status=status)

"""Rubric pages: the list, one rubric with its calibration history, a version, the editor, calibration runs."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.policy import selectors, services
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.policy.calibration import calibration_request
from reviewconsole.policy.diff import rubric_diff
from reviewconsole.policy.engine import configured_model
from reviewconsole.policy.models import Rubric, RubricVersion
from reviewconsole.policy.rubric_form import RubricForm, ThresholdForm
from reviewconsole.policy.rubrics import RubricContent
from reviewconsole.policy.views.publishing import publish


@require_GET
@policy_admin_required
def rubric_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "policy/rubrics.html", {"rows": selectors.rubric_rows()})


@require_GET
@policy_admin_required
def rubric_detail(request: HtmxHttpRequest, name: str) -> HttpResponse:
    rubric = get_object_or_404(Rubric, name=name)
    return _render_rubric(request, rubric)


def _render_rubric(request: HtmxHttpRequest, rubric: Rubric, *, threshold_error: str = "", status: int = 200):
    return render(request, "policy/rubric.html", {
        "rubric": rubric, "versions": selectors.versions_of(rubric), "in_force": selectors.rubric_in_force(rubric),
        "runs": selectors.calibration_history(rubric), "threshold_error": threshold_error,
    }, status=status)


@require_POST
@policy_admin_required
def rubric_threshold(request: HtmxHttpRequest, name: str) -> HttpResponse:
    rubric = get_object_or_404(Rubric, name=name)
    form = ThresholdForm(request.POST)
    if not form.is_valid():
        return _render_rubric(request, rubric, threshold_error=str(form.errors["canary_threshold"][0]),
                              status=400)
    threshold = form.cleaned_data["canary_threshold"]
    services.rubric_threshold_set(rubric=rubric, threshold=threshold, actor=request.user)
    messages.success(request, f"The canary now warns below a catch rate of {threshold:.0%}.")
    return redirect("policy:rubric", name=name)


@require_GET
@policy_admin_required
def rubric_version_detail(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    version = selectors.rubric_version_get(name, number)
    previous = RubricVersion.objects.filter(document=version.document, number__lt=number).order_by("-number").first()
    rubric = RubricContent.model_validate(version.content)
    return render(request, "policy/rubric_version.html", {
        "version": version, "rubric": rubric, "previous": previous,
        "diff": rubric_diff(previous.content, version.content) if previous else None,
        "runs": version.calibration_runs.order_by("-created_at")[:20],
        # What the page says about who reads the instructions comes from the code that passes them on.
        "cases_read": selectors.critic_rubric_version_for(rubric.constitution),
        "model_configured": configured_model() is not None,
    })


@require_http_methods(["GET", "POST"])
@policy_admin_required
def rubric_edit(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    """Edit starting from version `number`; saving makes a new draft version."""
    base = selectors.rubric_version_get(name, number)
    content = RubricContent.model_validate(base.content)
    if request.method == "GET":
        return _render_rubric_editor(request, base, RubricForm(base=content))
    form = RubricForm(request.POST, base=content)
    if not form.is_valid() or form.rubric is None:  # a valid form has its rubric
        return _render_rubric_editor(request, base, form, status=400)
    version = services.rubric_draft_save(
        name=name, rubric=form.rubric, author=request.user, note=form.cleaned_data["note"], based_on=base
    )
    messages.success(request, f"Saved as draft v{version.number}. Calibrate it, then publish it.")
    return redirect("policy:rubric_version", name=name, number=version.number)


def _render_rubric_editor(request, base: RubricVersion, form: RubricForm, status: int = 200):
    return render(request, "policy/rubric_edit.html", {
        "base": base, "form": form, "constitution_names": selectors.constitution_names(),
    }, status=status)


@require_http_methods(["GET", "POST"])
@policy_admin_required
def rubric_publish(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    """GET (or a POST without confirmation) shows what publishing changes; the confirmed POST publishes."""
    version = selectors.rubric_version_get(name, number)
    return publish(request, version, diff=rubric_diff, version_url="policy:rubric_version",
                   publish_url="policy:rubric_publish", item_label="Fixture")


@require_POST
@policy_admin_required
def calibration_start(request: HtmxHttpRequest, name: str, number: int) -> HttpResponse:
    version = selectors.rubric_version_get(name, number)
    run = calibration_request(rubric_version=version, requested_by=request.user)
    return redirect("policy:calibration_run", run_id=run.pk)


@require_GET
@policy_admin_required
@vary_on_headers("HX-Request")
def calibration_run(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    """The run's progress; the page polls the fragment (htmx) until the run is finished."""
    run = selectors.calibration_run_get(run_id)
    template = "policy/calibration.html#progress" if request.htmx else "policy/calibration.html"
    return render(request, template, {"run": run})

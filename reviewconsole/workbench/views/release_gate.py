"""The release gate from reviewers' labels: the curve, a budget's threshold, and saving it as a draft to publish."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.policy.access import policy_admin_required
from reviewconsole.policy.breaker import BreakerRefused, breaker_close, breaker_panel
from reviewconsole.policy.models import NamedConstitution
from reviewconsole.workbench.automation import bound_as_labels_arrived, last_week_share, time_to_automation
from reviewconsole.workbench.budget_form import BudgetForm
from reviewconsole.workbench.release_chart import bound_chart, release_gate_chart
from reviewconsole.workbench.release_gate import gate_summaries, release_gate
from reviewconsole.workbench.services import GateRefused, release_calibration_draft_save, release_calibration_publish
from reviewconsole.workbench.training_set import training_set

BUDGET = "max_unsafe_release_rate"


@require_GET
@policy_admin_required
def release_gate_list(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "workbench/release_gates.html", {"summaries": gate_summaries()})


@require_GET
@policy_admin_required
@vary_on_headers("HX-Request")
def release_gate_page(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """The gate on the labels; `?max_unsafe_release_rate=` shows what calibration gives for that budget."""
    get_object_or_404(NamedConstitution, name=name)
    if BUDGET not in request.GET:
        return _render(request, name, budget=None)
    form = BudgetForm(request.GET)
    if not form.is_valid():
        return _render(request, name, budget=None, typed=request.GET[BUDGET], error=form.error, status=400)
    return _render(request, name, budget=form.cleaned_data[BUDGET])


@require_POST
@policy_admin_required
def release_gate_draft(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """Save the chosen budget's calibration as a draft, then confirm publishing it as any draft is confirmed."""
    get_object_or_404(NamedConstitution, name=name)
    form = BudgetForm(request.POST)
    if not form.is_valid():
        return _render(request, name, budget=None, typed=request.POST.get(BUDGET, ""), error=form.error, status=400)
    budget = form.cleaned_data[BUDGET]
    try:
        version = release_calibration_draft_save(constitution=name, max_unsafe_release_rate=budget,
                                                 author=request.user, now=timezone.now())
    except GateRefused as refused:
        return _render(request, name, budget=budget, error=str(refused), status=400)
    messages.success(request, f"Saved as draft v{version.number} ({version.short_sha}): {version.note}. "
                              "Check what changes, then publish it.")
    return redirect("policy:constitution_publish", name=name, number=version.number)


@require_POST
@policy_admin_required
def release_gate_publish(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """Publish the threshold the labels allow for the budget in force, as a new version: the offer the page
    makes once one qualifies."""
    get_object_or_404(NamedConstitution, name=name)
    form = BudgetForm(request.POST)
    if not form.is_valid():
        return _render(request, name, budget=None, typed=request.POST.get(BUDGET, ""), error=form.error, status=400)
    try:
        version = release_calibration_publish(constitution=name, max_unsafe_release_rate=form.cleaned_data[BUDGET],
                                              actor=request.user, now=timezone.now())
    except GateRefused as refused:
        return _render(request, name, budget=None, error=str(refused), status=400)
    messages.success(request, f"Published v{version.number} ({version.short_sha}): {version.note}. "
                              "New cases of this constitution are released at this threshold.")
    return redirect("workbench:release_gate", name=name)


@require_POST
@policy_admin_required
def release_gate_breaker_close(request: HtmxHttpRequest, name: str) -> HttpResponse:
    """Close the open breaker, once a version published after it opened is in force, saying why."""
    get_object_or_404(NamedConstitution, name=name)
    try:
        breaker_close(constitution=name, actor=request.user, note=request.POST.get("note", ""), now=timezone.now(),
                      stratum=request.POST.get("stratum", ""))
    except BreakerRefused as refused:
        return _render(request, name, budget=None, breaker_error=str(refused), status=400)
    messages.success(request, f"The breaker of {name} is closed: those releases run again.")
    return redirect("workbench:release_gate", name=name)


def _render(request: HtmxHttpRequest, name: str, *, budget: float | None, typed: str = "", error: str = "",
            breaker_error: str = "", status: int = 200) -> HttpResponse:
    gate = release_gate(constitution=name, budget=budget)
    policy = gate.in_force.version.constitution().policy if gate.in_force.version is not None else None
    allowed = gate.chosen.calibration.threshold if gate.chosen.met and gate.chosen.calibration else None
    budget_shown = gate.chosen.budget
    context = {
        "gate": gate, "chart": release_gate_chart(gate), "error": error,
        "training": training_set(constitution=name),
        "typed": typed or f"{gate.chosen.budget:g}",
        "shadow": policy is not None and policy.in_shadow,
        "auto_publish": policy is not None and policy.auto_publish_calibration,
        "needed": time_to_automation(gate.labels, budget=budget_shown),
        "bound_chart": bound_chart(points=bound_as_labels_arrived(gate.labels, budget=budget_shown),
                                   budget=budget_shown),
        "week": last_week_share(name, allowed, now=timezone.now()), "allowed": allowed,
        "breaker": breaker_panel(name), "breaker_error": breaker_error,
    }
    template = "workbench/release_gate.html#budget" if request.htmx else "workbench/release_gate.html"
    return render(request, template, context, status=status)

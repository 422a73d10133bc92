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
from reviewconsole.policy.models import NamedConstitution
from reviewconsole.workbench.budget_form import BudgetForm
from reviewconsole.workbench.release_chart import release_gate_chart
from reviewconsole.workbench.release_gate import gate_summaries, release_gate
from reviewconsole.workbench.services import GateRefused, release_calibration_draft_save
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


def _render(request: HtmxHttpRequest, name: str, *, budget: float | None, typed: str = "", error: str = "",
            status: int = 200) -> HttpResponse:
    gate = release_gate(constitution=name, budget=budget)
    context = {
        "gate": gate, "chart": release_gate_chart(gate), "error": error,
        "training": training_set(constitution=name),
        "typed": typed or f"{gate.chosen.budget:g}",
    }
    template = "workbench/release_gate.html#budget" if request.htmx else "workbench/release_gate.html"
    return render(request, template, context, status=status)

"""A review lead's pages: the cases whose two reviews disagree, and giving a case to a reviewer.
Thin: validate, call the service, render. A lead decides an adjudicated case on its case page, with
the decision views every reviewer uses (views.py); the services check the role."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.review import double_review, views
from reviewconsole.review.access import escalation_for_reviewer, lead_required
from reviewconsole.review.decision_panel import decision_panel
from reviewconsole.review.forms import AssignForm
from reviewconsole.review.services import AssignmentRefused, escalation_assign

ADJUDICATION_PAGE_SIZE = 200


@require_GET
@lead_required
def adjudication(request: HtmxHttpRequest) -> HttpResponse:
    """The cases whose independent reviews disagree, highest priority then oldest first."""
    queue = double_review.adjudication_queue()
    escalations = list(queue[:ADJUDICATION_PAGE_SIZE])
    total = len(escalations) if len(escalations) < ADJUDICATION_PAGE_SIZE else queue.count()
    return render(request, "review/adjudication.html", {"escalations": escalations, "total": total})


@require_POST
@lead_required
def case_assign(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    """Give the case to the chosen reviewer, or take it back (no reviewer chosen)."""
    escalation = escalation_for_reviewer(case_id)
    form = AssignForm(request.POST)
    try:
        if not form.is_valid():
            raise AssignmentRefused("Check the assignment below.", status_code=400)
        assignee = form.cleaned_data["assignee"]
        escalation = escalation_assign(escalation_id=escalation.pk, lead=request.user, assignee=assignee)
    except AssignmentRefused as refused:
        if refused.field:
            form.add_error(refused.field, str(refused))
        if request.htmx:
            context = _assignment_context(request, escalation, form, error=str(refused))
            return render(request, "review/case.html#assignment", context, status=refused.status_code)
        return views._render_case(request, escalation, forms={"assign_form": form}, error=str(refused),
                                  status=refused.status_code)
    done = f"Case {case_id} is assigned to {assignee.get_username()}." if assignee else \
        f"Case {case_id} is assigned to nobody now."
    if not request.htmx:
        messages.success(request, done)
        return redirect("review:case", case_id=case_id)
    form = AssignForm(initial={"assignee": escalation.assigned_to_id})
    return render(request, "review/case.html#assignment", _assignment_context(request, escalation, form, done=done))


def _assignment_context(request: HtmxHttpRequest, escalation, form: AssignForm, *, done: str = "",
                        error: str = "") -> dict[str, object]:
    return {
        "escalation": escalation, "assign_form": form, "assign_done": done, "assign_error": error,
        "panel": decision_panel(escalation, request.user, timezone.now()),
    }

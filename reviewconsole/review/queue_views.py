"""The queue page and what a reviewer does from it: search, sort and filter it, save those filters under a
name, find any case (open or not), skip a held case; and a review lead's actions on several cases at once.
Thin: validate, call, render."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role
from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Case, Client
from reviewconsole.review import case_finder, double_review, selectors, services
from reviewconsole.review.access import escalation_for_reviewer, is_lead, reviewer_required
from reviewconsole.review.forms import BulkForm, FindCaseForm, QueueFilterForm, SaveFilterForm
from reviewconsole.review.queue import queue_page
from reviewconsole.review.queue_order import sort_headers
from reviewconsole.review.services import LEAD_ONLY, AssignmentRefused, BulkAction, escalations_bulk_act

bulk_lead_required = role_required(Role.REVIEW_LEAD, refusal=LEAD_ONLY)


def _clients():
    return Client.objects.only("pk", "name")


@require_GET
@reviewer_required
@vary_on_headers("HX-Request")
def queue(request: HtmxHttpRequest) -> HttpResponse:
    return _render_queue(request, request.GET)


def _render_queue(request: HtmxHttpRequest, params: Mapping[str, str] | QueryDict, *,
                  save_form: SaveFilterForm | None = None, status: int = 200) -> HttpResponse:
    form = QueueFilterForm(params, clients=_clients())
    filters = form.filters()
    page = queue_page(filters=filters, reviewer=request.user, now=timezone.now(), position=form.position())
    template = "review/queue.html#results" if request.htmx else "review/queue.html"
    # A changed or cut-short pager link gets the first page, with why, as a 400 naming the field.
    status = 400 if form.cursor_errors else status
    query, lead = form.query(), is_lead(request.user)
    context = {
        "form": form, "filters": filters, "page": page, "now": timezone.now(), "query": query,
        "sort_headers": sort_headers(filters.sort), "lead": lead,
        "saved_filters": selectors.saved_filters_of(request.user),
        "save_form": save_form or SaveFilterForm(initial={"query": query}, clients=()),
        "bulk_form": BulkForm(initial={"query": query}) if lead else None,
    }
    if lead and not request.htmx:
        context["adjudication_waiting"] = double_review.adjudication_queue().count()
    return render(request, template, context, status=status)


def _queue_url(query: str) -> str:
    """The queue under `query`, read back through the queue's form so that only its own fields go in."""
    query = QueueFilterForm(QueryDict(query), clients=_clients()).query()
    return reverse("review:queue") + (f"?{query}" if query else "")


@require_GET
@reviewer_required
def find_case(request: HtmxHttpRequest) -> HttpResponse:
    """Any case by its number (straight to it), ticket id or words, whatever became of it."""
    form = FindCaseForm(request.GET)
    search = form.cleaned_data["q"] if form.is_valid() else ""
    number = case_finder.case_number(search)
    if number is not None and Case.objects.filter(pk=number).exists():
        return redirect("review:case", case_id=number)
    found = case_finder.cases_found(search)
    return render(request, "review/find.html", {"form": form, "search": search, "found": found,
                                                "limit": case_finder.FOUND_LIMIT},
                  status=200 if form.is_valid() else 400)


@require_POST
@reviewer_required
def saved_filter_save(request: HtmxHttpRequest) -> HttpResponse:
    form = SaveFilterForm(request.POST, clients=_clients())
    if form.is_valid():
        try:
            saved = services.queue_filter_save(owner=request.user, **form.cleaned_data)
        except services.SavedFilterRefused as refused:
            form.add_error("name", str(refused))
        else:
            messages.success(request, f"Saved these filters as “{saved.name}”.")
            return redirect(_queue_url(saved.query))
    return _render_queue(request, QueryDict(request.POST.get("query", "")), save_form=form, status=400)


@require_POST
@reviewer_required
def saved_filter_delete(request: HtmxHttpRequest, saved_filter_id: int) -> HttpResponse:
    deleted = services.queue_filter_delete(owner=request.user, saved_filter_id=saved_filter_id)
    if deleted is None:
        messages.error(request, "That saved filter is not one of yours, or it was deleted already.")
    else:
        messages.success(request, f"Deleted the saved filter “{deleted.name}”.")
    return redirect(_queue_url(request.POST.get("query", "")))


@require_POST
@reviewer_required
def case_skip(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    """Put the held case back in the queue and go on to the next one (never straight back to this one)."""
    escalation = escalation_for_reviewer(case_id)
    following = services.escalation_skip(escalation=escalation, reviewer=request.user, now=timezone.now())
    minutes = services.skip_minutes()
    messages.info(request, f"Skipped case {case_id}: it is back in the queue; Next case will not serve it to you "
                  f"again for {minutes} minute{'s' if minutes != 1 else ''}.")
    if following is None:
        messages.info(request, "No other case is waiting for you: the queue is empty, or every case is held "
                      "by a reviewer, assigned to another, one you reviewed already, or one you skipped.")
        return redirect("review:queue")
    return redirect("review:case", case_id=following.case_id)


_DONE = {
    BulkAction.ASSIGN: "Assigned {cases} to {assignee}.",
    BulkAction.UNASSIGN: "Unassigned {cases}: Next case serves them to anyone.",
    BulkAction.RETURN: "Returned {cases} to the queue: nobody holds them and they are assigned to nobody.",
}


def _cases(case_ids: list[int]) -> str:
    numbers = ", ".join(f"#{case_id}" for case_id in case_ids)
    return f"case{'s' if len(case_ids) != 1 else ''} {numbers}"


@require_POST
@bulk_lead_required
def queue_bulk(request: HtmxHttpRequest) -> HttpResponse:
    """A review lead's action on the cases ticked in the queue; back to the queue, saying what became of each."""
    form = BulkForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return _render_queue(request, QueryDict(request.POST.get("query", "")), status=400)
    data = form.cleaned_data
    action = BulkAction(data["action"])
    try:
        outcome = escalations_bulk_act(lead=request.user, action=action, case_ids=data["cases"],
                                       assignee=data["assignee"], now=timezone.now())
    except AssignmentRefused as refused:
        messages.error(request, str(refused))
        return _render_queue(request, QueryDict(data["query"]), status=refused.status_code)
    if outcome.done:
        assignee = data["assignee"].get_username() if data["assignee"] else ""
        messages.success(request, _DONE[action].format(cases=_cases(outcome.done), assignee=assignee))
    for case_id, why in outcome.refused:
        messages.warning(request, f"Case #{case_id} was left as it was: {why}")
    return redirect(_queue_url(data["query"]))

"""The reviewer's pages: a case, decisions, and "my decisions". Thin: validate, call, render.

The queue page is in queue_views.py; a review lead's own pages (adjudication, assignment) in lead_views.py."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.forms import Form
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRefresh

from reviewconsole.accounts.models import Digest
from reviewconsole.accounts.people import digest_of, digest_set
from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Candidate
from reviewconsole.review import case_page, diff, double_review, leases, selectors, services
from reviewconsole.review.access import case_escalation, escalation_for_reviewer, reviewer_required
from reviewconsole.review.approval import ApprovalCheck, approval_check
from reviewconsole.review.case_record import case_record
from reviewconsole.review.decision_panel import decision_panel
from reviewconsole.review.forms import ApproveForm, AssignForm, EditForm, NoteForm, RejectForm
from reviewconsole.review.models import (
    DecisionKind,
    EditVerification,
    EditVerificationStatus,
    Escalation,
    EscalationStatus,
    Review,
)


@require_POST
@reviewer_required
def next_case(request: HtmxHttpRequest) -> HttpResponse:
    return _to_next_case(request)


def _to_next_case(request: HtmxHttpRequest) -> HttpResponse:
    escalation = services.escalation_claim_next(reviewer=request.user, now=timezone.now())
    if escalation is None:
        messages.info(request, "No case is waiting for you: the queue is empty, or every case is held by a "
                      "reviewer, assigned to another, one you reviewed already, or one you skipped.")
        return redirect("review:queue")
    return redirect("review:case", case_id=escalation.case_id)


@require_GET
@reviewer_required
@vary_on_headers("HX-Request")
def case_detail(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    escalation = case_escalation(case_id)
    if escalation is None:
        return _render_record(request, case_id)
    if request.htmx and "older" in request.GET:
        review = case_page.case_review(escalation, viewer=request.user)
        return render(request, "review/case.html#diff", _diff_context(request, review))
    if request.htmx and request.GET.get("part") == "approval-rule":
        return _approval_rule(request, escalation)
    return _render_case(request, escalation)


def _render_record(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    """A case that never reached the queue (the engine released or rejected it), read-only: what was asked,
    the sources, every version with its claims, and what the customer was told."""
    record = case_record(case_id, timeline=False)
    if record is None:
        raise Http404("there is no case at this address.")
    return render(request, "case_record.html", {"record": record, "for_reviewer": True})


def _approval_rule(request: HtmxHttpRequest, escalation: Escalation) -> HttpResponse:
    """The approve form's override part alone, asked for after each claim label: labelling a failing claim
    supported may lift the override, labelling it refuted may bring it back. A few queries, not the page's."""
    current = Candidate.objects.filter(case_id=escalation.case_id).order_by("-position").first()
    context: dict[str, Any] = {
        "escalation": escalation,
        "approve_form": ApproveForm(initial={"override_reason": request.GET.get("override_reason", "")}),
    }
    if current is not None and decision_panel(escalation, request.user, timezone.now()).decidable:
        verification = EditVerification.objects.filter(candidate=current).first()
        context["approval"] = _approval(request, context["approve_form"], current, verification)
    return render(request, "review/case.html#approval-rule", context)


def _approval(request: HtmxHttpRequest, approve_form: ApproveForm, current: Candidate,
              verification: EditVerification | None) -> ApprovalCheck:
    """The approval rule for the viewer: their own labels count (a failing claim they labelled supported
    needs no override). Has the browser ask for the reason when one is needed."""
    approval = approval_check(
        candidate=current, reviewer=request.user,
        edit_unverified=verification is not None and verification.status == EditVerificationStatus.FAILED,
    )
    if approval.needs_override:
        approve_form.ask_for_override_reason()
    return approval


def _diff_context(request: HtmxHttpRequest, review: case_page.CaseReview) -> dict[str, Any]:
    first = review.candidates[0].candidate_id if review.candidates else ""
    older, newer, changes = case_page.candidate_diff(
        review, request.GET.get("older", first), request.GET.get("newer", "")
    )
    outside = (diff.text_changes(older.text, older.claims.all(), newer.text, newer.claims.all())
               if older is not None and newer is not None else [])
    return {"review": review, "older": older, "newer": newer, "changes": changes, "text_changes": outside}


def _render_case(
    request: HtmxHttpRequest, escalation: Escalation, *, forms: dict[str, Form] | None = None, error: str = "",
    status: int = 200,
) -> HttpResponse:
    review = case_page.case_review(escalation, version=request.GET.get("version", ""), viewer=request.user)
    context = _diff_context(request, review)
    current = review.current
    on_candidate = {"candidate_id": current.candidate_id, "sha256": current.sha256} if current else {}
    context.update(
        _lease_context(request, escalation),
        approve_form=ApproveForm(initial=on_candidate),
        edit_form=EditForm(initial={**on_candidate, "text": current.text if current else ""}),
        reject_form=RejectForm(initial=on_candidate),
        note_form=NoteForm(),
        assign_form=AssignForm(initial={"assignee": escalation.assigned_to_id}),
        error=error,
    )
    context.update(forms or {})
    if context["decidable"] and current is not None:
        context["approval"] = _approval(request, context["approve_form"], current, review.current_verification)
    return render(request, "review/case.html", context, status=status)


@require_POST
@reviewer_required
def case_lease(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    """Renew the lease while the page is open (htmx poll), or take a free case ("Claim")."""
    escalation = escalation_for_reviewer(case_id)
    now = timezone.now()
    if request.POST.get("take"):
        held = services.escalation_lease_take(escalation=escalation, reviewer=request.user, now=now)
    else:
        held = services.escalation_lease_renew(escalation=escalation, reviewer=request.user, now=now)
    if not request.htmx:
        if not held:
            reviewed = escalation.reviews_required > 1 and double_review.review_by(escalation, request.user)
            messages.error(request, "You reviewed this case already: the second review must be another reviewer's."
                           if reviewed else "Another reviewer holds this case.")
        return redirect("review:case", case_id=case_id)
    escalation.refresh_from_db(fields=["holder", "lease_expires_at"])
    return render(request, "review/case.html#lease", _lease_context(request, escalation), status=200 if held else 409)


def _lease_context(request: HtmxHttpRequest, escalation) -> dict[str, object]:
    now = timezone.now()
    holder = leases.lease_holder(escalation, now)
    panel = decision_panel(escalation, request.user, now)
    return {
        "escalation": escalation,
        "holder": holder,
        "holding": holder is not None and holder.pk == request.user.pk,
        "panel": panel,
        # Decision controls only for whoever may decide, by the services' own test: a case another
        # reviewer holds is there to read (and a decision posted anyway is still refused).
        "decidable": panel.decidable,
        # Renew well before the lease runs out, so one slow or lost request does not lose the case.
        "lease_poll_seconds": max(10, settings.REVIEW_LEASE_SECONDS // 3),
    }


@require_POST
@reviewer_required
def case_release(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    escalation = escalation_for_reviewer(case_id)
    services.escalation_lease_release(escalation=escalation, reviewer=request.user)
    messages.info(request, f"Case {case_id} is back in the queue.")
    return redirect("review:queue")


def _decide(request: HtmxHttpRequest, case_id: int, form_class, form_name: str, decide) -> HttpResponse:
    """Validate the form, call the service, then go on: a refusal re-renders the case with why."""
    escalation = escalation_for_reviewer(case_id)
    form = form_class(request.POST)
    if not form.is_valid():
        return _render_case(request, escalation, forms={form_name: form}, error=_form_error(form), status=400)
    try:
        outcome = decide(escalation, form.cleaned_data)
    except services.DecisionRefused as refused:
        if refused.field:
            form.add_error(refused.field, str(refused))
        return _render_case(request, escalation, forms={form_name: form}, error=str(refused),
                            status=refused.status_code)
    return outcome


def _form_error(form: Form) -> str:
    """What is wrong, said where the reviewer looks: a hidden field (the version the page was showing)
    has no place of its own on the page, so its error is named in the message."""
    hidden = [
        f"{name}: {' '.join(str(error) for error in form.errors[name])}" for name in form.errors
        if name in form.fields and form.fields[name].widget.is_hidden
    ]
    if hidden:
        return f"The form did not say which version it decides on ({'; '.join(hidden)}). Reload the case and try again."
    return "Check the form below."


def _close_case(request: HtmxHttpRequest, case_id: int, form_class, form_name: str, service, done: str):
    """Approve or reject, then straight on to the reviewer's next case (a lead who adjudicated goes back
    to the cases waiting for adjudication)."""

    def close(escalation, data):
        adjudicated = escalation.status == EscalationStatus.ADJUDICATION
        outcome = service(escalation_id=escalation.pk, reviewer=request.user, now=timezone.now(), **data)
        if isinstance(outcome, Review):
            messages.success(request, _review_message(outcome, case_id))
            return _to_next_case(request)
        messages.success(request, f"{done} case {case_id}.")
        return redirect("review:adjudication") if adjudicated else _to_next_case(request)

    return _decide(request, case_id, form_class, form_name, close)


def _review_message(review: Review, case_id: int) -> str:
    """What an independent review led to, once it is recorded (the other review stays unseen)."""
    status = review.escalation.status
    if status == EscalationStatus.DECIDED:
        outcome = "approved" if review.kind == DecisionKind.APPROVE else "rejected"
        return f"Your review of case {case_id} agrees with the other one: the case is {outcome}."
    if status == EscalationStatus.ADJUDICATION:
        return f"Your review of case {case_id} is recorded. The two reviews differ: a review lead decides the case."
    return f"Your review of case {case_id} is recorded. A second reviewer reviews it without seeing yours."


@require_POST
@reviewer_required
def case_approve(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    return _close_case(request, case_id, ApproveForm, "approve_form", services.decision_approve, "Approved")


@require_POST
@reviewer_required
def case_reject(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    return _close_case(request, case_id, RejectForm, "reject_form", services.decision_reject, "Rejected")


@require_POST
@reviewer_required
def case_edit(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    def edit(escalation, data):
        candidate = services.candidate_edit(
            escalation_id=escalation.pk, reviewer=request.user, now=timezone.now(), **data
        )
        messages.info(request, f"Your edit is version {candidate.candidate_id}; it is being verified again.")
        return redirect(reverse("review:case", args=[case_id]) + "#current")

    return _decide(request, case_id, EditForm, "edit_form", edit)


@require_POST
@reviewer_required
def case_note(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    escalation = escalation_for_reviewer(case_id)
    form = NoteForm(request.POST)
    if not form.is_valid():
        return _render_case(request, escalation, forms={"note_form": form}, status=400)
    services.case_note_add(escalation=escalation, author=request.user, text=form.cleaned_data["text"])
    return redirect(reverse("review:case", args=[case_id]) + "#notes")


@require_GET
@reviewer_required
@vary_on_headers("HX-Request")
def edit_status(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    """Polled by the case page while an edit is verified; once the result is in, the page reloads."""
    escalation = escalation_for_reviewer(case_id)
    review = case_page.case_review(escalation)
    if not request.htmx:
        return redirect("review:case", case_id=case_id)
    if not review.verification_pending:
        return HttpResponseClientRefresh()
    return render(request, "review/case.html#edit-status", {"review": review})


@require_GET
@reviewer_required
def my_decisions(request: HtmxHttpRequest) -> HttpResponse:
    decisions = selectors.past_decisions(request.user, limit=200)
    return render(request, "review/decisions.html", {"decisions": decisions, "digest": digest_of(request.user),
                                                     "digests": Digest.choices})


@require_POST
@reviewer_required
def my_digest(request: HtmxHttpRequest) -> HttpResponse:
    """The reviewer's choice: a daily digest of the cases assigned to them, or none."""
    try:
        digest_set(user=request.user, digest=request.POST.get("digest", ""))
    except ValueError as refused:
        return HttpResponse(str(refused), status=400, content_type="text/plain; charset=utf-8")
    messages.success(request, "Saved: " + ("a daily digest of your assigned cases." if
                                           request.POST["digest"] == Digest.DAILY else "no digest."))
    return redirect("review:my_decisions")

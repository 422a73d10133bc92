"""The team admin's pages: people and their roles. Thin: forms validate, `services` write."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role
from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Client
from reviewconsole.team import selectors, services
from reviewconsole.team.forms import (
    ClientAddForm,
    ClientWebhookForm,
    DeliveryFilterForm,
    PersonAddForm,
    PersonRolesForm,
)
from reviewconsole.webhooks import selectors as webhook_selectors
from reviewconsole.webhooks.models import WebhookDelivery

team_admin_required = role_required(Role.TEAM_ADMIN, refusal="the team pages are for team admins")


@team_admin_required
@require_http_methods(["GET", "POST"])
def people(request: HtmxHttpRequest) -> HttpResponse:
    form = PersonAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, path = services.person_add(actor=request.user, **form.cleaned_data)
        except ValidationError as error:
            _add_errors(form, error)
        else:
            return render(request, "team/invited.html",
                          {"person": user, "link": request.build_absolute_uri(path), "added": True})
    status = 400 if form.errors else 200
    return render(request, "team/people.html", {"form": form, "people": selectors.people()}, status=status)


@team_admin_required
@require_http_methods(["GET", "POST"])
def person(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    user = get_object_or_404(get_user_model(), pk=pk)
    held = sorted(selectors.roles_held(user))
    form = PersonRolesForm(request.POST or None, initial={"roles": [role.value for role in held]})
    if request.method == "POST" and form.is_valid():
        try:
            change = services.person_roles_change(actor=request.user, user=user, roles=form.cleaned_data["roles"])
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, f"Roles of {user.username} saved." if change else "Nothing changed.")
            return redirect("team:person", pk=user.pk)
    context = {"person": user, "form": form, "roles": held, "events": selectors.person_events(user)}
    return render(request, "team/person.html", context, status=400 if form.errors else 200)


@team_admin_required
@require_POST
def person_active(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    user = get_object_or_404(get_user_model(), pk=pk)
    active = request.POST.get("active")
    if active not in ("0", "1"):
        messages.error(request, "active: must be 0 or 1.")
        return redirect("team:person", pk=user.pk)
    try:
        services.person_active_set(actor=request.user, user=user, active=active == "1")
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"{user.username} can {'sign in again' if active == '1' else 'no longer sign in'}.")
    return redirect("team:person", pk=user.pk)


@team_admin_required
@require_POST
def person_invite(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    user = get_object_or_404(get_user_model(), pk=pk)
    try:
        path = services.invitation_renew(actor=request.user, user=user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("team:person", pk=user.pk)
    return render(request, "team/invited.html", {"person": user, "link": request.build_absolute_uri(path)})


@team_admin_required
@require_http_methods(["GET", "POST"])
def clients(request: HtmxHttpRequest) -> HttpResponse:
    form = ClientAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            client, token = services.client_add(actor=request.user, **form.cleaned_data)
        except ValidationError as error:
            _add_errors(form, error)
        else:
            return render(request, "team/client_secret.html", {"client": client, "token": token,
                                                                "secret": client.webhook_secret, "added": True})
    context = {"form": form, "clients": selectors.clients()}
    return render(request, "team/clients.html", context, status=400 if form.errors else 200)


@team_admin_required
@require_http_methods(["GET", "POST"])
def client(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Client, pk=pk)
    form = ClientWebhookForm(request.POST or None, initial={"webhook_url": found.webhook_url})
    if request.method == "POST" and form.is_valid():
        secret = services.client_webhook_set(actor=request.user, client=found, **form.cleaned_data)
        if secret:
            return render(request, "team/client_secret.html", {"client": found, "secret": secret})
        messages.success(request, f"Webhook of {found.name} saved.")
        return redirect("team:client", pk=found.pk)
    context = {"client": found, "form": form, "cases": selectors.client_recent_cases(found),
               "deliveries": selectors.client_delivery_counts(found)}
    return render(request, "team/client.html", context, status=400 if form.errors else 200)


@team_admin_required
@require_POST
def client_rotate(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Client, pk=pk)
    token = services.client_token_rotate(actor=request.user, client=found)
    return render(request, "team/client_secret.html", {"client": found, "token": token})


@team_admin_required
@require_POST
def client_active(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Client, pk=pk)
    active = request.POST.get("active")
    if active not in ("0", "1"):
        messages.error(request, "active: must be 0 or 1.")
    elif services.client_active_set(actor=request.user, client=found, active=active == "1"):
        outcome = "may submit again" if active == "1" else "is revoked: its token no longer works"
        messages.success(request, f"{found.name} {outcome}.")
    return redirect("team:client", pk=found.pk)


@team_admin_required
@require_http_methods(["GET"])
def webhooks(request: HtmxHttpRequest) -> HttpResponse:
    form = DeliveryFilterForm(request.GET)
    if not form.is_valid():
        invalid = {"form": form, "page": None, "counts": webhook_selectors.delivery_counts()}
        return render(request, "team/webhooks.html", invalid, status=400)
    found = webhook_selectors.deliveries(
        client_id=form.cleaned_data["client"].pk if form.cleaned_data["client"] else None,
        status=form.cleaned_data["status"] or None,
    )
    page = Paginator(found, 50).get_page(form.cleaned_data["page"] or 1)
    kept = request.GET.copy()
    kept.pop("page", None)
    context = {"form": form, "page": page, "counts": webhook_selectors.delivery_counts(), "query": kept.urlencode()}
    return render(request, "team/webhooks.html", context)


@team_admin_required
@require_POST
def webhook_resend(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    delivery = get_object_or_404(WebhookDelivery.objects.select_related("client"), pk=pk)
    if services.webhook_resend(actor=request.user, delivery=delivery):
        messages.success(request, f"Delivery {delivery.message_id} to {delivery.client.name} is being sent again.")
    else:
        messages.error(request, f"Delivery {delivery.message_id} is {delivery.get_status_display().lower()}: "
                                "only a failed delivery is sent again.")
    back = request.POST.get("back", "")
    return redirect(back if _is_local(back) else "team:webhooks")


def _is_local(path: str) -> bool:
    """Only a path on this console is followed back to (never another site)."""
    return path.startswith("/team/webhooks/") and "//" not in path and "\\" not in path


def _add_errors(form: forms.Form, error: ValidationError) -> None:
    for field, problems in error.message_dict.items():
        form.add_error(field if field in form.fields else None, problems)

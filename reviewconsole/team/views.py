"""The team admin's pages: people and their roles, API clients, webhook deliveries. Thin: forms validate,
`services` write."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role
from reviewconsole.htmx import HtmxHttpRequest
from reviewconsole.intake.models import Client
from reviewconsole.intake.quotas import Limit, client_limit
from reviewconsole.intake.webhook_destinations import destination_rule
from reviewconsole.team import selectors, services
from reviewconsole.team.forms import (
    ClientAddForm,
    ClientLimitsForm,
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
            assert path is not None, "added without a password, so invited"
            return _link_page(request, user, path, added=True)
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
@require_http_methods(["GET", "POST"])
def person_active(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """GET asks first (the Deactivate button is a link here); POST makes the change."""
    user = get_object_or_404(get_user_model(), pk=pk)
    if request.method == "GET":
        return _confirm(request, _person_active_confirmation(user))
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
    return _link_page(request, user, path)


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
            return _shown_once(request, "team/client_secret.html", {"client": client, "token": token,
                                                                     "secret": client.webhook_secret, "added": True})
    context = {"form": form, "clients": selectors.clients(), "webhook_rule": destination_rule()}
    return render(request, "team/clients.html", context, status=400 if form.errors else 200)


@team_admin_required
@require_http_methods(["GET", "POST"])
def client(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Client, pk=pk)
    form = ClientWebhookForm(request.POST or None, initial={"webhook_url": found.webhook_url})
    if request.method == "POST" and form.is_valid():
        try:
            secret = services.client_webhook_set(actor=request.user, client=found, **form.cleaned_data)
        except ValidationError as error:
            _add_errors(form, error)
        else:
            if secret:
                return _shown_once(request, "team/client_secret.html", {"client": found, "secret": secret})
            messages.success(request, f"Webhook of {found.name} saved.")
            return redirect("team:client", pk=found.pk)
    return _client_page(request, found, webhook_form=form)


@team_admin_required
@require_POST
def client_limits(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Client, pk=pk)
    form = ClientLimitsForm(request.POST)
    if not form.is_valid():
        return _client_page(request, found, limits_form=form)
    limits = {limit: form.cleaned_data[limit.value] for limit in Limit}
    changed = services.client_limits_set(actor=request.user, client=found, limits=limits)
    messages.success(request, f"Limits of {found.name} saved." if changed else "Nothing changed.")
    return redirect("team:client", pk=found.pk)


@team_admin_required
@require_POST
def client_labels(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Whether reviewers' labels of the client's cases may train scorer models used for other clients' cases."""
    found = get_object_or_404(Client, pk=pk)
    value = request.POST.get("labels_shared", "")
    if value not in ("0", "1"):
        messages.error(request, "labels_shared: must be 0 or 1")
        return _client_page(request, found, status=400)
    changed = services.client_labels_shared_set(actor=request.user, client=found, shared=value == "1")
    if not changed:
        messages.success(request, "Nothing changed.")
    elif value == "1":
        messages.success(request, f"Labels of {found.name}'s cases may now train models for other clients.")
    else:
        messages.success(request, f"Labels of {found.name}'s cases now train models for its own constitutions only.")
    return redirect("team:client", pk=found.pk)


def _client_page(request: HtmxHttpRequest, client: Client, *, webhook_form: forms.Form | None = None,
                 limits_form: forms.Form | None = None, status: int | None = None) -> HttpResponse:
    """The client's page, with the form that was posted and refused (400) or fresh ones."""
    webhook_form = webhook_form or ClientWebhookForm(initial={"webhook_url": client.webhook_url})
    own = {limit.value: getattr(client, limit.value) for limit in Limit}
    limits_form = limits_form or ClientLimitsForm(initial=own)
    # Each limit: its form field, the client's own value (None: the default) and the one in force.
    limits = [(limit, limits_form[limit.value], own[limit.value], client_limit(client, limit)) for limit in Limit]
    context = {"client": client, "form": webhook_form, "limits_form": limits_form, "limits": limits,
               "cases": selectors.client_recent_cases(client), "deliveries": selectors.client_delivery_counts(client),
               "webhook_rule": destination_rule()}
    refused = bool(webhook_form.errors or limits_form.errors)
    return render(request, "team/client.html", context, status=status or (400 if refused else 200))


@team_admin_required
@require_http_methods(["GET", "POST"])
def client_rotate(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """GET asks first; POST rotates, then redirects to the page that shows the new token once."""
    found = get_object_or_404(Client, pk=pk)
    if request.method == "GET":
        return _confirm(request, {
            "subject": found.name, "title": f"Rotate the token of {found.name}?",
            "consequence": f"{found.name}'s current token stops working at once: the client must be given the new "
                           "one, which is shown once.",
            "action": reverse("team:client_rotate", args=[found.pk]), "fields": {},
            "button": "Rotate token", "style": "danger", "cancel": reverse("team:client", args=[found.pk]),
        })
    token = services.client_token_rotate(actor=request.user, client=found)
    # Held in the session for the one GET that shows it: a reload of that page shows nothing and rotates nothing.
    request.session[_NEW_TOKEN] = {"client": found.pk, "token": token}
    return redirect("team:client_token", pk=found.pk)


@team_admin_required
@require_GET
def client_token(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Client, pk=pk)
    held = request.session.get(_NEW_TOKEN)
    token = request.session.pop(_NEW_TOKEN)["token"] if held and held.get("client") == found.pk else None
    return _shown_once(request, "team/client_secret.html",
                       {"client": found, "token": token, "token_gone": token is None})


@team_admin_required
@require_http_methods(["GET", "POST"])
def client_active(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """GET asks first (the Revoke button is a link here); POST makes the change."""
    found = get_object_or_404(Client, pk=pk)
    if request.method == "GET":
        return _confirm(request, _client_active_confirmation(found))
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
        invalid = {"form": form, "page": None, "counts": webhook_selectors.delivery_counts(),
                   "webhook_rule": destination_rule()}
        return render(request, "team/webhooks.html", invalid, status=400)
    found = webhook_selectors.deliveries(
        client_id=form.cleaned_data["client"].pk if form.cleaned_data["client"] else None,
        status=form.cleaned_data["status"] or None,
    )
    page = Paginator(found, 50).get_page(form.cleaned_data["page"] or 1)
    kept = request.GET.copy()
    kept.pop("page", None)
    context = {"form": form, "page": page, "counts": webhook_selectors.delivery_counts(), "query": kept.urlencode(),
               "webhook_rule": destination_rule()}
    return render(request, "team/webhooks.html", context)


@team_admin_required
@require_POST
def webhook_resend(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    delivery = get_object_or_404(WebhookDelivery.objects.select_related("client"), pk=pk)
    if services.webhook_resend(actor=request.user, delivery=delivery):
        messages.success(request, f"Delivery {delivery.message_id} to {delivery.client.name} is being sent again.")
    else:
        messages.error(request, f"Delivery {delivery.message_id} is {delivery.get_status_display().lower()}: "
                                "only a failed or pending delivery is sent again.")
    back = request.POST.get("back", "")
    return redirect(back if _is_local(back) else "team:webhooks")


def _is_local(path: str) -> bool:
    """Only a path on this console is followed back to (never another site)."""
    return path.startswith("/team/webhooks/") and "//" not in path and "\\" not in path


_NEW_TOKEN = "team.new_token"


def _shown_once(request: HtmxHttpRequest, template: str, context: dict[str, object]) -> HttpResponse:
    """A page showing a secret (an API token, a signing secret, a set-password link): no browser or proxy may
    keep a copy of it (`Cache-Control: no-store`), so Back or a shared cache cannot show it again."""
    response = render(request, template, context)
    add_never_cache_headers(response)
    return response


def _link_page(request: HtmxHttpRequest, user: AbstractBaseUser, path: str, *, added: bool = False) -> HttpResponse:
    link = request.build_absolute_uri(path)
    context = {"person": user, "link": link, "added": added, "hours": settings.SET_PASSWORD_LINK_HOURS}
    return _shown_once(request, "team/invited.html", context)


def _confirm(request: HtmxHttpRequest, confirmation: dict[str, object]) -> HttpResponse:
    """The page that asks before a change that cannot be taken back quietly; its form POSTs the change."""
    return render(request, "team/confirm.html", {"confirm": confirmation})


def _person_active_confirmation(user: AbstractBaseUser) -> dict[str, object]:
    back = reverse("team:person", args=[user.pk])
    if user.is_active:
        return {"subject": user.get_username(), "title": f"Deactivate {user.get_username()}?",
                "consequence": f"{user.get_username()} can no longer sign in, and every open session of the account "
                               "stops on its next request. A team admin can reactivate the account later.",
                "action": reverse("team:person_active", args=[user.pk]), "fields": {"active": "0"},
                "button": "Deactivate", "style": "danger", "cancel": back}
    return {"subject": user.get_username(), "title": f"Reactivate {user.get_username()}?",
            "consequence": f"{user.get_username()} can sign in again with the roles the account holds.",
            "action": reverse("team:person_active", args=[user.pk]), "fields": {"active": "1"},
            "button": "Reactivate", "style": "primary", "cancel": back}


def _client_active_confirmation(client: Client) -> dict[str, object]:
    back = reverse("team:client", args=[client.pk])
    if client.is_active:
        return {"subject": client.name, "title": f"Revoke {client.name}?",
                "consequence": f"{client.name}'s token is refused from now on; its cases stay. "
                               "It can be restored later.",
                "action": reverse("team:client_active", args=[client.pk]), "fields": {"active": "0"},
                "button": "Revoke", "style": "danger", "cancel": back}
    return {"subject": client.name, "title": f"Restore {client.name}?",
            "consequence": f"{client.name}'s current token works again.",
            "action": reverse("team:client_active", args=[client.pk]), "fields": {"active": "1"},
            "button": "Restore", "style": "primary", "cancel": back}


def _add_errors(form: forms.Form, error: ValidationError) -> None:
    for field, problems in error.message_dict.items():
        form.add_error(field if field in form.fields else None, problems)

"""Reads for the team pages."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from django.db.models import Count, Prefetch, QuerySet

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Client
from reviewconsole.webhooks.models import WebhookDelivery


def people() -> QuerySet:
    """Everyone with an account, active first, with their groups in one more query."""
    return (
        get_user_model().objects.order_by("-is_active", "username")
        .prefetch_related(Prefetch("groups", queryset=Group.objects.only("name")))
    )


def roles_held(user: AbstractUser) -> set[Role]:
    """The roles an account holds, whether or not it may sign in now."""
    names = {group.name for group in user.groups.all()}
    return {role for role in Role if role.value in names}


def person_events(user: AbstractUser, limit: int = 20) -> QuerySet:
    """The latest changes made to this person's account, newest first."""
    return AuditEvent.objects.filter(object_type="user", object_id=str(user.pk)).order_by("-id")[:limit]


def clients() -> QuerySet[Client]:
    """Every client, active first, each with how many cases it has sent."""
    return Client.objects.annotate(case_count=Count("cases")).order_by("-is_active", "name")


def client_recent_cases(client: Client, limit: int = 20) -> QuerySet[Case]:
    """The client's latest submissions, newest first, each with the constitution version it ran under."""
    return Case.objects.filter(client=client).order_by("-pk").select_related("constitution_pin__document").only(
        "pk", "external_id", "status", "submitted_at", "constitution_name", "client_id", "constitution_pin",
        "constitution_pin__number", "constitution_pin__sha256", "constitution_pin__document__name",
    )[:limit]


def client_delivery_counts(client: Client) -> dict[str, int]:
    """How many of the client's webhook deliveries are in each status."""
    rows = WebhookDelivery.objects.filter(client=client).values("status").annotate(n=Count("pk"))
    return {row["status"]: row["n"] for row in rows}

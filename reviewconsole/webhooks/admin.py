"""The outbox for operators: what was sent to whom, what failed and why, and a way to send it again."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from reviewconsole.webhooks.models import DeliveryStatus, WebhookDelivery
from reviewconsole.webhooks.services import delivery_retry

_ERROR_PREVIEW_CHARS = 80


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = [
        "message_id",
        "event_type",
        "client",
        "case",
        "status",
        "attempts",
        "last_status_code",
        "error_preview",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = ["status", "event_type", "client"]
    search_fields = ["message_id", "case__id", "case__external_id"]
    list_select_related = ["client", "case"]
    date_hierarchy = "created_at"
    actions = ["retry_now"]
    # The outbox is a record of what was sent; only the services change it.
    readonly_fields = [field.name for field in WebhookDelivery._meta.fields]

    @admin.display(description="last error")
    def error_preview(self, delivery: WebhookDelivery) -> str:
        error = delivery.last_error
        return error if len(error) <= _ERROR_PREVIEW_CHARS else error[: _ERROR_PREVIEW_CHARS - 1] + "…"

    @admin.action(description="Retry now (failed or pending deliveries)", permissions=["change"])
    def retry_now(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        waiting = list(queryset.filter(status__in=[DeliveryStatus.FAILED, DeliveryStatus.PENDING]))
        retried = sum(delivery_retry(delivery=delivery) for delivery in waiting)
        skipped = queryset.count() - retried
        self.message_user(request, f"{retried} delivery(ies) put back to pending and queued to send.", messages.SUCCESS)
        if skipped:
            self.message_user(request, f"{skipped} skipped: only failed or pending deliveries can be retried.",
                              messages.WARNING)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

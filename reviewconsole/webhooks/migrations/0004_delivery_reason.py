# A delivery keeps a short reason of ours for its last attempt, no longer the first 500 bytes of what the
# receiver answered: the outbox would otherwise show an internal service's page to whoever set the URL.
# Existing rows keep what they say in our words: the status for an HTTP answer, a few known failures, and
# otherwise that the earlier text is not kept.

from django.db import migrations

_OUR_OWN = ("client '", "gave up after", "refused: ")
_KNOWN = (
    ("timed out", "timed out"),
    ("Connection refused", "connection refused"),
    ("gaierror", "the host did not resolve"),
)


def _reason(status_code, text):
    if status_code is not None:
        reason = f"HTTP {status_code}"
        return f"{reason}: redirect not followed" if 300 <= status_code < 400 else reason
    if not text or text.startswith(_OUR_OWN):
        return text
    for found, reason in _KNOWN:
        if found in text:
            return reason
    return "failed before an HTTP answer (the earlier error text is not kept)"


def forwards(apps, schema_editor):
    WebhookDelivery = apps.get_model("webhooks", "WebhookDelivery")
    rows = WebhookDelivery.objects.exclude(last_reason="", last_status_code__isnull=True)
    for delivery in rows.only("pk", "last_status_code", "last_reason").iterator(chunk_size=2000):
        reason = _reason(delivery.last_status_code, delivery.last_reason)
        if reason != delivery.last_reason:
            WebhookDelivery.objects.filter(pk=delivery.pk).update(last_reason=reason)


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0003_case_failed_event"),
    ]

    operations = [
        migrations.RenameField(model_name="webhookdelivery", old_name="last_error", new_name="last_reason"),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]

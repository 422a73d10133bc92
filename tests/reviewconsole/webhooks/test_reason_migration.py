"""Migration 0004: deliveries recorded before it kept the first 500 bytes of what the receiver answered in
their last error; afterwards each keeps only a short reason of ours, and no page can show those bytes."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from reviewconsole.intake.models import Case

from .conftest import make_client

BEFORE = ("webhooks", "0003_case_failed_event")
AFTER = ("webhooks", "0004_delivery_reason")


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_a_reason_and_drops_what_receivers_answered():
    case = Case.objects.create(client=make_client("acme", webhook_url="https://hooks.partner.test/"), question="Q?")
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    executor.loader.build_graph()
    try:
        old = executor.loader.project_state(BEFORE).apps.get_model("webhooks", "WebhookDelivery")
        stored = {
            "error page": (500, "HTTP 500 Internal Server Error: <h1>INTERNAL-ONLY</h1> redis_version:7.2"),
            "redirect": (302, "HTTP 302: redirect to http://10.0.0.5/INTERNAL-ONLY not followed"),
            "not http": (None, "BadStatusLine: -ERR INTERNAL-ONLY unknown command"),
            "timeout": (None, "TimeoutError: timed out"),
            "refused": (None, "URLError: ConnectionRefusedError: [Errno 111] Connection refused"),
            "ours": (None, "client 'acme' has no webhook URL"),
            "delivered": (204, ""),
            "never tried": (None, ""),
        }
        for number, (name, (status_code, error)) in enumerate(stored.items()):
            old.objects.create(
                client_id=case.client_id,
                case_id=case.pk,
                event_type="case.released",
                message_id=f"msg_{number}_{name.replace(' ', '_')}",
                payload={},
                body="{}",
                last_status_code=status_code,
                last_error=error,
            )

        executor.loader.build_graph()
        executor.migrate([AFTER])

        migrated = executor.loader.project_state(AFTER).apps.get_model("webhooks", "WebhookDelivery")
        reasons = {row.message_id.split("_", 2)[2].replace("_", " "): row.last_reason for row in migrated.objects.all()}
        assert reasons == {
            "error page": "HTTP 500",
            "redirect": "HTTP 302: redirect not followed",
            "not http": "failed before an HTTP answer (the earlier error text is not kept)",
            "timeout": "timed out",
            "refused": "connection refused",
            "ours": "client 'acme' has no webhook URL",
            "delivered": "HTTP 204",
            "never tried": "",
        }
    finally:
        # Back to the newest schema, for the tests that follow in this database.
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

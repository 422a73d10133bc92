"""The suite runs on the database DATABASE_URL names: PostgreSQL under `make test` and CI."""

from __future__ import annotations

import os

from django.db import connection


def test_connection_vendor_matches_database_url(db):
    url = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    print(f"tests run on {connection.vendor}")


def test_role_groups_exist_after_migrate(db):
    from django.contrib.auth.models import Group

    assert set(Group.objects.values_list("name", flat=True)) >= {"reviewer", "policy admin", "support lead"}

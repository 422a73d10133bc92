from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_migrate


class AuditConfig(AppConfig):
    name = "reviewconsole.audit"
    label = "audit"

    def ready(self) -> None:
        # Where a deployment runs as two database roles, `migrate` runs as the owner and grants the other.
        from reviewconsole.audit import roles

        pre_migrate.connect(roles.refuse_migrate_as_runtime_role, sender=self)
        post_migrate.connect(roles.grant_runtime_role_after_migrate, sender=self)

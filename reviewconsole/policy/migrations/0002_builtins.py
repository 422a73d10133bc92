"""The built-in constitutions and the built-in rubric, published as version 1 of their names.

Their content is this release's: the built-ins are code, and a database created by a later release
gets that release's. An upgraded database already past this migration gets a changed or new built-in
from `manage.py sync_builtins`. Undoing it leaves the rows: cases may pin them.
"""

from __future__ import annotations

from django.db import migrations
from django.utils import timezone

from reviewconsole.policy.builtins import builtins_install


def install(apps, schema_editor) -> None:
    builtins_install(apps, now=timezone.now())


class Migration(migrations.Migration):
    dependencies = [("policy", "0001_initial")]

    operations = [migrations.RunPython(install, migrations.RunPython.noop, elidable=False)]

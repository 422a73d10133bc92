"""Which constitutions a case may name, the version of each in force, and the version a case runs under.

Versions live in the policy app as data; the engine's built-ins are there from the first migration
on, so looking a name up only reads. A case pins the exact version at submission and is run (and
re-run after a reviewer's edit) under that version, whatever is published later.
"""

from __future__ import annotations

import functools
import re

from django.db import DEFAULT_DB_ALIAS, connections

from reviewconsole.intake.models import Case
from reviewconsole.policy.models import ConstitutionVersion, VersionStatus
from verification import DEFAULT_CONSTITUTION as DEFAULT
from verification import Constitution

# The engine's rule for a constitution name; anything else (a client's junk, a NUL byte) names nothing.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
# What a pin needs of its version: the row to point at and the version string the case records.
_PIN_FIELDS = ("id", "sha256")


def constitution_pin(name: str | None) -> ConstitutionVersion | None:
    """The version in force of the named constitution ("default" when unnamed), or None when unknown.

    Every submission asks, so the lookup sends SQL the ORM compiled once per process (compiling a
    query costs more CPU here than PostgreSQL spends answering it), and reads only what a pin needs:
    the version's other fields load if asked for, as with `.only()`.
    """
    name = name or DEFAULT.name
    if not _NAME.fullmatch(name):
        return None
    sql, compiled_params, name_at = _in_force_query(DEFAULT_DB_ALIAS)
    params = list(compiled_params)  # a copy: threads of one process share the compiled query
    params[name_at] = name
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return ConstitutionVersion.from_db(DEFAULT_DB_ALIAS, list(_PIN_FIELDS), row) if row else None


@functools.cache
def _in_force_query(alias: str) -> tuple[str, tuple, int]:
    # The same rule as policy.selectors.constitution_in_force: the one published version of the name.
    unnamed = "\x00"  # no constitution's name (see _NAME): marks where the name goes among the parameters
    queryset = ConstitutionVersion.objects.filter(document__name=unnamed, status=VersionStatus.PUBLISHED)
    sql, params = queryset.values_list(*_PIN_FIELDS).query.get_compiler(alias).as_sql()
    return sql, tuple(params), next(index for index, param in enumerate(params) if param == unnamed)


def constitution_version(name: str | None) -> str | None:
    """The version string (sha256 prefix) in force of the named constitution, or None when unknown."""
    pin = constitution_pin(name)
    return pin.short_sha if pin is not None else None


def case_pin(case: Case) -> ConstitutionVersion:
    """The constitution version a stored case pinned at submission (every case has one)."""
    if case.constitution_pin is None:
        # The column is nullable only because cases predate pinning; intake pins every case it stores.
        raise ValueError(f"case {case.pk} pins no constitution version")
    return case.constitution_pin


def case_constitution(case: Case) -> Constitution:
    """The constitution a stored case runs under: the version it pinned at submission."""
    return case_pin(case).constitution()

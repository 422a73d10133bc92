"""Which constitutions a case may name, the version of each in force, and the version a case runs under.

Versions live in the policy app as data; the engine's built-ins are there from the first migration
on, so looking a name up only reads. A case pins the exact version at submission and is run (and
re-run after a reviewer's edit) under that version, whatever is published later.
"""

from __future__ import annotations

import re

from reviewconsole.intake.models import Case
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force
from verification import DEFAULT_CONSTITUTION as DEFAULT
from verification import Constitution

# The engine's rule for a constitution name; anything else (a client's junk, a NUL byte) names nothing.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")


def constitution_pin(name: str | None) -> ConstitutionVersion | None:
    """The version in force of the named constitution ("default" when unnamed), or None when unknown."""
    name = name or DEFAULT.name
    if not _NAME.fullmatch(name):
        return None
    return constitution_in_force(name)


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

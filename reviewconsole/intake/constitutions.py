"""Which constitutions a case may name, the version of each in force, and the version a case runs under.

Versions live in the policy app as data. The engine's built-ins are seeded there on first use, so a
fresh database knows the same names; a name is unknown only when neither has it. A case pins the
exact version at submission and is run (and re-run after a reviewer's edit) under that version,
whatever is published later.
"""

from __future__ import annotations

import re

from django.utils import timezone

from reviewconsole.intake.models import Case
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import builtins_seed
from verification.constitution import DEFAULT, Constitution, builtin
from verification.engine import UnknownConstitution

# The engine's rule for a constitution name; anything else (a client's junk, a NUL byte) names nothing.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")


def constitution_pin(name: str | None) -> ConstitutionVersion | None:
    """The version in force of the named constitution ("default" when unnamed), or None when unknown."""
    name = name or DEFAULT.name
    if not _NAME.fullmatch(name):
        return None
    in_force = constitution_in_force(name)
    if in_force is None and builtin(name) is not None:
        builtins_seed(now=timezone.now())
        in_force = constitution_in_force(name)
    return in_force


def constitution_version(name: str | None) -> str | None:
    """The version string (sha256 prefix) in force of the named constitution, or None when unknown."""
    pin = constitution_pin(name)
    return pin.short_sha if pin is not None else None


def case_constitution(case: Case) -> Constitution:
    """The constitution a stored case runs under: the version it pinned."""
    if case.constitution_pin_id is not None:
        return case.constitution_pin.constitution()
    # A case stored before versions were pinned by id runs under the version now in force of its name.
    pin = constitution_pin(case.constitution_name)
    if pin is None:
        raise UnknownConstitution("constitution", f"no constitution named {case.constitution_name!r}")
    return pin.constitution()

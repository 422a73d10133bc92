"""Which constitutions a case may name, the version of each in force, and the version a case runs under.

Versions live in the policy app as data; the engine's built-ins are there from the first migration
on, so looking a name up only reads. A case pins the exact version at submission and is run (and
re-run after a reviewer's edit) under that version, whatever is published later.

Every submission asks for the version in force, so each web process keeps what it found under the
configuration stamp (`reviewconsole.stamps`), which policy renews whenever a version is published or
superseded: the submission after a publish, in any process, pins the new version.
"""

from __future__ import annotations

import re

from reviewconsole import stamps
from reviewconsole.intake.models import Case
from reviewconsole.policy.models import ConstitutionVersion, VersionStatus
from verification import DEFAULT_CONSTITUTION as DEFAULT
from verification import Constitution

# The engine's rule for a constitution name; anything else (a client's junk, a NUL byte) names nothing.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
# What a pin needs of its version: the row to point at, the version string the case records and the
# number people know the version by, which the API's answer to the submission reports.
_PIN_FIELDS = ("id", "sha256", "number")
# A backstop only: a version put in force past policy's services (a shell, SQL) is pinned within this long.
CACHE_SECONDS = 30.0
# Far more than there are constitutions: only names found are kept, so unknown names never fill it.
MAX_CACHED = 256
_pins: stamps.StampCache[ConstitutionVersion] = stamps.StampCache(
    stamps.CONFIGURATION, seconds=CACHE_SECONDS, max_entries=MAX_CACHED
)


def constitution_pin(name: str | None) -> ConstitutionVersion | None:
    """The version in force of the named constitution ("default" when unnamed), or None when unknown.

    Only what a pin needs is read (the version's id and hash); its other fields load if asked for.
    """
    name = name or DEFAULT.name
    if not _NAME.fullmatch(name):
        return None
    return _pins.get(name, lambda: _pin_read(name))


def _pin_read(name: str) -> ConstitutionVersion | None:
    # The same rule as policy.selectors.constitution_in_force: the one published version of the name.
    in_force = ConstitutionVersion.objects.filter(document__name=name, status=VersionStatus.PUBLISHED)
    return in_force.only(*_PIN_FIELDS).first()


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

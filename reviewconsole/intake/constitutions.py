"""Which constitutions a case may name, and the version of each that is in force."""

from __future__ import annotations

from verification.constitution import builtin


def constitution_version(name: str) -> str | None:
    """The version in force of the named constitution, or None when none has that name."""
    found = builtin(name)
    return found.version if found is not None else None

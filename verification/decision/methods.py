"""The names of the procedures that can decide an offline verdict.

A verdict's `method` is one of these strings. The decider's own two are named here; every other is a
check's (`Check.methods()`), so the list follows the registry. The model-backed verifier's methods name
the model ("model:<id>") and are not listed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from verification.checks import registry
from verification.checks.check import Check, Role


class Method(StrEnum):
    """The decider's own methods."""

    NOT_CHECKABLE = "offline:not-checkable"
    SCORED = "offline:coverage"
    """The scorer decided: no check objected (the name is kept from the first, coverage-only scorer)."""
    WORDS_STATED = "offline:words-stated"
    """In a language no scorer reads, no check decided: how much of the claim the sources state says whether
    it is unsupported or a person's to decide."""
    LANGUAGE = "offline:language"
    """Written in a language the offline verifier does not read: a person (or the model) decides."""


def unread_methods(checks: Sequence[Check] | None = None) -> frozenset[str]:
    """The methods of the checks that find a claim the rules cannot read (`Role.UNREAD`, a bare yes or no): an
    answer is never rejected unseen for such a claim, and the cascade sends it to the model."""
    checks = registry.CHECKS if checks is None else checks
    return frozenset(method for check in checks if check.role is Role.UNREAD for method in check.methods())


def offline_methods(checks: Sequence[Check] | None = None) -> tuple[str, ...]:
    """Every method an offline verdict can carry with these checks (the registry's, unless others are given)."""
    checks = registry.CHECKS if checks is None else checks
    return (*Method, *(method for check in checks for method in check.methods()))


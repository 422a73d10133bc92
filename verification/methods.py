"""The procedures of the offline verifier that can decide a claim's state: one name each, in one place.

A verdict's `method` is one of these (a str, so run records and templates read it as they always did);
the model-backed verifier's methods name the model ("model:<id>") and are not listed here.
"""

from __future__ import annotations

from enum import StrEnum


class Method(StrEnum):
    """Which check or scorer decided an offline verdict."""

    NOT_CHECKABLE = "offline:not-checkable"
    SCORED = "offline:coverage"
    """The scorer decided: no typed check objected (the name is kept from the first, coverage-only scorer)."""
    UNGROUNDED_VALUE = "offline:ungrounded-value"
    SOURCE_CONFLICT = "offline:source-conflict"
    TYPED_MISMATCH = "offline:typed-mismatch"
    RELATION_MISMATCH = "offline:relation-mismatch"
    NAME_SWAP = "offline:name-swap"
    OPPOSITE_WORD = "offline:opposite-word"
    NEGATION_MISMATCH = "offline:negation-mismatch"
    DENIED = "offline:denied"
    WINDOW = "offline:window"
    LABEL_VALUE = "offline:label-value"
    GROUNDED = "offline:grounded"
    COMPARISON_REVERSED = "offline:comparison-reversed"
    DIRECTION_REVERSED = "offline:direction-reversed"
    NEGATION_SCOPE = "offline:negation-scope"
    QUALIFIER_RESTRICTED = "offline:qualifier-restricted"
    QUALIFIER_UNSTATED = "offline:qualifier-unstated"
    RELATION_NEGATED = "offline:relation-negated"
    RELATION_UNSTATED = "offline:relation-unstated"
    SUBJECT_UNSTATED = "offline:subject-unstated"
    CONDITION_DROPPED = "offline:condition-dropped"
    UNASSERTED = "offline:unasserted"

    @property
    def check(self) -> str:
        """The name without the verifier's prefix ("typed-mismatch")."""
        return self.value.removeprefix("offline:")

"""The `Mention`: a commitment found in a text, with what comparing it needs. Every reader in this
package (values, names, relations, negations) returns mentions, and every comparison takes them; the
class lives apart so that each of those modules can import it without importing the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from verification.types import Commitment, CommitmentKind


@dataclass(frozen=True)
class Mention:
    """A `Commitment` found in a text (same fields, same meaning), plus what comparing it needs."""

    kind: CommitmentKind
    text: str
    start: int
    end: int
    value: float | None = None
    unit: str | None = None
    parts: tuple[str | int | None, ...] = ()
    """Extra detail: (year, month, day) for dates, (subject, object, polarity) for relations."""
    role: str = ""
    """"elapsed" ("40 days ago"), "upper" ("within 30 days"), "lower" ("after 30 days") or "" (plain)."""
    bounds: tuple[float, float] | None = None
    """(low, high) of the range this value ends ("5 to 10 business days"), in the value's units."""
    per: float | None = None
    """For a rate ("$20 per month"): how many of its periods make a year."""
    label: str | None = None
    """The label of a label–value line the value stands on ("Weight" in "Weight: 1.2 kg")."""

    def to_commitment(self) -> Commitment:
        """The public, serialisable form (a value with no end, such as "lifetime", has no number)."""
        value = None if self.value is not None and math.isinf(self.value) else self.value
        return Commitment(kind=self.kind, text=self.text, start=self.start, end=self.end,
                          value=value, unit=self.unit)

    @property
    def unbounded(self) -> bool:
        """Whether the value has no end: "lifetime", "unlimited", "at any time"."""
        return self.value is not None and math.isinf(self.value)

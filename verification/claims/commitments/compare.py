"""Comparing values: whether two mentions measure the same quantity (`comparable`), state the same
value (`agree`), whether a source's value grounds a claim's (`grounds`, which also applies a limit to
an elapsed time) or states another value for it (`contradicts`, which spares a value inside a range and
a rate for another period), and the words that say a value with what completes it (`value_words`).
"""

from __future__ import annotations

import math
import re

from verification.claims.commitments.mention import Mention
from verification.claims.commitments.value_patterns import ABBREVIATED_UNITS
from verification.claims.commitments.values import _ELAPSED_AFTER, _RATE, VALUE_KINDS, _written_number

_ABBREVIATED = frozenset(unit.lower() for unit in ABBREVIATED_UNITS)


def comparable(a: Mention, b: Mention) -> bool:
    """Whether two mentions measure the same kind of thing, so that different values disagree."""
    if a.kind != b.kind or a.kind not in VALUE_KINDS:
        return False
    # "bought 40 days ago" is a time that has passed; "within 30 days" a limit: never the same quantity.
    if (a.role == "elapsed") != (b.role == "elapsed"):
        return False
    if a.kind == "number":
        return a.unit is not None and a.unit == b.unit
    if a.kind in ("money", "percentage"):
        return a.unit == b.unit
    if a.kind == "duration":
        # "every 4 hours" and "aged 12 years" are both durations but never about the same thing;
        # "at any time" has no scale and compares with either.
        return a.parts == b.parts or a.unbounded or b.unbounded
    return True


def agree(a: Mention, b: Mention) -> bool:
    """Whether two comparable mentions state the same value (money and numbers within rounding)."""
    if a.kind == "date":
        return all(x is None or y is None or x == y for x, y in zip(a.parts, b.parts, strict=False))
    if a.value is None or b.value is None:
        return a.text.lower() == b.text.lower()
    if math.isinf(a.value) or math.isinf(b.value):  # `Mention.unbounded`, asked of each pair compared
        return a.value == b.value
    first, second = a.value, b.value
    if a.per and b.per and a.per != b.per:
        # A rate is compared per year: "$20 per month" is "$240 per year".
        first, second = first * a.per, second * b.per
    if first == second:
        return True
    if abs(first - second) > 0.01 * max(abs(first), abs(second)):
        return False
    # "$212.4 million" and "$212 million" are the same figure stated at two precisions: the finer one rounds
    # to the coarser. "3073" and "3045", "75.87%" and "75.55%", or 17:00 and 17:05 are two.
    step, other_step = _step(a), _step(b)
    if step is None or other_step is None or a.per and b.per and a.per != b.per:
        return True
    return abs(first - second) <= max(step, other_step) / 2


_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _step(mention: Mention) -> float | None:
    """The precision its text states a value to, in the value's units: 0.1 million for "$212.4 million", 100
    for "1,300" (its zeros may be rounding), 0.01 for "75.87%", a minute for a time. None where no numeral
    gives it ("five")."""
    if mention.kind == "time":
        return 1.0  # a time of day is stated to the minute, in minutes
    found = _NUMERAL.search(mention.text)
    if found is None or mention.value is None:
        return None
    written = found.group().replace(",", "")
    number = float(written)
    if number == 0:
        return None
    places = -len(written.partition(".")[2]) if "." in written else len(written) - len(written.rstrip("0"))
    return 10.0 ** places * abs(mention.value / number)


def grounds(claimed: Mention, found: Mention) -> bool:
    """Whether `found`, in a source, states the claim's value or a rule that applies to it.

    Equal values ground each other; numbers agree on value alone, so a bare "400" grounds "400 freshmen"
    and "230 metres" grounds "230 meters" (only numbers with one unit can disagree); a date grounds a claim's date
    only when it is at least as precise ("2015" does not ground "March 5, 2015"); an elapsed time is
    grounded by a limit that applies to it: "bought 40 days ago" by "after 30 days", "bought 10 days
    ago" by "within 30 days". A bound never grounds the opposite bound: "up to 10 hours" does not
    state "at least 10 hours", nor "before 2019" "after 2019" (`_same_direction`).
    """
    if not _same_direction(claimed, found):
        return False
    if claimed.kind != found.kind and "number" not in (claimed.kind, found.kind):
        return False  # only a number is grounded by, or grounds, a value of another kind (below)
    if claimed.kind == found.kind == "number" and claimed.value is not None and found.value is not None:
        if claimed.unit in _ABBREVIATED and found.unit in _ABBREVIATED and claimed.unit != found.unit:
            return False  # "25 GB" is not "25 MB"
        return agree(claimed, found)
    if claimed.kind == "number" and claimed.unit is None and found.kind in ("duration", "money", "percentage"):
        # A bare "12" ("aged 12 and over") is grounded by the same number with a unit ("12 years").
        return not found.unbounded and _written_number(found) == claimed.value
    if found.kind == "number" and found.unit is None and found.bounds and claimed.kind in ("duration", "percentage"):
        # The end of a bare range ("people aged 10-24") states the number of "24 year old"; a lone bare
        # number ("3 Idiots") is too often something else.
        return not claimed.unbounded and found.value == _written_number(claimed)
    if claimed.kind == "number" and claimed.unit is None and found.kind == "date":
        # "On 12 July" without a year is read as a bare 12; "12 July 2019" states it.
        return claimed.value in (found.parts[0], found.parts[2])
    if claimed.role == "elapsed" and found.kind == "duration" == claimed.kind and found.role in ("upper", "lower"):
        if claimed.value is None or found.value is None or claimed.unbounded:
            return False
        return claimed.value > found.value if found.role == "lower" else claimed.value <= found.value
    if not comparable(claimed, found) or not agree(claimed, found):
        return False
    if claimed.kind == "date":
        return all(said is None or said == stated for said, stated in zip(claimed.parts, found.parts, strict=False))
    return True


def _same_direction(claimed: Mention, found: Mention) -> bool:
    """Whether a limit the claim states points the way the source's does, where both state one.

    A plain value and a limit ground each other ("30 days to ask" / "within 30 days"): only two limits
    that point opposite ways, an upper ("up to", "within", "before") against a lower ("at least",
    "more than", "after"), say different things about the same number.
    """
    limits = ("upper", "lower")
    return not (claimed.role in limits and found.role in limits and claimed.role != found.role)


def value_words(text: str, mention: Mention) -> str:
    """The words that say a value, with what completes it: "$20 per month", "40 days ago"."""
    end = mention.end
    completed = _RATE.match(text, end) if mention.per else _ELAPSED_AFTER.match(text, end)
    if completed and (mention.per or mention.role == "elapsed"):
        end = completed.end()
    return text[mention.start : end]


def contradicts(claimed: Mention, found: Mention) -> bool:
    """Whether `found` states another value for the same quantity as the claim's.

    A value inside a range is not another value ("7 days" against "5 to 10 days", either way round),
    and a rate for another period is not either ("$204 per year" beside "$20 per month" may be a
    discount, not a mistake).
    """
    if not comparable(claimed, found) or agree(claimed, found):
        return False
    if claimed.kind == "number" and claimed.unit is None:
        return False
    if claimed.per and found.per and claimed.per != found.per:
        return False
    if claimed.value is not None and found.value is not None:
        for inner, outer in ((claimed, found), (found, claimed)):
            if outer.bounds and outer.bounds[0] <= inner.value <= outer.bounds[1]:  # type: ignore[operator]
                return False
    return True

"""The orders the queue can be read in, and the cases past a given one in each.

Every order is total (the id breaks ties) and is the column order of an index of the open queue, read
forwards or backwards (models.py: "escalation_queue", "escalation_age"), so a page starting after any
case is an index range scan, whichever column the reviewer sorted by. Orders are over the columns a
queue cursor carries (priority, waiting time, id): sorting by a column of text would need it in every
pager link.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from django.db import models
from django.db.models import Q

QUEUE_ORDER = ("-priority", "created_at", "id")


class QueueSort(models.TextChoices):
    """How the reviewer sorted the queue: a column, and which way (the `-` ones are the other way)."""

    PRIORITY = "priority", "Highest priority first"
    PRIORITY_LOWEST = "-priority", "Lowest priority first"
    WAITING = "waiting", "Longest waiting first"
    WAITING_LEAST = "-waiting", "Most recent first"

    @property
    def column(self) -> str:
        return self.value.lstrip("-")

    @property
    def reversed(self) -> QueueSort:
        return QueueSort(self.value[1:] if self.value.startswith("-") else f"-{self.value}")


_ORDERS = {
    QueueSort.PRIORITY: QUEUE_ORDER,
    # The queue read from the bottom: lowest priority, and within it the most recent, first.
    QueueSort.PRIORITY_LOWEST: ("priority", "-created_at", "-id"),
    QueueSort.WAITING: ("created_at", "id"),
    QueueSort.WAITING_LEAST: ("-created_at", "-id"),
}


class _Place(Protocol):
    """A place in the queue, as a cursor names it."""

    @property
    def priority(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def id(self) -> int: ...


def queue_order(sort: QueueSort, *, backward: bool = False) -> tuple[str, ...]:
    """The columns to order by; `backward` reads the same order from the other end (a previous page)."""
    order = _ORDERS[sort]
    if not backward:
        return order
    return tuple(term[1:] if term.startswith("-") else f"-{term}" for term in order)


def past(place: _Place, sort: QueueSort, *, backward: bool) -> list[Q]:
    """The escalations after `place` in `sort` order (before it if `backward`), as ranges of one index:
    equal on the first columns and beyond `place` on the next, one range per column."""
    ranges = []
    order = queue_order(sort, backward=backward)
    for index, term in enumerate(order):
        column = term.lstrip("-")
        equal = {earlier.lstrip("-"): getattr(place, earlier.lstrip("-")) for earlier in order[:index]}
        beyond = "lt" if term.startswith("-") else "gt"
        ranges.append(Q(**equal, **{f"{column}__{beyond}": getattr(place, column)}))
    return ranges


@dataclass(frozen=True)
class SortHeader:
    """A sortable column's header: the order a click asks for, and the order it shows now (`aria-sort`)."""

    sort: QueueSort
    aria_sort: str


def sort_headers(current: QueueSort) -> dict[str, SortHeader]:
    """Per sortable column: a click on the column sorted by turns it round, on another sorts by it. Each
    column's first order puts the most pressing case first: highest priority, longest waiting."""
    headers = {}
    for first in (QueueSort.PRIORITY, QueueSort.WAITING):
        if current.column == first.column:
            headers[first.column] = SortHeader(current.reversed, "descending" if current == first else "ascending")
        else:
            headers[first.column] = SortHeader(first, "none")
    return headers

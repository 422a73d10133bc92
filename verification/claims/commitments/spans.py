"""The spans of a text already read as something, asked whether a new span overlaps one of them."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence


class TakenSpans:
    """Spans of a text already read as a value, asked whether a new span overlaps one.

    The same answer as `any(start < end_ and start_ < end for start_, end_ in taken)`, in logarithmic
    time: a long source has thousands of values, and each match of each pattern is checked against them.
    Kept as the union of the spans, sorted and disjoint (a non-empty span overlaps one of the spans
    exactly when it overlaps their union).
    """

    def __init__(self, spans: Sequence[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for span in spans:
            self.add(span)

    def add(self, span: tuple[int, int]) -> None:
        """Count `span` as taken."""
        start, end = span
        if start >= end:
            return  # an empty span overlaps nothing (and no pattern takes one)
        if not self._ends or start >= self._ends[-1]:
            # After every span so far, as a pattern's matches come: no search, nothing to merge.
            self._starts.append(start)
            self._ends.append(end)
            return
        first = bisect_right(self._ends, start)  # the first part of the union that ends after `start`
        last = first
        while last < len(self._starts) and self._starts[last] < end:
            last += 1
        if first < last:
            start, end = min(start, self._starts[first]), max(end, self._ends[last - 1])
        self._starts[first:last] = [start]
        self._ends[first:last] = [end]

    def __call__(self, span: tuple[int, int]) -> bool:
        """Whether `span` overlaps a span taken."""
        start, end = span
        first = bisect_right(self._ends, start)  # the first part of the union that ends after `start`
        return first < len(self._starts) and self._starts[first] < end

"""One row of the drills' table per drill, the invariants it must hold, and the table itself.

The columns (the issue's): how many pieces of work or probes the drill made (`cases`), how many of them
ended exactly as they must (`once`: finished exactly once, or refused as they must be), and what must be
zero: work still queued or running after its deadline (`stuck`), work done twice (`duplicated`), answers
that were a 5xx the product promises not to give, or no answer at all (`5xx`), and accepted work whose
rows are missing or half-written (`lost`). A drill also lists any other problem it saw; any of these fails it.
A drill that breaks something and lets it heal says how long the system took to recover (`recovered`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Row:
    drill: str
    cases: int = 0
    once: int = 0
    stuck: int = 0
    duplicated: int = 0
    server_errors: int = 0
    rows_lost: int = 0
    seconds: float = 0.0
    recovery_seconds: float | None = None
    """From the fault's end (or, where it lasts, its start) to everything settled; None where nothing heals."""
    cpu_seconds: float = 0.0
    """CPU time of the drill's own process (the deployment's processes are measured for the whole run)."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def recovered(self, seconds: float) -> None:
        self.recovery_seconds = seconds

    @property
    def passed(self) -> bool:
        return (
            self.cases > 0 and self.once == self.cases and not self.problems
            and self.stuck == self.duplicated == self.server_errors == self.rows_lost == 0
        )

    @contextmanager
    def timed(self) -> Iterator[Row]:
        wall, cpu = time.monotonic(), time.process_time()
        try:
            yield self
        finally:
            self.seconds += time.monotonic() - wall
            self.cpu_seconds += time.process_time() - cpu


HEADERS = ("drill", "cases", "finished exactly once", "stuck", "duplicated", "5xx answered", "rows lost",
           "recovered in s", "seconds", "result")


def table(rows: list[Row]) -> str:
    """The rows as an aligned plain-text table."""
    lines = [
        (row.drill, str(row.cases), str(row.once), str(row.stuck), str(row.duplicated), str(row.server_errors),
         str(row.rows_lost), "-" if row.recovery_seconds is None else f"{row.recovery_seconds:.1f}",
         f"{row.seconds:.1f}", "PASS" if row.passed else "FAIL")
        for row in rows
    ]
    widths = [max(len(cells[index]) for cells in [HEADERS, *lines]) for index in range(len(HEADERS))]

    def render(cells: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(width) if index == 0 else cell.rjust(width)
                         for index, (cell, width) in enumerate(zip(cells, widths, strict=True)))

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(HEADERS), rule, *(render(cells) for cells in lines)])


def details(rows: list[Row]) -> str:
    """What each drill noted, and every problem, under the table."""
    out: list[str] = []
    for row in rows:
        for note in row.notes:
            out.append(f"  {row.drill}: {note}")
        for problem in row.problems:
            out.append(f"  {row.drill}: PROBLEM: {problem}")
    return "\n".join(out)

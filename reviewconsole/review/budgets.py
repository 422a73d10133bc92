"""The budgets a case's run had, and how much of each it used, as the case page shows them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewconsole.intake.constitutions import case_constitution
from reviewconsole.intake.models import Case


@dataclass(frozen=True)
class Budget:
    label: str
    used: int
    limit: int | None

    @property
    def percent(self) -> int | None:
        return min(100, round(100 * self.used / self.limit)) if self.limit else None


def case_budgets(case: Case, record: dict[str, Any]) -> list[Budget]:
    metrics = record.get("metrics") or {}
    # The budgets the run had: those of the version the case pinned.
    policy = case_constitution(case).policy
    return [
        Budget("Repairs", int(metrics.get("repairs_attempted", 0)), policy.max_repairs),
        Budget("Verifier calls", int(metrics.get("verifier_calls", 0)), policy.max_verifier_calls),
        Budget("Model calls", int(metrics.get("model_calls", 0)), policy.max_model_calls),
        Budget("Time (ms)", int(metrics.get("elapsed_ms", 0)), policy.max_wall_ms),
    ]

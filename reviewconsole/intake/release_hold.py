"""Whether the gate holds an answer the engine would release: shadow mode, or an open breaker.

The engine's PERMIT is its verdict on the answer; whether the console keeps the promise it stands for is
the constitution's state. In shadow mode (its own labels cannot yet support a threshold within its budget)
and while its breaker is open (blind spot checks found its releases unsafe), such an answer goes to a
person instead, who reviews it blind, without being told that the engine would have released it.
"""

from __future__ import annotations

from reviewconsole.intake.constitutions import case_pin
from reviewconsole.intake.models import Case
from reviewconsole.policy.breaker import open_breaker
from verification import Constitution, RunRecord, Terminal

SHADOW = "SHADOW"
BREAKER = "BREAKER"


def release_hold(case: Case, record: RunRecord) -> str:
    """SHADOW or BREAKER when the gate holds the engine's release of this case for a person; "" otherwise."""
    if record.terminal is not Terminal.PERMIT or case.constitution_pin is None:
        return ""
    pin = case_pin(case)
    if open_breaker(pin.document.name, stratum=record.release_stratum) is not None:
        return BREAKER
    if Constitution.model_validate(pin.content).policy.in_shadow:
        return SHADOW
    return ""

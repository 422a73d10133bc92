"""Severity tiers: what a MINOR claim that cannot be released as written does to its answer.

Once repairs are done, a claim that is not supported, or is supported below the release threshold of
the path that decided it, holds the answer for a person. A constitution may let MINOR ones out instead
(`Policy.minor_unsupported`): "remove" takes them out of the answer, "note" keeps them followed by the
constitution's note (a contradicted one is taken out: a note never carries what the sources deny). Only
when every claim holding the answer is MINOR; a CRITICAL or MODERATE one always holds it. The changed
answer is verified as a new candidate and let out only when it is the same answer otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verification.decision.calibration import ReleaseCalibration, held_back
from verification.loop.cohesion import claim_core
from verification.loop.contract import Operation, rule_passed
from verification.loop.edits import tiered_text
from verification.loop.stop_policy import Outcome
from verification.policy.constitution import MinorTier, Policy
from verification.types import Candidate, Claim, Reason, Severity, State, Terminal


@dataclass(frozen=True)
class TierPlan:
    """The answer a tier lets out, and what it did to the claims that held it."""

    text: str
    removed: tuple[str, ...]
    noted: tuple[str, ...]

    @property
    def operation(self) -> Operation:
        return Operation.NOTE_CLAIM if self.noted else Operation.OMIT_CLAIM

    @property
    def outcome(self) -> Outcome:
        """PERMIT, saying which claims went out how."""
        if self.noted:
            without = f", without {', '.join(self.removed)}" if self.removed else ""
            return Outcome(Terminal.PERMIT, Reason.MINOR_CLAIMS_NOTED,
                           f"released with the constitution's note after MINOR claims {', '.join(self.noted)}{without}")
        return Outcome(Terminal.PERMIT, Reason.MINOR_CLAIMS_REMOVED,
                       f"released without MINOR claims {', '.join(self.removed)}")


def holding(
    candidate: Candidate, calibration: ReleaseCalibration | None,
    path_calibrations: Mapping[str, ReleaseCalibration | None], failing: Sequence[Claim] = (),
) -> list[Claim]:
    """The claims that hold `candidate` back: `failing`, and the SUPPORTED ones below the threshold of the
    path that decided them."""
    offline = calibration.for_answer(candidate.claims) if calibration is not None else None
    below = [c for c in candidate.claims
             if (gate := path_calibrations.get(c.decided_by or "", offline)) is not None and held_back([c], gate)]
    return [*failing, *below]


def plan(candidate: Candidate, holding: Sequence[Claim], policy: Policy) -> TierPlan | None:
    """What the policy's tier makes of `candidate`; None when it holds the answer for a person."""
    tier = policy.minor_unsupported
    if tier is MinorTier.HOLD or not holding or any(c.severity is not Severity.MINOR for c in holding):
        return None
    removed = [c for c in holding if tier is MinorTier.REMOVE or c.state in (State.REFUTED, State.CONFLICTING)]
    noted = [c for c in holding if c not in removed]
    return TierPlan(tiered_text(candidate.text, removed, noted, policy.minor_note),
                    tuple(c.id for c in removed), tuple(c.id for c in noted))


def failure(parent: Candidate, child: Candidate, tiered: TierPlan) -> str:
    """Why `child` is not `parent` less the removed claims and with notes after the noted ones; "" when it is."""
    before = {c.id: c for c in parent.claims}
    after = {c.id: c for c in child.claims}
    problems = [f"{i} still in the answer" for i in tiered.removed if i in after]
    problems += [f"{i} changed by its note" for i in tiered.noted
                 if i not in after or after[i].state is not before[i].state]
    for claim_id, claim in before.items():
        if claim_id in tiered.removed or claim_id in tiered.noted:
            continue
        kept = after.get(claim_id)
        if kept is None or claim_core(kept.text) != claim_core(claim.text) or kept.state is not claim.state:
            problems.append(f"{claim_id} lost or changed")
    problems += [f"{i} is new" for i in after if i not in before]
    problems += [f"rule {v.rule} now fails" for v in parent.rule_verdicts
                 if v.passed and rule_passed(child, v.rule) is False]
    return "; ".join(problems)

"""Critic factories for calibration tests, named by dotted path in POLICY_CALIBRATION_CRITIC."""

from __future__ import annotations

from reviewconsole.policy.calibration import Critic


def lenient_critic(rubric, constitution) -> Critic:
    """A deliberately broken critic: it finds nothing, so it passes every known-bad draft."""
    return Critic("lenient", lambda fixture: [])


def exploding_critic(rubric, constitution) -> Critic:
    def run(fixture):
        raise RuntimeError("the critic broke")

    return Critic("exploding", run)

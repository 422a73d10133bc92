"""Writes the workbench asks for. It owns no table: a constitution version is saved through policy's services,
which audit it as every policy change is audited."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.policy import services as policy_services
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.workbench.labelled_answers import reviewer_labels
from reviewconsole.workbench.release_gate import budget_outcome, verifier_in_use
from verification import Constitution


class GateRefused(Exception):
    """A recalibration that cannot be saved; `field` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def release_calibration_draft_save(
    *, constitution: str, max_unsafe_release_rate: float, author: User, now: datetime
) -> ConstitutionVersion:
    """A draft of `constitution`, based on the version in force, whose budget is `max_unsafe_release_rate`
    and whose release calibration is the engine's, computed now on reviewers' labels, with its provenance.

    The draft goes into force only when published, after the same confirmation as any draft. The labels
    are read again here rather than trusted from the page: the draft holds what they say at saving time.
    """
    with transaction.atomic():
        in_force = constitution_in_force(constitution)
        if in_force is None:
            raise GateRefused("constitution", f"{constitution} has no version in force to recalibrate")
        verifier = verifier_in_use()
        labels = reviewer_labels(constitution=constitution, verifier=verifier.name)
        outcome = budget_outcome(labels, max_unsafe_release_rate, verifier, now=now)
        if not outcome.met or outcome.calibration is None:  # met implies a calibration
            raise GateRefused("max_unsafe_release_rate", f"no threshold qualifies for {max_unsafe_release_rate:.1%}: "
                              f"{outcome.why_not}")
        calibration = outcome.calibration
        content = in_force.content
        recalibrated = Constitution.model_validate({**content, "policy": {
            **content.get("policy", {}), "max_unsafe_release_rate": max_unsafe_release_rate,
            "release_calibration": calibration.model_dump(mode="json"),
        }})
        note = (f"release gate from reviewer labels: threshold {calibration.threshold:.4f} for at most "
                f"{max_unsafe_release_rate:.1%} unsafe releases, {len(labels.answers)} labelled answers")
        return policy_services.constitution_draft_save(constitution=recalibrated, author=author, note=note,
                                                       based_on=in_force)

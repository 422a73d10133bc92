"""Calibration: run a critic over a rubric version's fixtures and score it, fixture by fixture.

Which critic runs is a setting (POLICY_CALIBRATION_CRITIC, a dotted path to a factory), so the same
run can score the console's critic or, in tests, a deliberately broken one that must be caught.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.module_loading import import_string

from reviewconsole import work_claims
from reviewconsole.policy.engine import configured_model
from reviewconsole.policy.models import CalibrationRun, CalibrationStatus, CalibrationTrigger, RubricVersion
from reviewconsole.policy.rubrics import RubricContent
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.queues import enqueue_on_commit, task_hold
from verification import DEFAULT_CONSTITUTION as DEFAULT
from verification import CalibrationFixture, Constitution, CriticRun, builtin, calibrate_critic, calibration_critic
from verification.types import Finding


@dataclass(frozen=True)
class Critic:
    """A critic to calibrate, and how a run record names it."""

    name: str
    run: CriticRun


CriticFactory = Callable[[RubricContent, Constitution], Critic]


def console_critic(rubric: RubricContent, constitution: Constitution) -> Critic:
    """The critic cases get: the engine's first-candidate findings under the constitution, through the
    configured model when there is one (offline otherwise)."""
    model = configured_model()
    name = f"model:{model.model_id}" if model is not None else "offline"
    return Critic(name, calibration_critic(model=model, constitution=constitution, rubric=rubric.instructions))


def rubric_constitution(rubric: RubricContent) -> Constitution:
    in_force = constitution_in_force(rubric.constitution)
    if in_force is not None:
        return in_force.constitution()
    return builtin(rubric.constitution) or DEFAULT


def calibration_request(
    *, rubric_version: RubricVersion, trigger: str = CalibrationTrigger.MANUAL, requested_by=None
) -> CalibrationRun:
    """Queue a calibration run of `rubric_version`; a worker runs it (`policy.calibrate`)."""
    from reviewconsole.policy.tasks import calibrate as calibrate_task

    with transaction.atomic():
        run = CalibrationRun.objects.create(
            rubric_version=rubric_version, trigger=trigger, requested_by=requested_by,
            fixtures_total=len(rubric_version.content.get("fixtures") or []),
        )
        enqueue_on_commit(calibrate_task, run.pk)
    return run


def calibration_execute(*, run_id: int) -> CalibrationRun | None:
    """Claim a queued run, score the critic fixture by fixture (progress is saved after each one), and
    store the rates. None when the run is not ours: another worker has it, or it is finished.

    A rubric that cannot be scored fails the run with its reason, for an admin to see on the run; a
    transient failure a retry will come for hands the run back to the queue instead.
    """
    now = timezone.now()
    # A run taken over from a dead worker starts again from the first fixture.
    claim = work_claims.claim(
        CalibrationRun.work_kind, work_id=run_id, now=now, deadline=now + task_hold(), fixtures_done=0, results=[]
    )
    if claim is None:
        return None
    held = CalibrationRun.objects.filter(pk=run_id, claim_token=claim.token)
    with work_claims.settling(claim):
        run = CalibrationRun.objects.select_related("rubric_version").get(pk=run_id)
        rubric = RubricContent.model_validate(run.rubric_version.content)
        constitution = rubric_constitution(rubric)
        factory: CriticFactory = import_string(settings.POLICY_CALIBRATION_CRITIC)
        critic = factory(rubric, constitution)
        held.update(critic=critic.name[:200], constitution_pinned=constitution.pinned)
        fixtures = [fixture.calibration_fixture() for fixture in rubric.fixtures]
        findings: dict[str, Sequence[Finding]] = {}
        results = []
        for fixture in fixtures:
            findings[fixture.name] = critic.run(fixture)
            results.append(_fixture_result(fixture, findings[fixture.name]))
            held.update(fixtures_done=F("fixtures_done") + 1, results=results)
        # The engine's own scoring, over the findings already gathered: one definition of the rates.
        score = calibrate_critic(fixtures, lambda fixture: findings[fixture.name])
        work_claims.finish(
            claim, status=CalibrationStatus.DONE, now=timezone.now(), catch_rate=score.catch_rate,
            false_alarm_rate=score.false_alarm_rate,
        )
    return CalibrationRun.objects.get(pk=run_id)


def calibrations_sweep(*, now: datetime) -> list[int]:
    """Runs a worker lost (it died, or the message was lost): run again, or failed out of attempts."""
    from reviewconsole.policy.tasks import calibrate as calibrate_task

    lost = work_claims.sweep(CalibrationRun.work_kind, now=now)
    for run_id in lost:
        enqueue_on_commit(calibrate_task, run_id)
    return lost


def _fixture_result(fixture: CalibrationFixture, findings: Sequence[Finding]) -> dict[str, object]:
    flagged = bool(findings)
    return {
        "name": fixture.name,
        "bad": fixture.bad,
        "flagged": flagged,
        # A bad fixture must be flagged, a good one must not: "ok" is whether the critic got it right.
        "ok": flagged == fixture.bad,
        "findings": [finding.model_dump(mode="json") for finding in findings],
    }

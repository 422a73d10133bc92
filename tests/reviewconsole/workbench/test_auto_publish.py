"""A constitution in shadow mode that opted in publishes its own threshold once its labels allow one, audited
with the console as the actor; one that did not opt in waits for its admin."""

from __future__ import annotations

from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.policy.breaker import breaker_trip
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.workbench.tasks import auto_publish_calibrations
from tests.reviewconsole.workbench.test_release_gate import Seed
from verification import Constitution, Policy

S, R = "SUPPORTED", "REFUTED"


def _shadowed(name: str, admin, *, auto: bool) -> None:
    policy = Policy(shadow=True, max_unsafe_release_rate=0.1, auto_publish_calibration=auto)
    draft = constitution_draft_save(constitution=Constitution(name=name, policy=policy), author=admin)
    version_publish(version=draft, actor=admin, now=timezone.now())


def _label(seed: Seed, name: str, inconsistent: int) -> None:
    for _ in range(20):
        seed.answer(seed.case(constitution=name), (S, 1.0, (S,)))
    for _ in range(inconsistent):
        seed.answer(seed.case(constitution=name), (R, 0.0, (R,)))


def test_an_opted_in_constitution_publishes_its_threshold_once_the_labels_allow_one(policy_admin, reviewer):
    _shadowed("shop", policy_admin, auto=True)
    _shadowed("bank", policy_admin, auto=False)
    seed = Seed(client_create(name="bot")[0], [reviewer])
    _label(seed, "shop", 20)  # 0 of 20 bounds the rate at 13.9%: not yet within 10%
    _label(seed, "bank", 30)
    assert auto_publish_calibrations() == 0
    assert constitution_in_force("shop").number == 1

    _label(seed, "shop", 10)  # 0 of 30: 9.5%
    assert auto_publish_calibrations() == 1
    shop = constitution_in_force("shop")
    assert shop.number == 2 and not shop.constitution().policy.in_shadow
    assert shop.constitution().policy.release_calibration.threshold == 1.0
    assert AuditEvent.objects.filter(action="policy.changed", actor="system", payload__name="shop",
                                     payload__change="published").exists()
    assert constitution_in_force("bank").number == 1  # its admin publishes it
    assert auto_publish_calibrations() == 0  # out of shadow mode: nothing more to do


def test_the_index_says_which_constitutions_run_in_shadow_mode_or_are_stopped(client, policy_admin):
    _shadowed("shop", policy_admin, auto=False)
    _shadowed("bank", policy_admin, auto=False)
    breaker_trip(constitution="bank", now=timezone.now(), evidence={
        "spot_checks": 3, "unsafe": 2, "estimate": 0.6667, "interval": [0.2, 0.9], "budget": 0.1,
        "since": "2000-01-01T00:00:00+00:00", "unsafe_cases": []})
    client.force_login(policy_admin)
    html = client.get("/policy/release-gate/").content.decode()
    shop = html[html.index('data-constitution="shop"'):]
    bank = html[html.index('data-constitution="bank"'):]
    assert "shadow mode" in shop[:shop.index("</tr>")]
    assert "releases stopped" in bank[:bank.index("</tr>")]
    default = html[html.index('data-constitution="default"'):]
    assert "shadow mode" not in default[:default.index("</tr>")]

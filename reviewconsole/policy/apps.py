from __future__ import annotations

from django.apps import AppConfig


class PolicyConfig(AppConfig):
    name = "reviewconsole.policy"
    label = "policy"
    verbose_name = "Policy: constitutions, rubrics and calibration"

    def ready(self) -> None:
        from celery.signals import worker_init, worker_process_init

        from reviewconsole.policy.engine import load_scorer

        # At start-up, so a bad model file stops the process before it takes work; never per case.
        load_scorer()
        # A prefork worker's children each load their own (a model session does not survive a fork), before
        # their first task rather than during it.
        worker_process_init.connect(_load_in_child, dispatch_uid="policy.load_scorer", weak=False)
        # A solo or threaded worker does its work in the process that started: it settles there.
        worker_init.connect(_settle, dispatch_uid="policy.settle_heap", weak=False)


def _load_in_child(**_: object) -> None:
    from reviewconsole.policy.engine import load_scorer

    load_scorer()
    _settle()


def _settle(**_: object) -> None:
    from verification import settle_heap

    settle_heap()

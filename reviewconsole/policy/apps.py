from __future__ import annotations

from django.apps import AppConfig


class PolicyConfig(AppConfig):
    name = "reviewconsole.policy"
    label = "policy"
    verbose_name = "Policy: constitutions, rubrics and calibration"

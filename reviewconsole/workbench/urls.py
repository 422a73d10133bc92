from __future__ import annotations

from django.urls import path

from reviewconsole.workbench.views import health, release_gate, scorer, tryout

app_name = "workbench"

# Under /policy/ beside the policy pages: to the admin they are the same place.
urlpatterns = [
    path("constitutions/<document:name>/v<int:number>/try", tryout.version_try, name="constitution_try"),
    path("constitutions/<document:name>/release-gate/", release_gate.release_gate_page, name="release_gate"),
    path("constitutions/<document:name>/release-gate/draft", release_gate.release_gate_draft,
         name="release_gate_draft"),
    path("constitutions/<document:name>/release-gate/publish", release_gate.release_gate_publish,
         name="release_gate_publish"),
    path("constitutions/<document:name>/release-gate/breaker/close", release_gate.release_gate_breaker_close,
         name="release_gate_breaker_close"),
    path("release-gate/", release_gate.release_gate_list, name="release_gates"),
    path("constitutions/<document:name>/scorer/", scorer.scorer, name="scorer"),
    path("constitutions/<document:name>/scorer/retrain", scorer.retrain, name="scorer_retrain"),
    path("constitutions/<document:name>/scorer/rollback", scorer.rollback, name="scorer_rollback"),
    path("constitutions/<document:name>/training-set.jsonl", scorer.training_set_jsonl, name="training_set"),
    path("scorer-models/<int:number>/", scorer.model_page, name="scorer_model"),
    path("scorer-models/<int:number>/promote", scorer.promote, name="scorer_promote"),
    path("rule-health/", health.rule_health_page, name="rule_health"),
]

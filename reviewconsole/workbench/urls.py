from __future__ import annotations

from django.urls import path

from reviewconsole.workbench.views import health, tryout

app_name = "workbench"

# Under /policy/ beside the policy pages: to the admin they are the same place.
urlpatterns = [
    path("constitutions/<document:name>/v<int:number>/try", tryout.version_try, name="constitution_try"),
    path("rule-health/", health.rule_health_page, name="rule_health"),
]

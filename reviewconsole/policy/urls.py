from __future__ import annotations

from django.urls import path, register_converter

from reviewconsole.policy.views import constitutions, rubrics


class DocumentName:
    """A constitution or rubric name as the engine allows it; anything else is a 404 before any query."""

    regex = r"[a-z0-9][a-z0-9._-]{0,99}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(DocumentName, "document")

app_name = "policy"

urlpatterns = [
    path("", constitutions.constitution_list, name="constitutions"),
    path("constitutions/new", constitutions.constitution_create, name="constitution_create"),
    path("constitutions/<document:name>/", constitutions.constitution_detail, name="constitution"),
    path("constitutions/<document:name>/guidelines", constitutions.constitution_guidelines,
         name="constitution_guidelines"),
    path("constitutions/<document:name>/v<int:number>/", constitutions.version_detail, name="constitution_version"),
    path("constitutions/<document:name>/v<int:number>/edit", constitutions.constitution_edit, name="constitution_edit"),
    path("constitutions/<document:name>/v<int:number>/publish", constitutions.version_publish,
         name="constitution_publish"),
    path("rubrics/", rubrics.rubric_list, name="rubrics"),
    path("rubrics/<document:name>/", rubrics.rubric_detail, name="rubric"),
    path("rubrics/<document:name>/threshold", rubrics.rubric_threshold, name="rubric_threshold"),
    path("rubrics/<document:name>/v<int:number>/", rubrics.rubric_version_detail, name="rubric_version"),
    path("rubrics/<document:name>/v<int:number>/edit", rubrics.rubric_edit, name="rubric_edit"),
    path("rubrics/<document:name>/v<int:number>/publish", rubrics.rubric_publish, name="rubric_publish"),
    path("rubrics/<document:name>/v<int:number>/calibrate", rubrics.calibration_start, name="calibration_start"),
    path("calibration/<int:run_id>/", rubrics.calibration_run, name="calibration_run"),
]

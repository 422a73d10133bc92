from __future__ import annotations

from django.urls import path, re_path

from reviewconsole.api import views as api

urlpatterns = [
    path("v1/cases", api.cases, name="api-cases"),
    path("v1/cases/<int:case_id>", api.case_detail, name="api-case"),
    path("v1/openapi.json", api.openapi, name="api-openapi"),
    # Last: any other path under /api/ gets the API's JSON 404, not the console's HTML page.
    re_path(r"^(?P<path>.*)$", api.not_found),
]

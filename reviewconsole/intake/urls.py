from __future__ import annotations

from django.urls import path

from reviewconsole.intake import api

urlpatterns = [
    path("cases", api.cases, name="api-cases"),
    path("cases/<int:case_id>", api.case_detail, name="api-case"),
    path("openapi.json", api.openapi, name="api-openapi"),
]

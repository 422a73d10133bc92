from __future__ import annotations

from django.urls import path

from reviewconsole.support import chain_check_views, trend_views, views

app_name = "audit"

urlpatterns = [
    path("", views.events, name="events"),
    path("cases/", views.cases, name="cases"),
    path("cases/<int:case_id>/", views.case_detail, name="case"),
    path("exports/", views.exports, name="exports"),
    path("exports/new", views.export_create, name="export_create"),
    path("exports/<int:export_id>/", views.export_detail, name="export"),
    path("exports/<int:export_id>/download", views.export_download, name="export_download"),
    path("chain-checks/", chain_check_views.chain_checks, name="chain_checks"),
    path("chain-checks/new", chain_check_views.chain_check_start, name="chain_check_start"),
    path("chain-checks/<int:check_id>/", chain_check_views.chain_check_detail, name="chain_check"),
    path("metrics/", views.metrics, name="metrics"),
    path("metrics/<slug:series>.csv", trend_views.metrics_csv, name="metrics_csv"),
]

from __future__ import annotations

from django.urls import path

from reviewconsole.review import label_views, lead_views, views

app_name = "review"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("next", views.next_case, name="next"),
    path("decisions/", views.my_decisions, name="my_decisions"),
    path("adjudication/", lead_views.adjudication, name="adjudication"),
    path("cases/<int:case_id>/", views.case_detail, name="case"),
    path("cases/<int:case_id>/lease", views.case_lease, name="lease"),
    path("cases/<int:case_id>/release", views.case_release, name="release"),
    path("cases/<int:case_id>/approve", views.case_approve, name="approve"),
    path("cases/<int:case_id>/edit", views.case_edit, name="edit"),
    path("cases/<int:case_id>/reject", views.case_reject, name="reject"),
    path("cases/<int:case_id>/notes", views.case_note, name="note"),
    path("cases/<int:case_id>/assign", lead_views.case_assign, name="assign"),
    path("cases/<int:case_id>/edit-status", views.edit_status, name="edit_status"),
    path("cases/<int:case_id>/claims/<int:claim_pk>/label", label_views.claim_label, name="claim_label"),
]

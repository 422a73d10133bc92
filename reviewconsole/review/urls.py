from __future__ import annotations

from django.urls import path

from reviewconsole.review import (
    claim_views,
    error_tag_views,
    label_views,
    lead_views,
    progress_views,
    queue_views,
    views,
)

app_name = "review"

urlpatterns = [
    path("", queue_views.queue, name="queue"),
    path("bulk", queue_views.queue_bulk, name="bulk"),
    path("saved-filters/", queue_views.saved_filter_save, name="saved_filter_save"),
    path("saved-filters/<int:saved_filter_id>/delete", queue_views.saved_filter_delete, name="saved_filter_delete"),
    path("next", views.next_case, name="next"),
    path("decisions/", views.my_decisions, name="my_decisions"),
    path("decisions/digest", views.my_digest, name="my_digest"),
    path("adjudication/", lead_views.adjudication, name="adjudication"),
    path("cases/", queue_views.find_case, name="find"),
    path("cases/<int:case_id>/", views.case_detail, name="case"),
    path("cases/<int:case_id>/lease", views.case_lease, name="lease"),
    path("cases/<int:case_id>/release", views.case_release, name="release"),
    path("cases/<int:case_id>/skip", queue_views.case_skip, name="skip"),
    path("cases/<int:case_id>/approve", views.case_approve, name="approve"),
    path("cases/<int:case_id>/edit", views.case_edit, name="edit"),
    path("cases/<int:case_id>/reject", views.case_reject, name="reject"),
    path("cases/<int:case_id>/notes", views.case_note, name="note"),
    path("cases/<int:case_id>/assign", lead_views.case_assign, name="assign"),
    path("cases/<int:case_id>/edit-status", views.edit_status, name="edit_status"),
    path("cases/<int:case_id>/claims/<int:claim_pk>/label", label_views.claim_label, name="claim_label"),
    path("cases/<int:case_id>/claims/<int:claim_pk>/label/undo", claim_views.label_undo, name="label_undo"),
    path("cases/<int:case_id>/claims/<int:claim_pk>/comments", claim_views.claim_comment, name="claim_comment"),
    path("cases/<int:case_id>/undo", claim_views.decision_undo, name="decision_undo"),
    path("cases/<int:case_id>/error-tags", error_tag_views.error_tag, name="error_tag"),
    path("team/", progress_views.team, name="team"),
    path("my-day", progress_views.my_day, name="my_day"),
]

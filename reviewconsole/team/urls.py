from __future__ import annotations

from django.urls import path

from reviewconsole.team import views

app_name = "team"

urlpatterns = [
    path("people/", views.people, name="people"),
    path("people/<int:pk>/", views.person, name="person"),
    path("people/<int:pk>/active", views.person_active, name="person_active"),
    path("people/<int:pk>/invite", views.person_invite, name="person_invite"),
    path("clients/", views.clients, name="clients"),
    path("clients/<int:pk>/", views.client, name="client"),
    path("clients/<int:pk>/rotate", views.client_rotate, name="client_rotate"),
    path("clients/<int:pk>/token", views.client_token, name="client_token"),
    path("clients/<int:pk>/active", views.client_active, name="client_active"),
    path("clients/<int:pk>/limits", views.client_limits, name="client_limits"),
    path("clients/<int:pk>/labels", views.client_labels, name="client_labels"),
    path("webhooks/", views.webhooks, name="webhooks"),
    path("webhooks/<int:pk>/resend", views.webhook_resend, name="webhook_resend"),
]

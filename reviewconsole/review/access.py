"""Who may open the review console: signed-in reviewers. Anonymous users sign in; other roles get 403."""

from __future__ import annotations

from django.shortcuts import get_object_or_404

from reviewconsole.accounts.access import role_required
from reviewconsole.accounts.roles import Role
from reviewconsole.review.models import Escalation

# Sends anonymous users to sign in and refuses signed-in users without the reviewer role.
reviewer_required = role_required(Role.REVIEWER, refusal="the review console is for reviewers")


def escalation_for_reviewer(case_id: int) -> Escalation:
    """The escalation of a case a reviewer may see: any case that was sent to the review queue.

    A case that never needed a person (released or rejected by the engine without a spot check) is
    not part of the console, so it answers 404 rather than leaking that it exists.
    """
    queryset = Escalation.objects.select_related("case__client", "case__constitution_pin__document", "holder")
    return get_object_or_404(queryset, case_id=case_id)

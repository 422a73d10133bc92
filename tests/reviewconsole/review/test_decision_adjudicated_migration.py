"""Migration 0010's backfill: a decision taken before the `adjudicated` column is marked adjudicated when it
settled two independent reviews that disagreed, and only then."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.reviewconsole.review.conftest import latest

BEFORE = ("review", "0009_reviewer_progress_comments_undo")
AFTER = ("review", "0010_decision_adjudicated")


@pytest.mark.django_db(transaction=True)
def test_the_migration_marks_the_decisions_that_settled_disagreeing_reviews(escalate, reviewer, second_reviewer, lead):
    disputed, on_two_versions = escalate(), escalate(external_id="ticket-2")
    agreed, single = escalate(external_id="ticket-3"), escalate(external_id="ticket-4")
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    executor.loader.build_graph()

    try:
        old = executor.loader.project_state(BEFORE).apps
        Escalation, Review, Decision = (old.get_model("review", name) for name in ("Escalation", "Review", "Decision"))
        Candidate = old.get_model("intake", "Candidate")

        def review(case, person, kind, candidate=None) -> None:
            Review.objects.create(escalation_id=Escalation.objects.get(case_id=case.pk).pk, reviewer_id=person.pk,
                                  kind=kind, candidate_id=(candidate or latest(case)).pk)

        def decide(case, person, kind) -> None:
            Decision.objects.create(case_id=case.pk, reviewer_id=person.pk, kind=kind, candidate_id=latest(case).pk)

        review(disputed, reviewer, "APPROVE")
        review(disputed, second_reviewer, "REJECT")
        decide(disputed, lead, "REJECT")
        # Both approved, but different versions: that is a disagreement too.
        first_version = Candidate.objects.filter(case_id=on_two_versions.pk).order_by("position").first()
        review(on_two_versions, reviewer, "APPROVE", first_version)
        review(on_two_versions, second_reviewer, "APPROVE")
        decide(on_two_versions, lead, "APPROVE")
        review(agreed, reviewer, "APPROVE")
        review(agreed, second_reviewer, "APPROVE")
        decide(agreed, second_reviewer, "APPROVE")
        decide(single, reviewer, "REJECT")

        executor.loader.build_graph()
        executor.migrate([AFTER])

        migrated = executor.loader.project_state(AFTER).apps.get_model("review", "Decision")
        assert dict(migrated.objects.values_list("case_id", "adjudicated")) == {
            disputed.pk: True, on_two_versions.pk: True, agreed.pk: False, single.pk: False,
        }
    finally:
        # Back to the newest schema, for the tests that follow in this database.
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

from django.db import migrations, models


def _mark_adjudicated(apps, schema_editor):
    """Decisions taken before the column: a case whose independent reviews disagreed was decided by a lead."""
    Decision = apps.get_model("review", "Decision")
    Review = apps.get_model("review", "Review")
    verdicts: dict[int, set[tuple[str, int]]] = {}
    for case_id, kind, candidate_id in Review.objects.values_list("escalation__case_id", "kind", "candidate_id"):
        verdicts.setdefault(case_id, set()).add((kind, candidate_id))
    disagreed = [case_id for case_id, seen in verdicts.items() if len(seen) > 1]
    Decision.objects.filter(case_id__in=disagreed, kind__in=["APPROVE", "REJECT"]).update(adjudicated=True)


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0009_reviewer_progress_comments_undo"),
    ]

    operations = [
        migrations.AddField(
            model_name="decision",
            name="adjudicated",
            field=models.BooleanField(
                default=False, help_text="A review lead took it, settling two independent reviews that disagreed",
            ),
        ),
        migrations.RunPython(_mark_adjudicated, migrations.RunPython.noop),
    ]

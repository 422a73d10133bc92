"""`manage.py retrain_scorer NAME`: the retraining run a policy admin starts from the scorer page, in the
foreground; `--export FILE` writes the constitution's training set (JSONL) instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewconsole.policy.models import NamedConstitution
from reviewconsole.workbench.models import RetrainingStatus
from reviewconsole.workbench.retraining import RetrainingRefused, retraining_execute, retraining_request
from reviewconsole.workbench.training_set import jsonl_lines, training_set


class Command(BaseCommand):
    help = (
        "Retrain the learned scorer on a constitution's reviewer labels, here and now, as the scorer page's "
        "run does on a worker (needs the training extra), and print old against new on the held-out labels. "
        "The model version it makes is promoted from the scorer page."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("constitution", help="the constitution whose labels train the scorer")
        parser.add_argument("--epochs", type=float, default=2.0, help="passes over the training pairs (default 2)")
        parser.add_argument("--export", metavar="FILE", help="write the training set as JSONL to FILE and stop")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["constitution"]
        if not NamedConstitution.objects.filter(name=name).exists():
            raise CommandError(f"constitution: no constitution named {name!r}")
        if options["export"]:
            target = Path(options["export"])
            if not target.parent.is_dir():
                raise CommandError(f"--export: no folder {target.parent}")
            labels = training_set(constitution=name)
            with target.open("w", encoding="utf-8") as out:
                out.writelines(jsonl_lines(labels.pairs))
            self.stdout.write(f"{len(labels.pairs)} pairs written to {target}")
            return
        try:
            run = retraining_request(constitution=name, requested_by=None, epochs=options["epochs"], enqueue=False)
        except RetrainingRefused as refused:
            raise CommandError(str(refused)) from None
        run = retraining_execute(run_id=run.pk) or run
        if run.status != RetrainingStatus.DONE or run.model is None:
            raise CommandError(f"run #{run.pk} {run.get_status_display().lower()}: {run.error}")
        model, held = run.model, run.model.held_out
        self.stdout.write(f"run #{run.pk}: {model.label} ({model.short_sha}), {model.training.get('steps')} steps")
        for side in ("old", "new"):
            figures = held[side]
            automation = figures["automation"]
            self.stdout.write(
                f"  {side}: AUROC {figures['auroc']}, threshold {figures['threshold']}, automation "
                f"{'-' if automation is None else f'{automation:.1%}'} of {figures['consistent']} consistent, "
                f"unsafe {figures['unsafe_released']} of {figures['inconsistent']} (bound {figures['unsafe_bound']})"
            )
        self.stdout.write(f"  {held['verdict']}")

"""Check the audit log end to end (and against heads saved outside the database); name the first break."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from reviewconsole.audit.chain_checks import saved_heads
from reviewconsole.audit.heads_file import HeadsFileError
from reviewconsole.audit.integrity import log_check
from reviewconsole.audit.proofs import ProofError, event_inclusion


class Command(BaseCommand):
    help = (
        "Verify the audit log: every event against its leaf hash, every signed tree head against the events, "
        "heads saved earlier (--heads) against the log, and that no event waits long to be sealed. Exits "
        "non-zero and names the first event or head that disagrees."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--heads", type=Path, metavar="FILE",
                            help="JSON lines of tree heads saved earlier (`audit_heads`, or the sealer's "
                                 "AUDIT_HEADS_FILE, which is checked when this is not given)")
        parser.add_argument("--max-unsealed-age", type=int, metavar="SECONDS",
                            default=settings.AUDIT_MAX_UNSEALED_SECONDS,
                            help="fail when an event waited longer than this to be sealed "
                                 f"(default AUDIT_MAX_UNSEALED_SECONDS, {settings.AUDIT_MAX_UNSEALED_SECONDS})")
        parser.add_argument("--prove", type=int, metavar="EVENT_ID",
                            help="print the inclusion proof of one event in the newest signed head, as JSON")

    def handle(self, *args, heads: Path | None, max_unsealed_age: int, prove: int | None, **options) -> None:
        if prove is not None:
            try:
                proof = event_inclusion(event_id=prove)
            except ProofError as error:
                raise CommandError(str(error)) from None
            self.stdout.write(json.dumps(proof.as_json(), indent=2))
            return
        try:
            saved, note = saved_heads(heads)
        except HeadsFileError as error:
            raise CommandError(f"--heads: {error}") from None
        note = f"; {note}" if note else ""
        report = log_check(now=timezone.now(), max_unsealed_age=timedelta(seconds=max_unsealed_age), saved_heads=saved)
        if not report.intact:
            first, *others = report.problems
            lines = [f"audit log broken: {first.message}"]
            lines += [f"also: {problem.message}" for problem in others]
            raise CommandError("\n".join(lines))
        summary = (
            f"audit log intact: {report.events} events in {report.heads} signed tree heads"
            f" (tree head {report.tree_size}, root {report.root_hash or '(empty log)'})"
        )
        if saved:
            summary += f"; {report.saved_heads} saved heads match"
        summary += note
        if report.sealed_meanwhile:
            summary += f"; {report.sealed_meanwhile} events sealed during the check are left for the next one"
        summary += f"; {report.unsealed} waiting to be sealed"
        self.stdout.write(summary)


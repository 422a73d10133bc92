"""Case notes: what a reviewer writes about the case for those who open it later. Audited."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.review import audit_events
from reviewconsole.review.models import CaseNote, Escalation
from reviewconsole.review.services.decisions import InvalidEdit


def case_note_add(*, escalation: Escalation, author: User, text: str) -> CaseNote:
    text = text.strip()
    if not text:
        raise InvalidEdit("A note needs some text.", field="text")
    with transaction.atomic():
        note = CaseNote.objects.create(case_id=escalation.case_id, author=author, text=text)
        audit_events.note_added(note=note)
        return note

"""Saved queue filters: a reviewer names the queue's current search, filters and order, and gets them
back in one click. Each person's are their own: nobody else sees, uses or deletes them (selectors.py lists
a person's)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from reviewconsole.review import audit_events
from reviewconsole.review.models import SavedQueueFilter
from reviewconsole.review.selectors import saved_filters_of

# Enough for a working day's views; a longer list would no longer be "one click".
MAX_SAVED_FILTERS = 20


class SavedFilterRefused(Exception):
    """A saved filter that cannot be stored as asked; the message names the field at fault."""


def queue_filter_save(*, owner: User, name: str, query: str) -> SavedQueueFilter:
    """Save `query` (the queue's query string) under `name`; a name already used is replaced. Audited."""
    with transaction.atomic():
        existing = SavedQueueFilter.objects.select_for_update().filter(owner=owner, name=name).first()
        if existing is None:
            if saved_filters_of(owner).count() >= MAX_SAVED_FILTERS:
                raise SavedFilterRefused(
                    f"name: you have {MAX_SAVED_FILTERS} saved filters already; delete one first, or save "
                    "under the name of one to replace it."
                )
            saved = SavedQueueFilter.objects.create(owner=owner, name=name, query=query)
        else:
            saved = existing
            saved.query = query
            saved.save(update_fields=["query"])
        audit_events.queue_filter_saved(saved_filter=saved, replaced=existing is not None)
        return saved


def queue_filter_delete(*, owner: User, saved_filter_id: int) -> SavedQueueFilter | None:
    """Delete one of the owner's saved filters; None when they have no such filter. Audited."""
    with transaction.atomic():
        saved = SavedQueueFilter.objects.select_for_update().filter(owner=owner, pk=saved_filter_id).first()
        if saved is None:
            return None
        audit_events.queue_filter_deleted(saved_filter=saved, owner=owner)
        saved.delete()
        return saved

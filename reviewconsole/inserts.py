"""New rows of one model in one INSERT ... RETURNING, with the statement built once per model and row count.

Django compiles an INSERT anew for every `create()` and `bulk_create()`: on a submission, whose four
inserts are most of its work, compiling them cost the web worker more CPU than executing them. The rows
written here are what `create()` writes: every concrete field but the auto primary key, each value through
the field's own `pre_save` (auto_now_add, auto_now) and `get_db_prep_save` (JSON, datetimes, UUIDs), and
the objects come back with their primary keys and as saved. Unlike `create()` it sends no model signals
and calls no overridden `save()`: for the hot paths of models whose saving does nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from django.db import connections
from django.db.models import Field, Model


def insert(objects: Sequence[Model], *, using: str = "default") -> None:
    """INSERT `objects` (new, all of one model) in one statement; each gets its primary key."""
    if not objects:
        return
    model = type(objects[0])
    if any(type(obj) is not model or not obj._state.adding for obj in objects):
        raise TypeError("insert() takes new objects of one model")
    connection = connections[using]
    sql, fields = _statement(model, len(objects), connection.alias)
    params = [field.get_db_prep_save(field.pre_save(obj, add=True), connection) for obj in objects for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        keys = [row[0] for row in cursor.fetchall()]
    for obj, key in zip(objects, keys, strict=True):
        obj.pk = key
        obj._state.adding = False
        obj._state.db = using


@cache
def _statement(model: type[Model], rows: int, alias: str) -> tuple[str, list[Field]]:
    meta = model._meta
    if meta.auto_field is None or list(meta.db_returning_fields) != [meta.auto_field]:
        raise TypeError(f"{meta.label}: insert() sets only an auto primary key from the database")
    fields = [field for field in meta.local_concrete_fields if field is not meta.auto_field]
    quote = connections[alias].ops.quote_name
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES {', '.join([row] * rows)} RETURNING {quote(meta.auto_field.column)}"
    )
    return sql, fields

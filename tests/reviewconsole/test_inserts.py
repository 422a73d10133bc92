"""`inserts.insert`: the rows it writes are the rows `create()` writes, and a refused row leaves nothing."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.forms.models import model_to_dict

from reviewconsole.audit.models import AuditEvent
from reviewconsole.inserts import insert
from reviewconsole.intake.models import Case, CaseStatus, Client, Source

pytestmark = pytest.mark.django_db

# Set by the clock at the insert, so they differ between any two rows.
_CLOCK_FIELDS = ("id", "submitted_at", "updated_at")


@pytest.fixture
def submitter() -> Client:
    return Client.objects.create(name="insert-test", token_hash="1" * 64, token_prefix="rc_insert")


def _case(client: Client, external_id: str) -> Case:
    return Case(client=client, external_id=external_id, question="Can I return it?", answer="Yes, within 30 days.",
                metadata={"locale": "en-GB", "tags": ["returns", 3, None]})


def _stored(case: Case) -> dict:
    row = model_to_dict(Case.objects.get(pk=case.pk))
    return {name: value for name, value in row.items() if name not in _CLOCK_FIELDS}


def test_a_row_is_stored_as_create_stores_it(submitter):
    created = Case.objects.create(**{field: getattr(_case(submitter, "a"), field) for field in
                                     ("client", "external_id", "question", "answer", "metadata")})
    inserted = _case(submitter, "b")

    insert([inserted])

    assert inserted.pk is not None and inserted.pk != created.pk
    assert not inserted._state.adding
    assert _stored(inserted) == {**_stored(created), "external_id": "b"}
    stored = Case.objects.get(pk=inserted.pk)
    assert stored.status == CaseStatus.QUEUED  # the field's default
    assert stored.metadata == {"locale": "en-GB", "tags": ["returns", 3, None]}
    assert stored.submitted_at == inserted.submitted_at is not None  # auto_now_add, set on the object too
    assert stored.updated_at is not None


def test_many_rows_go_in_one_statement_and_keep_their_order(submitter, django_assert_num_queries):
    case = _case(submitter, "c")
    insert([case])
    sources = [Source(case=case, position=n, source_id=f"s{n}", text=f"text {n}", sha256=f"{n:064x}") for n in range(5)]

    with django_assert_num_queries(1):
        insert(sources)

    assert [(source.pk, source.source_id) for source in sources] == list(
        Source.objects.filter(case=case).order_by("pk").values_list("pk", "source_id")
    )
    assert len({source.pk for source in sources}) == 5


@pytest.mark.django_db(transaction=True)
def test_a_refused_row_raises_djangos_integrity_error_and_leaves_nothing(submitter):
    insert([_case(submitter, "same")])

    with pytest.raises(IntegrityError), transaction.atomic():
        insert([_case(submitter, "fresh")])
        insert([_case(submitter, "same")])  # the client's external id is taken

    assert sorted(Case.objects.values_list("external_id", flat=True)) == ["same"]


def test_only_new_objects_of_one_model_are_taken(submitter):
    saved = Case.objects.create(client=submitter, question="q", answer="a")
    event = AuditEvent(actor="engine", action="case.received", object_type="case", object_id="1", leaf_hash="0" * 64)

    with pytest.raises(TypeError, match="new objects of one model"):
        insert([saved])
    with pytest.raises(TypeError, match="new objects of one model"):
        insert([_case(submitter, "d"), event])
    insert([])  # nothing to do

    assert Case.objects.count() == 1

"""Searching the trail: a filter that cannot apply says which field is wrong, a person is found by their
username, the newest events come first, and each payload opens in full, escaped."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from reviewconsole.audit.models import AuditEvent
from reviewconsole.audit.services import audit_record
from tests.reviewconsole.audit.test_pages import HTMX, signed_in

pytestmark = pytest.mark.django_db


def _rows(html: str) -> list[str]:
    body = html.split("<tbody>")[1].split("</tbody>")[0] if "<tbody>" in html else ""
    return re.findall(r"<tr>.*?</tr>", body, re.S)


@pytest.mark.parametrize("page", ["audit:events", "audit:cases"])
@pytest.mark.parametrize("htmx", [True, False])
def test_a_case_number_that_is_not_a_number_is_refused_naming_the_field(client, support_lead, history, page, htmx):
    response = signed_in(client, support_lead).get(reverse(page), {"case": "abc"}, **(HTMX if htmx else {}))

    html = response.content.decode()
    assert response.status_code == 400
    assert "<li>Case #: Enter a whole number.</li>" in html
    assert _rows(html) == [] and "No event matches" not in html and "Export this range" not in html


@pytest.mark.parametrize("page", ["audit:events", "audit:cases"])
def test_a_range_that_ends_before_it_starts_is_refused_on_until(client, support_lead, history, page):
    response = signed_in(client, support_lead).get(
        reverse(page), {"since": "2026-03-05T00:00", "until": "2026-03-01T00:00"}, **HTMX
    )

    html = response.content.decode()
    assert response.status_code == 400
    assert "<li>Until: must be later than From" in html and _rows(html) == []


def test_an_export_of_an_empty_range_is_refused_naming_the_field(client, support_lead):
    response = signed_in(client, support_lead).post(
        reverse("audit:export_create"), {"format": "csv", "since": "2026-03-05T00:00", "until": "2026-03-01T00:00"}
    )

    assert response.status_code == 400 and b"until" in response.content


@pytest.mark.parametrize("typed", ["rita", "user:rita"])
def test_the_actor_filter_takes_a_plain_username(client, support_lead, history, typed):
    signed_in(client, support_lead)

    events = client.get(reverse("audit:events"), {"actor": typed}, **HTMX).content.decode()
    cases = client.get(reverse("audit:cases"), {"actor": typed}, **HTMX).content.decode()

    rita = AuditEvent.objects.filter(actor="user:rita").count()
    assert rita > 0 and f"{rita} event{'s' if rita > 1 else ''}" in events
    assert {row.split("<td>")[3].split("</td>")[0] for row in _rows(events)} == {"user:rita"}
    assert f'?case={history.approved.pk}"' in cases and f'?case={history.rejected.pk}"' in cases
    assert f'?case={history.released.pk}"' not in cases


def test_a_non_person_actor_is_still_found_by_its_name(client, support_lead, history):
    html = signed_in(client, support_lead).get(reverse("audit:events"), {"actor": "engine"}, **HTMX).content.decode()

    assert _rows(html) and {row.split("<td>")[3].split("</td>")[0] for row in _rows(html)} == {"engine"}


def test_events_are_listed_newest_first(client, support_lead, history):
    html = signed_in(client, support_lead).get(reverse("audit:events"), **HTMX).content.decode()

    shown = [int(row.split("<td>")[1].split("</td>")[0]) for row in _rows(html)]
    assert shown == sorted(shown, reverse=True) and shown[0] == AuditEvent.objects.order_by("-seq").first().seq


def test_a_payload_opens_in_full_pretty_printed_and_escaped(client, support_lead, reviewer):
    text = "<script>alert('x')</script> " + "a long override reason " * 20
    audit_record(actor=reviewer, action="note.added", object_type="case_note", object_id=1,
                 payload={"override_reason": text, "rules": {"tone": False}})

    html = signed_in(client, support_lead).get(reverse("audit:events"), **HTMX).content.decode()

    cell = html.split('<td class="payload">')[1].split("</td>")[0]
    assert cell.startswith("<details><summary><code>") and "</summary><pre>" in cell
    shown = cell.split("<pre>")[1].split("</pre>")[0]
    assert "<script>" not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in shown
    assert "a long override reason " * 20 in shown  # in full, not cut at 200 characters
    assert '\n  &quot;rules&quot;: {\n    &quot;tone&quot;: false\n  }' in shown
    unescaped = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#x27;", "'")
    assert json.loads(unescaped) == {"override_reason": text, "rules": {"tone": False}}


def test_an_event_not_sealed_yet_is_listed_on_top_as_sealing_and_numbered_once_sealed(client, support_lead, history):
    from reviewconsole.audit.sealer import log_seal_pending

    audit_record(actor="engine", action="case.terminal", object_type="case", object_id=history.released.pk,
                 case=history.released, payload={"late": True})
    signed_in(client, support_lead)

    rows = _rows(client.get(reverse("audit:events"), **HTMX).content.decode())
    assert "sealing…" in rows[0] and "&quot;late&quot;: true" in rows[0]
    assert all("sealing…" not in row for row in rows[1:])
    timeline = client.get(reverse("audit:case", args=[history.released.pk])).content.decode()
    assert timeline.count("sealing…") == 1

    (batch,) = log_seal_pending()
    rows = _rows(client.get(reverse("audit:events"), **HTMX).content.decode())
    assert rows[0].startswith(f"<tr>\n          <td>{batch.head.tree_size}</td>") and "sealing…" not in rows[0]


def test_the_search_words_find_the_events_of_matching_cases_and_travel_with_an_export(client, support_lead, history):
    signed_in(client, support_lead)

    events = client.get(reverse("audit:events"), {"q": "Refund-Rejected"}, **HTMX).content.decode()
    cases = client.get(reverse("audit:cases"), {"q": "arrive"}, **HTMX).content.decode()

    matching = AuditEvent.objects.filter(case_id=history.rejected.pk).count()
    assert matching > 0 and f"{matching} event{'s' if matching > 1 else ''}" in events
    assert f'?case={history.released.pk}"' in cases  # "How long do refunds take to arrive?"
    assert f'?case={history.approved.pk}"' not in cases and f'?case={history.rejected.pk}"' not in cases
    assert '<input type="hidden" name="q" value="arrive">' in cases, "the export repeats the search"

"""Whatever a client throws at POST /api/v1/cases, it gets a 4xx with a field, never a 5xx or a row."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewconsole.intake.models import Case, Source
from tests.reviewconsole.api.conftest import case_body

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
_hostile_text = st.sampled_from(
    ["", " ", "\x00", "<script>alert(1)</script>", "'; DROP TABLE intake_case; --", "\u202e", "💥" * 3]
)

# Each mutation leaves the body invalid in exactly one place.
_mutations = st.sampled_from(
    [
        lambda body, junk: body.pop("question") and body,
        lambda body, junk: body.update(question=junk if not str(junk).strip() else 7) or body,
        lambda body, junk: body.update(sources=junk if not isinstance(junk, list) or not junk else [junk]) or body,
        lambda body, junk: body.update(sources=[]) or body,
        lambda body, junk: body.update(sources=[{"id": "", "text": "x"}]) or body,
        lambda body, junk: body.update(sources=[{"id": "a", "text": "  "}]) or body,
        lambda body, junk: body.update(answer=123) or body,
        lambda body, junk: body.update(metadata="not an object") or body,
        lambda body, junk: body.update(unknown_field=junk) or body,
        lambda body, junk: body.update(external_id={"nested": junk}) or body,
        lambda body, junk: body.update(constitution="missing-" + str(junk)[:20]) or body,
    ]
)


def _post(http, api_client, data: bytes | str):
    return http.post("/api/v1/cases", data=data, content_type="application/json", **api_client.auth)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200) | st.text(max_size=200))
def test_arbitrary_bytes(client, api_client, raw):
    response = _post(client, api_client, raw)
    assert 400 <= response.status_code < 500
    assert response.json()["errors"]
    assert Case.objects.count() == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_json)
def test_arbitrary_json_values(client, api_client, value):
    response = _post(client, api_client, json.dumps(value))
    assert 400 <= response.status_code < 500
    assert all(error["field"] for error in response.json()["errors"])
    assert Case.objects.count() == 0


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutate=_mutations, junk=_json | _hostile_text)
def test_case_shaped_bodies_with_one_defect(client, api_client, mutate, junk):
    body = mutate(case_body(), junk)
    response = _post(client, api_client, json.dumps(body))
    assert 400 <= response.status_code < 500, body
    assert response.json()["errors"]
    assert Case.objects.count() == 0 and Source.objects.count() == 0

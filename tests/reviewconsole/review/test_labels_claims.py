"""Claim labels on the case page: a reviewer labels each claim, beside the engine's state, and it is audited."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Claim
from reviewconsole.review.models import ClaimLabel, Escalation, EscalationStatus
from reviewconsole.review.states import state_label
from tests.reviewconsole.review.conftest import EARNINGS_CASE, latest

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _row(html: str, anchor: str) -> str:
    found = re.search(rf'<tr id="{anchor}"[^>]*>(.*?)</tr>', html, re.S)
    assert found, anchor
    return found.group(1)


def _text(html: str) -> str:
    """What a reader sees: tags dropped, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _label_url(case: Case, claim: Claim) -> str:
    return f"/review/cases/{case.pk}/claims/{claim.pk}/label"


@pytest.fixture
def held(client, reviewer, escalate) -> Case:
    """Rita holds the refund case, as "Next case" gives it to her."""
    case = escalate()
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    return case


def _other_reviewer(name: str = "vera") -> User:
    user = User.objects.create_user(username=name, password="x")
    user.groups.add(Group.objects.get_or_create(name=Role.REVIEWER.value)[0])
    return user


def test_each_claim_row_offers_the_three_labels_with_their_keys(client, held):
    html = client.get(f"/review/cases/{held.pk}/").content.decode()

    claims = list(latest(held).claims.all())
    assert claims
    for claim in claims:
        row = _row(html, f"claim-{claim.position}")
        assert "data-claim-row" in html and 'tabindex="-1"' in html
        assert f'action="{_label_url(held, claim)}"' in row
        assert "Not labelled Supported 1 Refuted 2 Not in the sources 3" in _text(row)
    assert "<kbd>1</kbd> supported, <kbd>2</kbd> refuted, <kbd>3</kbd> not in the sources" in html


def test_a_label_is_stored_audited_and_shown_beside_the_engine_state(client, reviewer, held):
    claim = latest(held).claims.first()

    response = client.post(_label_url(held, claim), {"label": "REFUTED"}, **HTMX)

    assert response.status_code == 200
    cell = response.content.decode()
    assert cell.startswith(f'<td class="claim-label" id="label-claim-{claim.position}">')
    assert '<span class="label label-refuted" data-label="REFUTED">Refuted</span>' in cell
    assert 'value="REFUTED" class="label-choice" data-label-key="2" aria-pressed="true"' in cell
    label = ClaimLabel.objects.get()
    assert (label.claim, label.case, label.reviewer, label.label, label.blind) == (
        claim, held, reviewer, "REFUTED", False
    )
    assert label.created_at is not None and label.updated_at is not None
    event = AuditEvent.objects.get(action="claim.labelled")
    assert (event.actor, event.case_id, event.object_type, event.object_id) == (
        "user:rita", held.pk, "claim", str(claim.pk)
    )
    assert event.payload == {"candidate": latest(held).candidate_id, "claim": claim.claim_id, "label": "REFUTED",
                             "previous": None, "blind": False, "engine_state": claim.state}

    # The page shows the reviewer's label in the claim's row, after the engine's state.
    row = _text(_row(client.get(f"/review/cases/{held.pk}/").content.decode(), f"claim-{claim.position}"))
    assert row.index(state_label(claim.state)) < row.index("Refuted Supported 1")


def test_labelling_again_replaces_the_label_and_the_same_label_twice_changes_nothing(client, held):
    claim = latest(held).claims.first()

    client.post(_label_url(held, claim), {"label": "REFUTED"}, **HTMX)
    client.post(_label_url(held, claim), {"label": "NOT_IN_SOURCES"}, **HTMX)
    client.post(_label_url(held, claim), {"label": "NOT_IN_SOURCES"}, **HTMX)

    assert list(ClaimLabel.objects.values_list("label", flat=True)) == ["NOT_IN_SOURCES"]
    events = AuditEvent.objects.filter(action="claim.labelled").order_by("id")
    assert [(e.payload["label"], e.payload["previous"]) for e in events] == [
        ("REFUTED", None), ("NOT_IN_SOURCES", "REFUTED")
    ]


def test_without_javascript_the_form_posts_and_the_page_comes_back_at_the_claim(client, held):
    claim = latest(held).claims.first()

    response = client.post(_label_url(held, claim), {"label": "SUPPORTED"})

    assert response.status_code == 302
    assert response["Location"] == f"/review/cases/{held.pk}/#claim-{claim.position}"
    assert ClaimLabel.objects.get().label == "SUPPORTED"


@pytest.mark.parametrize("value", ["", "WRONG", "supported", "REFUTED "])
def test_an_unknown_label_is_refused_naming_the_field(client, held, value):
    claim = latest(held).claims.first()

    htmx = client.post(_label_url(held, claim), {"label": value}, **HTMX)
    plain = client.post(_label_url(held, claim), {"label": value})

    assert htmx.status_code == plain.status_code == 400
    message = "label: choose one of SUPPORTED (Supported), REFUTED (Refuted), NOT_IN_SOURCES (Not in the sources)"
    assert message in htmx.content.decode()
    assert message in plain.content.decode() and "Your label was not saved" in plain.content.decode()
    assert not ClaimLabel.objects.exists() and not AuditEvent.objects.filter(action="claim.labelled").exists()


def test_a_claim_of_another_case_is_refused(client, held, escalate):
    other = escalate(EARNINGS_CASE)
    foreign = latest(other).claims.first()

    response = client.post(_label_url(held, foreign), {"label": "SUPPORTED"}, **HTMX)

    assert response.status_code == 409
    assert f"That claim belongs to case {other.pk}, not to case {held.pk}." in response.content.decode()
    assert not ClaimLabel.objects.exists()


def test_a_reviewer_without_the_lease_cannot_label(client, held):
    vera = _other_reviewer()
    claim = latest(held).claims.first()
    client.force_login(vera)

    page = client.get(f"/review/cases/{held.pk}/").content.decode()
    response = client.post(_label_url(held, claim), {"label": "SUPPORTED"}, **HTMX)
    plain = client.post(_label_url(held, claim), {"label": "SUPPORTED"})

    assert "data-label-form" not in page  # no controls for a case someone else holds
    assert response.status_code == plain.status_code == 409
    assert "You do not hold this case" in response.content.decode()
    assert 'role="alert">Your label was not saved: You do not hold this case' in plain.content.decode()
    assert not ClaimLabel.objects.exists()


def test_an_expired_lease_or_a_decided_case_refuses_labels(client, held):
    claim = latest(held).claims.first()
    Escalation.objects.filter(case=held).update(lease_expires_at="2000-01-01T00:00:00Z")
    assert client.post(_label_url(held, claim), {"label": "SUPPORTED"}, **HTMX).status_code == 409

    Escalation.objects.filter(case=held).update(status=EscalationStatus.DECIDED, lease_expires_at=None)
    response = client.post(_label_url(held, claim), {"label": "SUPPORTED"}, **HTMX)

    assert response.status_code == 409 and "no longer open for review" in response.content.decode()
    assert not ClaimLabel.objects.exists()


def test_labels_are_for_reviewers_by_post_only(client, support_lead, held):
    claim = latest(held).claims.first()
    url = _label_url(held, claim)
    assert client.get(url).status_code == 405
    assert client.post(f"/review/cases/{held.pk}/claims/999999/label", {"label": "SUPPORTED"}).status_code == 404
    client.force_login(support_lead)
    assert client.post(url, {"label": "SUPPORTED"}).status_code == 403
    client.logout()
    assert client.post(url, {"label": "SUPPORTED"})["Location"] == f"/login/?next={url}"
    assert not ClaimLabel.objects.exists()


def test_while_a_case_is_open_a_reviewer_sees_only_their_own_labels_then_everyones(client, reviewer, held):
    vera = _other_reviewer()
    claim = latest(held).claims.first()
    ClaimLabel.objects.create(claim=claim, case=held, reviewer=vera, label="REFUTED")
    client.post(_label_url(held, claim), {"label": "SUPPORTED"}, **HTMX)

    open_row = _text(_row(client.get(f"/review/cases/{held.pk}/").content.decode(), f"claim-{claim.position}"))
    Escalation.objects.filter(case=held).update(status=EscalationStatus.DECIDED)
    decided_row = _text(_row(client.get(f"/review/cases/{held.pk}/").content.decode(), f"claim-{claim.position}"))

    assert "vera" not in open_row and "Refuted" not in open_row.replace("Refuted 2", "")
    assert "Supported vera : Refuted" in decided_row

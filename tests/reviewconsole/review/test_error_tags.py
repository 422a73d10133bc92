"""An error taxonomy per constitution: policy admins define the kinds (versioned with the constitution),
reviewers tag them on a claim or a whole answer, and the tags reach the exports and the metrics page."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from pydantic import ValidationError

from reviewconsole.audit.models import AuditEvent
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.review.models import ErrorTag, Escalation
from reviewconsole.support.exports import decision_fixture
from reviewconsole.workbench.training_set import training_set
from tests.reviewconsole.policy.conftest import editor_post
from tests.reviewconsole.review.conftest import latest
from verification import DEFAULT_CONSTITUTION, Constitution
from verification.policy.constitution import DEFAULT_ERROR_KINDS, ErrorKind

pytestmark = pytest.mark.django_db

OWN_KINDS = "wrong-price: Wrong price\nnot-in-source: Not in the source\nrude: Rude or dismissive"


def _tag_buttons(html: str) -> list[tuple[str, str]]:
    """(kind code, digit key) of each tag button, in page order."""
    return re.findall(r'name="kind" value="([a-z0-9-]+)" class="label-choice small" data-tag-key="(\d?)"', html)


def test_a_constitution_without_its_own_kinds_keeps_its_version_and_offers_the_default_ones():
    assert "error_kinds" not in DEFAULT_CONSTITUTION.model_dump(mode="json")
    assert DEFAULT_CONSTITUTION.taxonomy == DEFAULT_ERROR_KINDS
    own = DEFAULT_CONSTITUTION.model_copy(update={"error_kinds": [ErrorKind(code="rude", label="Rude")]})
    assert own.version != DEFAULT_CONSTITUTION.version and [k.code for k in own.taxonomy] == ["rude"]
    with pytest.raises(ValidationError, match="each code once"):
        Constitution(name="x", error_kinds=[ErrorKind(code="a", label="A"), ErrorKind(code="a", label="B")])


def test_policy_admins_edit_the_kinds_as_a_new_version(admin_client):
    url = "/policy/constitutions/default/v1/edit"
    page = admin_client.get(url).content.decode()
    assert "contradicts-source: Contradicts the source\nnot-in-source: Not in the source" in page

    response = admin_client.post(url, editor_post(DEFAULT_CONSTITUTION, error_kinds=OWN_KINDS))

    assert response.status_code == 302
    draft = ConstitutionVersion.objects.filter(document__name="default").order_by("-number").first()
    assert draft.number == 2 and draft.content["error_kinds"][0] == {"code": "wrong-price", "label": "Wrong price"}
    assert draft.sha256 != ConstitutionVersion.objects.get(document__name="default", number=1).sha256


@pytest.mark.parametrize(("typed", "message"), [
    ("wrong price", "line 1: write the code, a colon, then the label (wrong-number: Wrong number)"),
    ("ok: Fine\nWrong Price: Wrong price", "line 2: code: String should match pattern"),
    ("a: One\na: Two", "each code once (a repeated)"),
    ("a:", "line 1: label: String should have at least 1 character"),
])
def test_bad_kinds_are_refused_naming_the_field(admin_client, typed, message):
    response = admin_client.post("/policy/constitutions/default/v1/edit",
                                 editor_post(DEFAULT_CONSTITUTION, error_kinds=typed))

    html = response.content.decode()
    assert response.status_code == 400
    found = re.search(r'<p id="error_kinds-error" class="error field-error">([^<]*)</p>', html)
    assert found and found.group(1).startswith(message), found and found.group(1)
    assert ConstitutionVersion.objects.filter(document__name="default").count() == 1


@pytest.fixture
def admin_client(client, policy_admin):
    client.force_login(policy_admin)
    return client


@pytest.fixture
def held(client, reviewer, escalate):
    """Rita holds the refund case, pinned to a default version with its own kinds."""
    kinds = [ErrorKind(code="wrong-price", label="Wrong price"), ErrorKind(code="rude", label="Rude or dismissive")]
    author = User.objects.get_or_create(username="policy-author")[0]
    draft = constitution_draft_save(
        constitution=DEFAULT_CONSTITUTION.model_copy(update={"error_kinds": kinds}), author=author)
    version = version_publish(version=draft, actor=author, now=timezone.now())
    case = escalate()
    assert case.constitution_pin_id == version.pk
    client.force_login(reviewer)
    assert client.post("/review/next")["Location"] == f"/review/cases/{case.pk}/"
    return case


def test_the_case_page_offers_the_pinned_versions_kinds_with_digit_keys(client, held):
    html = client.get(f"/review/cases/{held.pk}/").content.decode()

    claims = latest(held).claims.count()
    assert _tag_buttons(html) == [("wrong-price", "1"), ("rude", "2")] * (claims + 1)  # each claim, and the answer
    assert "Tag an error in the answer <kbd>t</kbd>" in html


def test_tagging_a_claim_and_the_answer_toggles_and_is_audited(client, reviewer, held):
    candidate = latest(held)
    claim = candidate.claims.order_by("position").first()
    url = f"/review/cases/{held.pk}/error-tags"

    response = client.post(url, {"candidate": candidate.pk, "claim": claim.pk, "kind": "wrong-price"},
                           headers={"HX-Request": "true"})

    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert '<span class="tag error-tag" data-error-tag="wrong-price">Wrong price</span>' in html
    assert 'data-tag-key="1" aria-pressed="true"' in html and " open>" in html.split("data-tag-menu")[1][:10]
    assert client.post(url, {"candidate": candidate.pk, "kind": "rude"}).status_code == 302  # the answer, no JS
    tags = {(tag.claim_id, tag.kind, tag.kind_label) for tag in ErrorTag.objects.all()}
    assert tags == {(claim.pk, "wrong-price", "Wrong price"), (None, "rude", "Rude or dismissive")}

    client.post(url, {"candidate": candidate.pk, "claim": claim.pk, "kind": "wrong-price"})  # again: taken away
    assert list(ErrorTag.objects.values_list("kind", flat=True)) == ["rude"]
    events = list(AuditEvent.objects.filter(action__startswith="error.").order_by("id")
                  .values_list("action", "payload"))
    assert [action for action, _ in events] == ["error.tagged", "error.tagged", "error.untagged"]
    assert events[0][1] == {"candidate": candidate.candidate_id, "claim": claim.claim_id, "kind": "wrong-price",
                            "label": "Wrong price"}


def test_tags_are_refused_with_why(client, second_reviewer, held):
    candidate = latest(held)
    url = f"/review/cases/{held.pk}/error-tags"

    response = client.post(url, {"candidate": candidate.pk, "kind": "outdated"}, headers={"HX-Request": "true"})
    assert response.status_code == 400 and "kind: &#x27;outdated&#x27; is not a kind of error" in \
        response.content.decode()
    assert client.post(url, {"kind": "rude"}).status_code == 400
    assert client.post(url, {"candidate": candidate.pk + 999, "kind": "rude"}).status_code == 400
    assert client.get(url).status_code == 405

    client.force_login(second_reviewer)  # not the holder
    response = client.post(url, {"candidate": candidate.pk, "kind": "rude"}, headers={"HX-Request": "true"})
    assert response.status_code == 409 and "Claim this case first" in response.content.decode()
    assert not ErrorTag.objects.exists()


def test_tags_reach_the_fixtures_the_training_set_and_the_metrics(client, reviewer, held, support_lead):
    candidate = latest(held)
    claim = candidate.claims.order_by("position").first()
    url = f"/review/cases/{held.pk}/error-tags"
    client.post(url, {"candidate": candidate.pk, "claim": claim.pk, "kind": "wrong-price"})
    client.post(url, {"candidate": candidate.pk, "kind": "rude"})
    client.post(f"/review/cases/{held.pk}/claims/{claim.pk}/label", {"label": "REFUTED"})
    client.post(f"/review/cases/{held.pk}/reject", {"candidate_id": candidate.candidate_id,
                                                    "sha256": candidate.sha256, "reason_code": "WRONG_FACTS",
                                                    "note": "The price is wrong."})
    decision = held.decisions.get(kind="REJECT")

    fixture = json.loads(json.dumps(decision_fixture(decision)))
    tagged = next(row for row in fixture["expected"]["claims"] if row["id"] == claim.claim_id)
    assert tagged["error_tags"] == [{"kind": "wrong-price", "label": "Wrong price", "reviewer": "rita"}]
    assert fixture["expected"]["error_tags"] == [{"kind": "rude", "label": "Rude or dismissive", "reviewer": "rita"}]
    pair = next(pair for pair in training_set(constitution="default").pairs if pair.claim_id == claim.claim_id)
    assert pair.error_kinds == ("wrong-price",) and pair.as_json()["error_kinds"] == ["wrong-price"]

    client.force_login(support_lead)
    html = client.get("/audit/metrics/").content.decode()
    table = html[html.index('id="error-kinds-table"'):]
    table = " ".join(re.sub(r"<[^>]+>", " ", table[:table.index("</table>")]).split())
    assert "default Wrong price 1 0 1" in table and "default Rude or dismissive 0 1 1" in table
    assert Escalation.objects.get(case=held).decided_at <= timezone.now()

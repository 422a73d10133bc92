"""Reviewers' claim labels as training pairs for the learned scorer: how a label is settled, what the scorer
reads it against, which cases are held out, which clients' labels may train a constitution's model, and the
JSONL export."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.contrib.auth.models import User

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.review.models import Decision, DecisionKind
from reviewconsole.workbench.training_set import held_out, may_train_for, training_set
from tests.personas import _user_with
from tests.reviewconsole.workbench.labelled_claims import (
    QUESTION,
    SOURCES,
    N,
    R,
    S,
    claims_of,
    label,
    labelled_case,
)
from verification import types as contract
from verification.training import SourceIndex, window_text

pytestmark = pytest.mark.django_db

NAME = "customer-support"
EXPORT = f"/policy/constitutions/{NAME}/training-set.jsonl"
ANSWER = ("The Arden 14 weighs 1.2 kg. The Arden 14's battery lasts up to 12 hours. "
          "The Arden 14 is waterproof to ten metres.")


@pytest.fixture
def bot():
    return client_create(name="support-bot")[0]


@pytest.fixture
def lena(db) -> User:
    return _user_with("lena", Role.REVIEWER)


@pytest.fixture
def lead(db) -> User:
    return _user_with("lou", Role.REVIEWER, Role.REVIEW_LEAD)


def _adjudicate(case, lead: User) -> None:
    Decision.objects.create(case=case, reviewer=lead, kind=DecisionKind.APPROVE,
                            candidate=case.candidates.get(position=0), adjudicated=True)


def _rows(labels) -> list[tuple[str, str, str, int]]:
    return [(pair.claim_id, pair.label, pair.settled_by, pair.as_json()["label"]) for pair in labels.pairs]


def test_one_reviewers_label_counts_and_agreeing_reviewers_count_once(bot, reviewer, lena):
    case = labelled_case(bot, ANSWER)
    weight, battery, waterproof = claims_of(case)
    label(weight, (reviewer, S))
    label(battery, (reviewer, R), (lena, R))
    label(waterproof, (reviewer, N))
    labelled_case(bot, "The Arden 14 ships with a 65 W charger.")  # nobody labelled it: no pair

    labels = training_set(constitution=NAME)

    # SUPPORTED is 1; refuted and not in the sources are 0.
    assert _rows(labels) == [("k1", S, "one reviewer", 1), ("k2", R, "reviewers agreed", 0),
                             ("k3", N, "one reviewer", 0)]
    assert [pair.claim for pair in labels.pairs] == [weight.text, battery.text, waterproof.text]
    assert {(pair.case_id, pair.client, pair.candidate) for pair in labels.pairs} == {(case.pk, "support-bot", "c0")}
    counts = labels.counts()
    assert (counts["pairs"], counts["disputed"], counts["adjudicated"], counts["kept_to_client"]) == (3, 0, 0, {})
    assert labels.clients == (bot.pk,)


def test_reviewers_who_disagree_are_left_out_unless_the_adjudicating_lead_labelled_the_claim(
    bot, reviewer, lena, lead
):
    unsettled = labelled_case(bot, "The Arden 14 weighs 1.2 kg.")
    label(claims_of(unsettled)[0], (reviewer, S), (lena, R))
    # A decision that settles nothing between reviewers (not an adjudication) leaves the claim disputed.
    Decision.objects.create(case=unsettled, reviewer=lena, kind=DecisionKind.REJECT,
                            candidate=unsettled.candidates.get())
    adjudicated = labelled_case(bot, "The Arden 14's battery lasts up to 12 hours.")
    label(claims_of(adjudicated)[0], (reviewer, S), (lena, R), (lead, N))
    _adjudicate(adjudicated, lead)
    unlabelled_by_lead = labelled_case(bot, "The Arden 14 ships with a 90 W charger.")
    label(claims_of(unlabelled_by_lead)[0], (reviewer, S), (lena, R))
    _adjudicate(unlabelled_by_lead, lead)  # the lead settled the case but never labelled this claim

    labels = training_set(constitution=NAME)

    assert [(pair.case_id, pair.label, pair.settled_by, pair.supported) for pair in labels.pairs] == [
        (adjudicated.pk, N, "adjudicated", False)]
    counts = labels.counts()
    assert (counts["pairs"], counts["disputed"], counts["adjudicated"]) == (1, 2, 1)


def test_the_scorer_page_says_what_was_settled_and_left_out(admin_client, bot, reviewer, lena, lead):
    disputed = labelled_case(bot, "The Arden 14 weighs 1.2 kg.")
    label(claims_of(disputed)[0], (reviewer, S), (lena, R))
    adjudicated = labelled_case(bot, "The Arden 14's battery lasts up to 12 hours.")
    label(claims_of(adjudicated)[0], (reviewer, S), (lena, R), (lead, R))
    _adjudicate(adjudicated, lead)
    other, _ = client_create(name="shop-bot")
    kept = labelled_case(other, "The Arden 14 ships with a 65 W charger.")
    label(claims_of(kept)[0], (reviewer, S))
    bot.labels_shared = True
    bot.save()

    html = admin_client.get(f"/policy/constitutions/{NAME}/scorer/").content.decode()

    assert ('<p id="training-left-out">Settled by adjudication: 1. Left out: 1 disputed; 1 of shop-bot, which keeps '
            "its labels to its own constitutions.</p>") in html
    slice_of = "held-out" if held_out(adjudicated.question, adjudicated.answer) else "training"
    assert f'<td id="{slice_of}-not-supported">1</td>' in html


def test_the_window_is_what_retrieval_selects_from_the_cases_own_sources(bot, reviewer):
    case = labelled_case(bot, "Birchwood Laptops.", question="Who makes the Arden 14?")
    other = labelled_case(bot, "The Elm 12 weighs 2.0 kg.", sources=(("spec", "The Elm 12 weighs 2.0 kg."),))
    label(claims_of(case)[0], (reviewer, S))
    label(claims_of(other)[0], (reviewer, S))

    first, second = training_set(constitution=NAME).pairs

    sources = tuple(contract.Source(id=source_id, text=text) for source_id, text in SOURCES)
    assert first.sources == sources
    assert first.window == window_text(SourceIndex(sources).select("Birchwood Laptops.", 3))
    assert "Birchwood Laptops makes the Arden 14." in first.window
    assert "Shipping within the EU is free." not in first.window  # retrieval's sentences, not the whole sources
    # A bare answer is read after the question it answers, as the scorer reads it.
    assert first.context == "Who makes the Arden 14?"
    assert first.pair("org/x").claim == "Who makes the Arden 14? Birchwood Laptops."
    assert first.pair("org/x").premise == first.window and first.pair("org/x").label == 1
    assert second.window == "The Elm 12 weighs 2.0 kg." and second.context == ""
    canonical = json.dumps([[source_id, text] for source_id, text in SOURCES], ensure_ascii=False)
    assert first.sources_sha256 == hashlib.sha256(canonical.encode()).hexdigest()


def test_a_case_is_held_out_by_what_the_client_submitted(bot, reviewer):
    answers = [f"The Arden 14 weighs 1.{n} kg." for n in range(10)]
    sides = [held_out(QUESTION, answer) for answer in answers]
    assert set(sides) == {True, False}  # these answers land on both sides of the split
    cases = [labelled_case(bot, answer) for answer in [*answers, answers[0]]]  # the first one submitted twice
    for case in cases:
        label(claims_of(case)[0], (reviewer, S))

    labels = training_set(constitution=NAME)

    assert [(pair.case_id, pair.held_out) for pair in labels.pairs] == [
        (case.pk, side) for case, side in zip(cases, [*sides, sides[0]], strict=True)]
    held = sum(sides) + sides[0]
    assert len(labels.held_out) == held and all(pair.held_out for pair in labels.held_out)
    assert not any(pair.held_out for pair in labels.training)
    assert labels.counts()["held_out"] == {"supported": held, "not_supported": 0}
    assert labels.counts()["training"] == {"supported": len(cases) - held, "not_supported": 0}


@pytest.fixture
def two_clients(bot, reviewer):
    """Two clients whose cases customer-support judges, each with one labelled claim; shop-bot shares its labels,
    support-bot does not."""
    shop, _ = client_create(name="shop-bot")
    shop.labels_shared = True
    shop.save()
    label(claims_of(labelled_case(bot, "The Arden 14 weighs 1.2 kg."))[0], (reviewer, S))
    label(claims_of(labelled_case(shop, "The Arden 14's battery lasts up to 12 hours."))[0], (reviewer, R))
    return bot, shop


def test_a_client_that_keeps_its_labels_trains_no_model_for_a_constitution_other_clients_use(two_clients):
    bot, shop = two_clients

    kept = training_set(constitution=NAME)

    assert [pair.client for pair in kept.pairs] == ["shop-bot"]
    assert kept.kept_to_client == {"support-bot": 1} and kept.counts()["kept_to_client"] == {"support-bot": 1}
    assert kept.clients == (shop.pk,)
    assert may_train_for([bot.pk, shop.pk], NAME) == ["support-bot"]

    bot.labels_shared = True
    bot.save()
    shared = training_set(constitution=NAME)

    assert sorted(pair.client for pair in shared.pairs) == ["shop-bot", "support-bot"]
    assert shared.kept_to_client == {} and shared.clients == tuple(sorted((bot.pk, shop.pk)))
    assert may_train_for([bot.pk, shop.pk], NAME) == []


def test_another_clients_cases_count_even_when_nobody_labelled_them(bot, reviewer):
    label(claims_of(labelled_case(bot, "The Arden 14 weighs 1.2 kg."))[0], (reviewer, S))
    alone = training_set(constitution=NAME)
    assert [pair.client for pair in alone.pairs] == ["support-bot"] and may_train_for([bot.pk], NAME) == []

    other, _ = client_create(name="shop-bot")
    labelled_case(other, "The Arden 14 ships with a 65 W charger.")  # nobody labelled it

    assert training_set(constitution=NAME).kept_to_client == {"support-bot": 1}
    assert may_train_for([bot.pk], NAME) == ["support-bot"]


def test_a_constitution_only_one_client_uses_keeps_its_pairs_without_sharing(two_clients, reviewer):
    bot, _shop = two_clients
    medical = labelled_case(bot, "The Arden 14 ships with a 65 W charger.", constitution="medical-information")
    label(claims_of(medical)[0], (reviewer, S))

    labels = training_set(constitution="medical-information")

    assert [(pair.case_id, pair.client) for pair in labels.pairs] == [(medical.pk, "support-bot")]
    assert labels.kept_to_client == {} and labels.clients == (bot.pk,)
    assert may_train_for([bot.pk], "medical-information") == []
    assert training_set(constitution=NAME).kept_to_client == {"support-bot": 1}  # still kept where others are


FIELDS = {"case", "client", "claim", "question", "window", "label", "label_kind", "settled_by", "held_out",
          "sources_sha256", "sources"}


def test_the_export_is_one_json_object_a_line_and_is_audited(admin_client, bot, reviewer):
    bare = labelled_case(bot, "Birchwood Laptops.", question="Who makes the Arden 14?")
    label(claims_of(bare)[0], (reviewer, S))
    wrong = labelled_case(bot, "The Arden 14's battery lasts up to 12 hours.")
    label(claims_of(wrong)[0], (reviewer, R))

    response = admin_client.get(EXPORT)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert response["Content-Disposition"] == f'attachment; filename="training-set-{NAME}.jsonl"'
    body = b"".join(response.streaming_content).decode()
    assert body.endswith("\n")
    first, second = (json.loads(line) for line in body.splitlines())
    assert set(first) >= FIELDS and set(second) >= FIELDS
    pair = training_set(constitution=NAME).pairs[0]
    assert first == pair.as_json()
    assert (first["case"], first["client"], first["claim"], first["question"]) == (
        bare.pk, "support-bot", "Birchwood Laptops.", "Who makes the Arden 14?")
    assert (first["label"], first["label_kind"], first["settled_by"]) == (1, S, "one reviewer")
    assert first["held_out"] is held_out(bare.question, bare.answer)
    assert first["window"] == pair.window and first["sources_sha256"] == pair.sources_sha256
    assert first["sources"] == [{"id": source_id, "text": text} for source_id, text in SOURCES]
    assert (second["case"], second["label"], second["label_kind"], second["question"]) == (wrong.pk, 0, R, "")
    [event] = AuditEvent.objects.filter(action="training_set.exported")
    assert (event.actor, event.object_type, event.object_id) == ("user:paul", "NamedConstitution", NAME)
    assert event.payload == {"constitution": NAME, "pairs": 2}


def test_the_export_is_for_policy_admins_and_only_by_get(client, admin_client, reviewer, outsider, bot):
    label(claims_of(labelled_case(bot, "The Arden 14 weighs 1.2 kg."))[0], (reviewer, S))

    assert admin_client.post(EXPORT).status_code == 405
    assert admin_client.get("/policy/constitutions/no-such-name/training-set.jsonl").status_code == 404
    admin_client.logout()
    assert client.get(EXPORT).status_code == 302  # to sign in
    for person in (reviewer, outsider):
        client.force_login(person)
        assert client.get(EXPORT).status_code == 403
    assert not AuditEvent.objects.filter(action="training_set.exported").exists()

"""The scorer page: who may use it, what a retraining request needs, and promoting and rolling back model
versions (each a published constitution version, audited). Model versions are written as a retraining run
would have left them, without training: the held-out comparison is the engine's figures for hand-made
scores, and the file is the shipped model's where the page scores with the version in force."""

from __future__ import annotations

import functools
import hashlib
import html
import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.services import client_create
from reviewconsole.policy.models import ConstitutionVersion, NamedConstitution, ScorerModel, ScorerPromotion
from reviewconsole.policy.scorer_promotion import PromotionRefused, scorer_model_promote
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.workbench import retraining
from reviewconsole.workbench import services as workbench_services
from reviewconsole.workbench.models import RetrainingRun, RetrainingStatus
from reviewconsole.workbench.training_set import training_set
from tests.reviewconsole.policy.conftest import editor_post
from tests.reviewconsole.workbench.labelled_claims import S, claims_of, label, labelled_case, labelled_corpus
from verification import Constitution
from verification.decision.calibration import GroupBound, ReleaseCalibration
from verification.policy.constitution import Policy
from verification.scorers.cross_encoder import MODEL_DIR, MODEL_FILE, TOKENIZER_FILE
from verification.training import LabelledClaim, held_out_figures, not_worse

pytestmark = pytest.mark.django_db

NAME = "shop"
PAGE = f"/policy/constitutions/{NAME}/scorer/"
RETRAIN = PAGE + "retrain"
ROLLBACK = PAGE + "rollback"
VERIFIER = "offline/test 0123456789abcdef"
OWN = ReleaseCalibration(
    threshold=0.8125, max_unsafe_release_rate=0.5, confidence=0.95, verifier="offline/test",
    groups=[GroupBound(name="shop/reviewer-labels", consistent=30, inconsistent=20, unsafe_released=1,
                       unsafe_release_rate=0.05, unsafe_upper_bound=0.2161, automation=0.61)],
    computed="2026-11-20T10:00:00+00:00",
)
"""shop v1's own calibration, from its reviewers' labels, for its budget of 50%."""


def _figures(consistent: list[float], inconsistent: list[float]):
    """One model's figures on held-out answers of one claim each, with these scores, at shop's budget."""
    claims = [LabelledClaim(answer=f"case {n} c0", text="t", context="", sources=(), supported=True)
              for n in range(len(consistent))]
    claims += [LabelledClaim(answer=f"case {100 + n} c0", text="t", context="", sources=(), supported=False)
               for n in range(len(inconsistent))]
    return held_out_figures(claims, [*consistent, *inconsistent], budget=0.5, verifier=VERIFIER)


def _comparison(old, new, **overrides: Any) -> dict[str, Any]:
    """`held_out` as a retraining run records it."""
    ok, verdict = not_worse(old, new)
    return {"old": old.as_json(), "new": new.as_json(), "not_worse": ok, "verdict": verdict, "budget": 0.5,
            "old_model": None, **overrides}


_RANKED_BADLY = _figures([0.6] * 6 + [0.4] * 2, [0.5] * 5 + [0.7])
_RANKED_WELL = _figures([0.9] * 8, [0.1] * 6)
BETTER = _comparison(_RANKED_BADLY, _RANKED_WELL)
WORSE = _comparison(_RANKED_WELL, _RANKED_BADLY)
# Three inconsistent answers cannot bound 50% even when none is released (1 - 0.05^(1/3) = 63%); the old model
# met no budget either, and the new one ranks better: not worse, but no calibration can be made for it.
TOO_FEW = _comparison(_figures([0.6] * 5, [0.5, 0.7, 0.2]), _figures([0.9] * 5, [0.1] * 3))
# A record claiming not worse over answers that are all consistent (no run records that; a row may say so).
ALL_CONSISTENT = _comparison(_figures([0.9] * 5, []), _figures([0.9] * 5, []), not_worse=True, verdict="not worse")


@functools.cache
def _shipped() -> tuple[bytes, str]:
    return (MODEL_DIR / MODEL_FILE).read_bytes(), (MODEL_DIR / TOKENIZER_FILE).read_text(encoding="utf-8")


def model_version(
    constitution: NamedConstitution, number: int, held_out: dict[str, Any], *, base: ScorerModel | None = None,
    client_ids: tuple[int, ...] = (), shipped: bool = False,
) -> ScorerModel:
    """A model version as a run saves it. With `shipped`, its file is the shipped model's, for a version in
    force while the scorer page is drawn (the page loads the pinned model); else a few bytes no engine loads
    (two versions cannot share one file, and writing 23 MB for a version never scored with is wasted)."""
    data, tokenizer = _shipped()
    if not shipped:
        data = f"scorer model v{number}, never loaded".encode()
    sha256 = hashlib.sha256(data).hexdigest()
    base_sha256 = base.sha256 if base is not None else hashlib.sha256(_shipped()[0]).hexdigest()
    return ScorerModel.objects.create(
        number=number, sha256=sha256, onnx=data, tokenizer=tokenizer,
        figures={"sha256": sha256, "base_sha256": base_sha256}, base_sha256=base_sha256, base=base,
        constitution=constitution, client_ids=list(client_ids),
        training={"organisation_pairs": 24, "replay_pairs": 96, "steps": 12, "seconds": 30},
        held_out=held_out, verifier=VERIFIER,
    )


@pytest.fixture(autouse=True)
def _model_folders(settings, tmp_path_factory):
    """Where a pinned version's file is written before it is scored with: one folder for the module, so the
    shipped bytes are written and loaded once."""
    settings.VAR_DIR = tmp_path_factory.getbasetemp() / "scorer-page-var"


@pytest.fixture
def shop(policy_admin) -> NamedConstitution:
    """A constitution with a budget a few held-out answers can bound, and a calibration of its own."""
    constitution = Constitution(name=NAME, policy=Policy(max_unsafe_release_rate=0.5, release_calibration=OWN))
    draft = constitution_draft_save(constitution=constitution, author=policy_admin)
    version_publish(version=draft, actor=policy_admin, now=timezone.now())
    return draft.document


def _versions() -> int:
    return ConstitutionVersion.objects.filter(document__name=NAME).count()


def _error(page: str) -> str:
    start = page.index('id="scorer-error">') + len('id="scorer-error">')
    return html.unescape(page[start:page.index("</p>", start)])


def test_the_scorer_pages_are_for_policy_admins(client, reviewer, outsider, shop):
    model = model_version(shop, 1, BETTER)
    model_page, promote = f"/policy/scorer-models/{model.number}/", f"/policy/scorer-models/{model.number}/promote"

    assert client.get(PAGE).status_code == 302  # to sign in
    assert client.get(model_page).status_code == 302
    for person in (reviewer, outsider):
        client.force_login(person)
        assert client.get(PAGE).status_code == 403
        assert client.post(RETRAIN, {"epochs": "2"}).status_code == 403
        assert client.post(ROLLBACK).status_code == 403
        assert client.get(model_page).status_code == 403
        assert client.post(promote).status_code == 403
    assert not RetrainingRun.objects.exists() and not ScorerPromotion.objects.exists()
    assert _versions() == 1


def test_wrong_methods_and_unknown_names_are_refused(admin_client, shop):
    model = model_version(shop, 1, BETTER)

    assert admin_client.post(PAGE).status_code == 405
    assert admin_client.get(RETRAIN).status_code == 405
    assert admin_client.get(ROLLBACK).status_code == 405
    assert admin_client.post(f"/policy/scorer-models/{model.number}/").status_code == 405
    assert admin_client.get(f"/policy/scorer-models/{model.number}/promote").status_code == 405
    assert admin_client.get("/policy/constitutions/no-such-name/scorer/").status_code == 404
    assert admin_client.post("/policy/constitutions/no-such-name/scorer/retrain", {"epochs": "2"}).status_code == 404
    assert admin_client.get("/policy/scorer-models/99/").status_code == 404
    assert admin_client.post("/policy/scorer-models/99/promote").status_code == 404
    assert not RetrainingRun.objects.exists() and _versions() == 1


def test_by_htmx_only_the_runs_come_back(admin_client, shop, policy_admin):
    run = RetrainingRun.objects.create(constitution=shop, requested_by=policy_admin, status=RetrainingStatus.RUNNING,
                                       stage="training", steps_done=3, steps_total=10)

    fragment = admin_client.get(PAGE, HTTP_HX_REQUEST="true")
    full = admin_client.get(PAGE)

    part = fragment.content.decode()
    assert fragment.status_code == 200 and "HX-Request" in fragment["Vary"]
    assert part.lstrip().startswith('<section class="card" id="retraining-runs"')
    assert "<html" not in part and "<h1>" not in part and 'id="training-set"' not in part
    assert f'<tr data-run="{run.pk}">' in part and "Running: training" in part and "3 of 10 steps" in part
    assert f'hx-get="{PAGE}" hx-trigger="every 2s"' in part  # polls while the run is unfinished
    page = full.content.decode()
    assert "<html" in page and 'id="retraining-runs"' in page and "<h1>Scorer: shop</h1>" in page

    RetrainingRun.objects.filter(pk=run.pk).update(status=RetrainingStatus.DONE)
    assert "hx-trigger" not in admin_client.get(PAGE, HTTP_HX_REQUEST="true").content.decode()


def test_the_polled_runs_and_the_pages_never_read_the_model_files(admin_client, shop, policy_admin):
    """A version's file is tens of MB: the page polled every 2 s while a run is unfinished shows none of it."""
    first = model_version(shop, 1, BETTER, shipped=True)
    scorer_model_promote(model=first, actor=policy_admin, now=timezone.now())
    second = model_version(shop, 2, BETTER, base=first)
    RetrainingRun.objects.create(constitution=shop, requested_by=policy_admin, status=RetrainingStatus.DONE,
                                 model=second)
    RetrainingRun.objects.create(constitution=shop, requested_by=policy_admin, status=RetrainingStatus.RUNNING)
    admin_client.get(PAGE)  # the pinned version's folder is written once per host, from the database

    with CaptureQueriesContext(connection) as queries:
        polled = admin_client.get(PAGE, HTTP_HX_REQUEST="true")
        page = admin_client.get(PAGE)
        model_page = admin_client.get("/policy/scorer-models/2/")

    assert polled.status_code == page.status_code == model_page.status_code == 200
    assert "scorer model v2" in polled.content.decode() and "Compare and promote" in page.content.decode()
    assert not [query["sql"] for query in queries.captured_queries if '"onnx"' in query["sql"]]


@pytest.mark.parametrize(
    ("typed", "message"),
    [("abc", "epochs: a number, such as 2"), ("nan", "epochs: a number, such as 2"), ("0", "epochs: at least 0.1"),
     ("11", "epochs: at most 10"), ("", "epochs: required")],
)
def test_bad_epochs_are_refused_naming_the_field(admin_client, shop, reviewer, typed, message):
    labelled_corpus(client_create(name="shop-bot")[0], reviewer, constitution=NAME)  # labels are not what is wrong

    response = admin_client.post(RETRAIN, {"epochs": typed})

    assert response.status_code == 400
    assert _error(response.content.decode()) == message
    assert not RetrainingRun.objects.exists()
    assert not AuditEvent.objects.filter(action="retraining.requested").exists()


def test_too_few_labels_start_no_run(admin_client, shop, reviewer):
    label(claims_of(labelled_case(client_create(name="shop-bot")[0], "The Arden 14 weighs 1.2 kg.",
                                  constitution=NAME))[0], (reviewer, S))
    page = admin_client.get(PAGE).content.decode()
    assert '<p class="warn" id="retrain-not-ready">Not enough labels yet: a run needs at least 20 labelled' in page
    assert 'id="retrain-start"' not in page

    response = admin_client.post(RETRAIN, {"epochs": "2"})

    assert response.status_code == 400
    error = _error(response.content.decode())
    trained_on = len(training_set(constitution=NAME).training)
    assert error.startswith("labels: a run needs at least 20 labelled claims outside the held-out slice "
                            f"(there are {trained_on})")
    assert not RetrainingRun.objects.exists()
    assert not AuditEvent.objects.filter(action="retraining.requested").exists()


def test_enough_labels_queue_a_run_for_the_train_workers(admin_client, shop, reviewer, policy_admin,
                                                         django_capture_on_commit_callbacks):
    labelled_corpus(client_create(name="shop-bot")[0], reviewer, constitution=NAME)
    assert 'id="retrain-start"' in admin_client.get(PAGE).content.decode()

    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = admin_client.post(RETRAIN, {"epochs": "1.5"})

    assert response.status_code == 302 and response["Location"] == PAGE
    run = RetrainingRun.objects.get()
    assert (run.status, run.epochs, run.requested_by, run.constitution) == ("QUEUED", 1.5, policy_admin, shop)
    assert len(queued) == 1  # the task is sent once the run is committed; no worker runs it here
    [event] = AuditEvent.objects.filter(action="retraining.requested")
    assert event.payload == {"constitution": NAME, "epochs": 1.5} and event.object_id == str(run.pk)
    page = admin_client.get(PAGE).content.decode()
    assert f"Retraining run #{run.pk} queued: a worker of the train pool runs it." in page
    assert f'<tr data-run="{run.pk}">' in page and "Queued" in page


def test_the_page_tells_how_to_install_the_training_extra_this_machine_lacks(admin_client, shop, monkeypatch):
    monkeypatch.setattr(retraining, "TRAINING_EXTRA", ("json", "no_such_training_package"))

    page = admin_client.get(PAGE).content.decode()

    start = page.index('<p class="warn" id="retrain-extra">')
    hint = html.unescape(page[start:page.index("</p>", start)])
    assert "This machine lacks the training extra (no_such_training_package)." in hint
    assert retraining.INSTALL_HINT in hint

    monkeypatch.setattr(retraining, "TRAINING_EXTRA", ("json",))
    assert 'id="retrain-extra"' not in admin_client.get(PAGE).content.decode()


def test_the_shipped_models_card_and_figures_show_without_the_training_extra(admin_client, shop, monkeypatch):
    monkeypatch.setattr(retraining, "TRAINING_EXTRA", ("no_such_training_package",))
    figures = json.loads((MODEL_DIR / "figures.json").read_text())

    page = html.unescape(admin_client.get(PAGE).content.decode())

    section = page[page.index('id="shipped-model"'):page.index('id="training-set"')]
    assert f'<code id="shipped-sha">{figures["sha256"]}</code>' in section
    assert "sentence-transformers/all-MiniLM-L6-v2" in section
    assert f"{figures['training']['pairs']} pairs (" in section
    snli = figures["validation"]["nli/snli"]
    assert f'<th scope="row">nli/snli</th><td>{snli["pairs"]}</td><td>{snli["auroc_int8"]:.3f}</td>' in section
    # The card whole, licences included, and escaped as any text.
    assert "| SNLI 1.0 dev + test (via e-SNLI) | CC BY-SA 4.0 |" in section
    assert "the model runs without the training extra" in section


def test_a_rollback_without_a_promotion_is_refused_and_publishes_nothing(admin_client, shop):
    response = admin_client.post(ROLLBACK)

    assert response.status_code == 400
    assert _error(response.content.decode()) == "constitution: shop has no promotion to roll back"
    assert _versions() == 1 and not ScorerPromotion.objects.exists()
    assert not AuditEvent.objects.filter(action="scorer_model.rolled_back").exists()


def test_a_model_worse_on_the_held_out_labels_is_not_promoted(admin_client, shop):
    model = model_version(shop, 1, WORSE)
    verdict = "the new model releases fewer consistent answers: 0.0% against 100.0%"
    assert WORSE["verdict"] == verdict

    page = admin_client.get("/policy/scorer-models/1/").content.decode()
    assert f'<p class="muted" id="not-promotable">Cannot be promoted: {verdict}.</p>' in page
    assert 'id="promote"' not in page

    response = admin_client.post("/policy/scorer-models/1/promote")

    assert response.status_code == 400
    refused = response.content.decode()
    start = refused.index('id="promote-error">') + len('id="promote-error">')
    assert html.unescape(refused[start:refused.index("</p>", start)]) == (
        f"model: {model.label} is worse on the held-out labels: {verdict}")
    assert _versions() == 1 and not ScorerPromotion.objects.exists()
    assert not AuditEvent.objects.filter(action="scorer_model.promoted").exists()


def _published(version: ConstitutionVersion) -> list[str]:
    return list(AuditEvent.objects.filter(action="policy.changed", object_type="ConstitutionVersion",
                                          object_id=str(version.pk)).values_list("payload__change", flat=True))


def test_a_promotion_publishes_the_pin_with_a_calibration_for_it_and_a_rollback_restores_the_one_before(
    admin_client, shop
):
    model = model_version(shop, 1, BETTER, shipped=True)
    page = admin_client.get(f"/policy/scorer-models/{model.number}/").content.decode()
    assert 'id="promote">Promote for shop</button>' in page

    promoted = admin_client.post(f"/policy/scorer-models/{model.number}/promote", follow=True)

    assert promoted.redirect_chain == [(PAGE, 302)]
    assert "scorer model v1 promoted for shop: shop v2 is in force with its calibration." in promoted.content.decode()
    version = constitution_in_force(NAME)
    policy = version.constitution().policy
    assert version.number == 2 and policy.scorer_model == model.sha256
    calibration = policy.release_calibration
    assert calibration is not None and calibration != OWN
    assert (calibration.verifier, calibration.max_unsafe_release_rate, calibration.threshold) == (
        VERIFIER, 0.5, BETTER["new"]["threshold"])
    assert [(group.name, group.consistent, group.inconsistent) for group in calibration.groups] == [
        ("shop/held-out-labels", 8, 6)]
    assert sorted(_published(version)) == ["draft saved", "published"]
    [event] = AuditEvent.objects.filter(action="scorer_model.promoted")
    assert (event.actor, event.object_id) == ("user:paul", str(model.pk))
    assert event.payload == {"constitution": NAME, "number": 1, "sha256": model.sha256, "previous_sha256": None,
                             "version": 2, "threshold": calibration.threshold, "budget": 0.5}
    scorer = admin_client.get(PAGE).content.decode()
    assert '<dd id="scorer-model"><a href="/policy/scorer-models/1/">scorer model v1</a>' in scorer
    assert 'id="scorer-rollback">Roll back to the deployment\'s model</button>' in scorer

    rolled = admin_client.post(ROLLBACK, follow=True)

    assert rolled.redirect_chain == [(PAGE, 302)]
    assert "Rolled back: shop is scored with the deployment&#x27;s model again (shop v3)." in rolled.content.decode()
    restored = constitution_in_force(NAME)
    assert restored.number == 3
    assert restored.constitution().policy.scorer_model is None
    assert restored.constitution().policy.release_calibration == OWN  # exactly the one v1 had
    assert sorted(_published(restored)) == ["draft saved", "published"]
    [event] = AuditEvent.objects.filter(action="scorer_model.rolled_back")
    assert (event.actor, event.object_id) == ("user:paul", str(model.pk))
    assert event.payload == {"constitution": NAME, "number": 1, "sha256": model.sha256, "restored_sha256": None,
                             "version": 3}
    assert [(p.action, p.model_id, p.previous_model_id) for p in ScorerPromotion.objects.order_by("pk")] == [
        ("PROMOTE", model.pk, None), ("ROLLBACK", None, model.pk)]
    assert "scorer-rollback" not in rolled.content.decode()

    again = admin_client.post(ROLLBACK)
    assert again.status_code == 400
    assert _error(again.content.decode()) == "constitution: shop has no promotion to roll back"
    assert _versions() == 3


def test_a_rollback_after_the_budget_changed_drops_the_earlier_calibration(admin_client, shop, policy_admin):
    model = model_version(shop, 1, BETTER)
    scorer_model_promote(model=model, actor=policy_admin, now=timezone.now())
    promoted = constitution_in_force(NAME)
    # The admin edits the budget in the editor and publishes it: the pin stays, the calibration made for 50% goes.
    edited = admin_client.post(f"/policy/constitutions/{NAME}/v{promoted.number}/edit",
                               editor_post(promoted.constitution(), **{"policy-max_unsafe_release_rate": "0.4"}))
    assert edited.status_code == 302
    assert admin_client.post(f"/policy/constitutions/{NAME}/v3/publish", {"confirm": "yes"}).status_code == 302
    assert constitution_in_force(NAME).constitution().policy.scorer_model == model.sha256

    assert admin_client.post(ROLLBACK).status_code == 302

    restored = constitution_in_force(NAME)
    policy = restored.constitution().policy
    assert restored.number == 4 and policy.max_unsafe_release_rate == 0.4
    assert policy.scorer_model is None
    assert policy.release_calibration is None  # v1's was made for 50%: the built-in one for 40% applies
    assert AuditEvent.objects.filter(action="scorer_model.rolled_back", payload__version=4).count() == 1


def test_rolling_back_a_second_model_restores_the_first_with_its_calibration(admin_client, shop, policy_admin):
    first = model_version(shop, 1, BETTER, shipped=True)
    scorer_model_promote(model=first, actor=policy_admin, now=timezone.now())
    first_calibration = constitution_in_force(NAME).constitution().policy.release_calibration
    second = model_version(shop, 2, _comparison(_RANKED_BADLY, _figures([0.95] * 8, [0.05] * 6)), base=first)
    scorer_model_promote(model=second, actor=policy_admin, now=timezone.now())
    assert constitution_in_force(NAME).constitution().policy.scorer_model == second.sha256

    response = admin_client.post(ROLLBACK, follow=True)

    assert "Rolled back: shop is scored with scorer model v1 again (shop v4)." in response.content.decode()
    policy = constitution_in_force(NAME).constitution().policy
    assert policy.scorer_model == first.sha256 and policy.release_calibration == first_calibration
    last = ScorerPromotion.objects.first()
    assert (last.action, last.model, last.previous_model) == ("ROLLBACK", first, second)
    [event] = AuditEvent.objects.filter(action="scorer_model.rolled_back")
    assert event.payload["restored_sha256"] == first.sha256 and event.object_id == str(second.pk)
    assert 'id="scorer-rollback"' not in response.content.decode()  # one step back, not a history to walk


def test_a_model_already_in_force_is_not_promoted_again(shop, policy_admin):
    model = model_version(shop, 1, BETTER)
    scorer_model_promote(model=model, actor=policy_admin, now=timezone.now())

    with pytest.raises(PromotionRefused) as refused:
        scorer_model_promote(model=model, actor=policy_admin, now=timezone.now())

    assert refused.value.field == "model"
    assert str(refused.value) == "model: scorer model v1 is already in force for shop"
    assert _versions() == 2 and ScorerPromotion.objects.count() == 1


@pytest.mark.parametrize(
    ("trained_from_in_force", "held_out", "message"),
    [
        (False, BETTER, "model: scorer model v2 was compared with the model in force when it was trained, which is "
                        "no longer in force: retrain against the one in force now"),
        (True, ALL_CONSISTENT, "model: the held-out labels hold no inconsistent answer: nothing bounds the unsafe "
                               "release rate of the new model"),
        (True, TOO_FEW, "model: no threshold keeps the new model within the budget of 50.0% on the held-out labels"),
    ],
)
def test_promotion_refusals_publish_nothing(admin_client, shop, policy_admin, trained_from_in_force, held_out,
                                            message):
    in_force = model_version(shop, 1, BETTER)
    scorer_model_promote(model=in_force, actor=policy_admin, now=timezone.now())
    model = model_version(shop, 2, held_out, base=in_force if trained_from_in_force else None)
    assert model.promotable

    with pytest.raises(PromotionRefused) as refused:
        scorer_model_promote(model=model, actor=policy_admin, now=timezone.now())

    assert refused.value.field == "model" and str(refused.value) == message
    response = admin_client.post("/policy/scorer-models/2/promote")
    assert response.status_code == 400 and html.escape(message, quote=True) in response.content.decode()
    assert _versions() == 2 and ScorerPromotion.objects.count() == 1
    assert AuditEvent.objects.filter(action="scorer_model.promoted").count() == 1
    assert constitution_in_force(NAME).constitution().policy.scorer_model == in_force.sha256


def test_the_model_page_says_why_a_version_trained_against_another_model_waits(admin_client, shop, policy_admin):
    in_force = model_version(shop, 1, BETTER)
    scorer_model_promote(model=in_force, actor=policy_admin, now=timezone.now())
    model_version(shop, 2, BETTER)

    page = admin_client.get("/policy/scorer-models/2/").content.decode()

    assert "Cannot be promoted: trained against a model no longer in force: retrain." in page
    assert 'id="promote"' not in page


def test_a_model_trained_on_a_client_that_keeps_its_labels_is_not_promoted_where_others_are_served(
    admin_client, shop, reviewer
):
    bot, _ = client_create(name="support-bot")
    other, _ = client_create(name="shop-bot")
    label(claims_of(labelled_case(bot, "The Arden 14 weighs 1.2 kg.", constitution=NAME))[0], (reviewer, S))
    labelled_case(other, "The Arden 14 ships with a 65 W charger.", constitution=NAME)
    model = model_version(shop, 1, BETTER, client_ids=(bot.pk,))
    message = ("model: scorer model v1 was trained on labels of support-bot, which does not share labels with other "
               "clients, and shop judges other clients' cases too")

    with pytest.raises(PromotionRefused) as refused:
        workbench_services.scorer_model_promote(model=model, actor=reviewer, now=timezone.now())
    assert str(refused.value) == message
    page = admin_client.get("/policy/scorer-models/1/").content.decode()
    assert "Cannot be promoted: trained on labels of support-bot, kept to that client." in page
    response = admin_client.post("/policy/scorer-models/1/promote")
    assert response.status_code == 400 and html.escape(message) in response.content.decode()
    assert _versions() == 1 and not ScorerPromotion.objects.exists()

    bot.labels_shared = True
    bot.save()

    assert admin_client.post("/policy/scorer-models/1/promote").status_code == 302
    assert constitution_in_force(NAME).constitution().policy.scorer_model == model.sha256

"""The scorer learns from its reviewers, end to end: reviewers label claims on the case page, a policy admin
starts a retraining run (the real fine-tuning, on a small set), the model version's page shows old against
new, the admin promotes it, the next case of that constitution is scored by it, and a rollback restores the
model and the calibration in force before."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from reviewconsole.audit.models import AuditEvent
from reviewconsole.intake.models import Case, Claim, Client
from reviewconsole.intake.services import case_submit, client_create
from reviewconsole.intake.tasks import verify_case
from reviewconsole.policy.models import ScorerModel, ScorerPromotion
from reviewconsole.policy.selectors import constitution_in_force
from reviewconsole.policy.services import constitution_draft_save, version_publish
from reviewconsole.workbench.models import RetrainingRun, RetrainingStatus
from reviewconsole.workbench.retraining import training_extra_missing
from reviewconsole.workbench.training_set import held_out, training_set
from tests.reviewconsole.workbench.labelled_claims import CORPUS, S
from tests.reviewconsole.workbench.labelled_claims import QUESTION_ABOUT_LAPTOPS as QUESTION
from verification import Case as Submission
from verification import Constitution, make_scorer
from verification.policy.constitution import Policy

pytestmark = pytest.mark.skipif(bool(training_extra_missing()), reason="needs the training extra")

NAME = "shop"


def test_the_corpus_holds_out_enough_of_each_kind_to_compare_and_calibrate():
    held = [claims for _, answer, claims in CORPUS if held_out(QUESTION, answer)]
    inconsistent = [claims for claims in held if any(label != S for _, label in claims)]
    # At a budget of 50%, five inconsistent answers none of which is released bound the rate at 45%.
    assert len(inconsistent) >= 5 and len(held) > len(inconsistent)
    assert len(CORPUS) - len(held) >= 10


@pytest.fixture
def shop(policy_admin) -> Client:
    """A constitution that sends every released answer to a person too (so reviewers see and label it), with a
    budget a few dozen labels can bound, and one client."""
    constitution = Constitution(name=NAME, policy=Policy(max_unsafe_release_rate=0.5, spot_check_share=1.0))
    draft = constitution_draft_save(constitution=constitution, author=policy_admin)
    version_publish(version=draft, actor=policy_admin, now=timezone.now())
    client, _ = client_create(name="shop-bot")
    return client


def _submit(client: Client, external_id: str, source: str, answer: str) -> Case:
    submission = Submission.model_validate({"external_id": external_id, "question": QUESTION, "answer": answer,
                                            "sources": [{"id": "spec", "text": source}], "constitution": NAME})
    case, _ = case_submit(client=client, submission=submission)
    verify_case.apply(args=(case.pk,))
    return Case.objects.get(pk=case.pk)


def _label_everything(reviewer_client, cases: list[tuple[Case, list[tuple[str, str]]]]) -> int:
    """The reviewer takes each case from the queue and labels the claims of the answer as submitted."""
    labelled = 0
    for case, truth in cases:
        assert reviewer_client.post(f"/review/cases/{case.pk}/lease", {"take": "1"}).status_code == 302
        by_text = dict(truth)
        for claim in Claim.objects.filter(candidate__case=case, candidate__position=0):
            response = reviewer_client.post(f"/review/cases/{case.pk}/claims/{claim.pk}/label",
                                            {"label": by_text[claim.text]})
            assert response.status_code == 302, response.content.decode()[:500]
            labelled += 1
    return labelled


def test_labels_retrain_the_scorer_and_a_promoted_model_scores_the_next_case_until_rolled_back(
    client, reviewer, policy_admin, shop, django_capture_on_commit_callbacks
):
    shipped = make_scorer("learned").model.sha256  # type: ignore[attr-defined]
    cases = [(_submit(shop, f"p{i}", source, answer), claims) for i, (source, answer, claims) in enumerate(CORPUS)]
    assert all(case.escalation is not None for case, _ in cases)  # every one is in the queue, as a spot check or not
    assert {case.run_record["scorer_model"] for case, _ in cases} == {shipped}

    client.force_login(reviewer)
    assert _label_everything(client, cases) == 2 * len(CORPUS)

    labels = training_set(constitution=NAME)
    counts = labels.counts()
    assert counts["pairs"] == 2 * len(CORPUS) and counts["disputed"] == 0
    held_cases = sum(held_out(QUESTION, answer) for _, answer, _ in CORPUS)
    assert len(labels.held_out) == 2 * held_cases

    client.force_login(policy_admin)
    gate = client.get(f"/policy/constitutions/{NAME}/release-gate/").content.decode()
    assert f"{counts['pairs']} labelled claims settled" in gate

    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(f"/policy/constitutions/{NAME}/scorer/retrain", {"epochs": "1"})
    assert started.status_code == 302
    run = RetrainingRun.objects.get()
    assert run.status == RetrainingStatus.DONE, run.error
    assert run.steps_done == run.steps_total > 0 and run.requested_by == policy_admin
    model = run.model
    assert model is not None and model.number == 1 and model.base is None and model.base_sha256 == shipped
    assert model.training["organisation_pairs"] == len(labels.network) and model.client_ids == [shop.pk]
    assert model.training["stack"]["supported"] + model.training["stack"]["not_supported"] == len(labels.stack)
    old, new = model.held_out["old"], model.held_out["new"]
    assert old["claims"] == new["claims"] == len(labels.held_out)
    assert model.promotable, model.held_out["verdict"]

    # No label changed: a second run makes the same file, and says which version already holds it.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/policy/constitutions/{NAME}/scorer/retrain", {"epochs": "1"})
    again_run = RetrainingRun.objects.exclude(pk=run.pk).get()
    assert again_run.status == RetrainingStatus.FAILED and again_run.model is None
    assert "the same model file as scorer model v1" in again_run.error
    assert ScorerModel.objects.count() == 1

    page = client.get(f"/policy/scorer-models/{model.number}/").content.decode()
    assert "Old against new on the held-out labels" in page
    row = f"<td>{old['auroc']:.3f}</td><td>{new['auroc']:.3f}</td></tr>"
    assert f"<tr><th scope=\"row\">AUROC (claims)</th>{row}" in page
    assert f"{new['consistent_released']} of {new['consistent']})" in page
    assert 'id="promote"' in page

    promoted = client.post(f"/policy/scorer-models/{model.number}/promote")
    assert promoted.status_code == 302
    version = constitution_in_force(NAME)
    policy = version.constitution().policy
    assert version.number == 2 and policy.scorer_model == model.sha256
    assert policy.release_calibration is not None and policy.release_calibration.verifier == model.verifier
    assert policy.release_calibration.groups[0].name == f"{NAME}/held-out-labels"
    assert AuditEvent.objects.filter(action="scorer_model.promoted", object_id=str(model.pk)).exists()
    scorer_page = client.get(f"/policy/constitutions/{NAME}/scorer/").content.decode()
    assert re.search(r'id="scorer-model"><a href="/policy/scorer-models/1/">scorer model v1</a>', scorer_page)

    after = _submit(shop, "after", *CORPUS[0][:2])
    assert after.constitution_pin_id == version.pk
    assert after.run_record["scorer_model"] == model.sha256
    assert ScorerModel.objects.get(sha256=after.run_record["scorer_model"]).number == 1
    assert after.run_record["release_calibration"].startswith("release threshold")

    rolled = client.post(f"/policy/constitutions/{NAME}/scorer/rollback")
    assert rolled.status_code == 302
    restored = constitution_in_force(NAME)
    assert restored.number == 3
    assert restored.constitution().policy.scorer_model is None
    assert restored.constitution().policy.release_calibration is None  # the built-in one, as before
    assert [p.action for p in ScorerPromotion.objects.order_by("pk")] == ["PROMOTE", "ROLLBACK"]
    again = _submit(shop, "again", *CORPUS[1][:2])
    assert again.run_record["scorer_model"] == shipped
    assert "Roll back" not in client.get(f"/policy/constitutions/{NAME}/scorer/").content.decode()

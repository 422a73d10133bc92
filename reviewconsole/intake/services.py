"""Writes for intake: clients and their tokens, submitting a case, running it, storing its chain."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from reviewconsole import work_claims
from reviewconsole.inserts import insert
from reviewconsole.intake import audit_events, fair_share, quotas
from reviewconsole.intake.constitutions import case_constitution, constitution_pin
from reviewconsole.intake.credentials import credentials_changed, new_token, new_webhook_secret, token_hash
from reviewconsole.intake.models import (
    Candidate,
    Case,
    CaseStatus,
    Claim,
    Client,
    Finding,
    RepairAttempt,
    RuleVerdict,
    Source,
)
from reviewconsole.intake.release_hold import release_hold
from reviewconsole.intake.signals import case_failed, run_stored
from reviewconsole.intake.webhook_destinations import webhook_url_check
from reviewconsole.policy.engine import run_engine
from reviewconsole.policy.models import ConstitutionVersion
from reviewconsole.queues import enqueue_on_commit, task_hold
from verification import RunRecord, Terminal, UnknownConstitution
from verification import types as contract


def client_create(*, name: str, webhook_url: str = "") -> tuple[Client, str]:
    """A new client and its API token; the token is returned once and never stored. A webhook URL no
    delivery may go to is refused (ValidationError on `webhook_url`)."""
    webhook_url_check(webhook_url)
    token = new_token()
    client = Client.objects.create(
        name=name,
        token_hash=token_hash(token),
        token_prefix=token[:12],
        webhook_url=webhook_url,
        webhook_secret=new_webhook_secret(),
    )
    return client, token


def client_token_rotate(*, client: Client) -> str:
    """Replace a client's token; the old one stops working at once, in every web process."""
    token = new_token()
    with transaction.atomic():
        client.token_hash = token_hash(token)
        client.token_prefix = token[:12]
        client.save(update_fields=["token_hash", "token_prefix"])
        credentials_changed()
    return token


def client_active_set(*, client: Client, active: bool) -> bool:
    """Revoke a client (its token stops working at once, in every web process; its cases stay) or let it
    submit again."""
    if client.is_active == active:
        return False
    with transaction.atomic():
        client.is_active = active
        client.save(update_fields=["is_active"])
        credentials_changed()
    return True


def client_webhook_set(*, client: Client, webhook_url: str, new_secret: bool = False) -> str | None:
    """Point a client's webhook somewhere else (or nowhere: ""); with `new_secret`, also replace the
    signing secret, which is returned so it can be shown once. A URL no delivery may go to is refused
    (ValidationError on `webhook_url`), changing nothing."""
    webhook_url_check(webhook_url)
    client.webhook_url = webhook_url
    fields = ["webhook_url"]
    if new_secret or (webhook_url and not client.webhook_secret):
        client.webhook_secret = new_webhook_secret()
        fields.append("webhook_secret")
    with transaction.atomic():
        client.save(update_fields=fields)
        # Requests hold the client their token found: none may go on with the old webhook or secret.
        credentials_changed()
    return client.webhook_secret if "webhook_secret" in fields else None


def client_labels_shared_set(*, client: Client, shared: bool) -> bool:
    """Let the client's labels train models used for other clients' cases (or stop it); False: no change."""
    if client.labels_shared == shared:
        return False
    client.labels_shared = shared
    client.save(update_fields=["labels_shared"])
    return True


# --- Submission ----------------------------------------------------------------------------------


class ExternalIdTaken(Exception):
    """The client already submitted a different case under this external id."""

    def __init__(self, case: Case, fields: list[str]) -> None:
        super().__init__(
            f"case {case.pk} was already submitted under {case.external_id!r} with a different {', '.join(fields)}"
        )
        self.case = case
        self.fields = fields


def case_submit(
    *, client: Client, submission: contract.Case, pin: ConstitutionVersion | None = None, body_bytes: int | None = None
) -> tuple[Case, bool]:
    """Store a validated case and schedule its run; the same case again returns the first one.

    Returns the case and whether it was created now. The same external id with other content is
    ExternalIdTaken: a client's retry gets its case back, a client reusing an id by mistake is told.
    The new case is inserted straight away and the unique constraint on (client, external_id) finds a
    case submitted before, so a new case costs no lookup; two concurrent submissions of one external
    id meet there too, and the loser finds the winner's case. The case pins the version in force of
    the constitution it names ("default" when none), or `pin` when the caller already resolved it; an
    unknown name is UnknownConstitution. A client's submission (`body_bytes`: its request's size) is charged
    to the client's day quotas when it is stored, and only then (quotas.OverLimit when one is used up).
    """
    pin = pin or constitution_pin(submission.constitution)
    if pin is None:
        raise UnknownConstitution("constitution", f"no constitution named {submission.constitution!r}")
    charge = None
    try:
        if body_bytes is not None:
            # The case is counted into its client's backlog with its charge: one round trip to Redis for both.
            backlog_key = fair_share.backlog_key_in(settings.REDIS_URL, client_id=client.pk)
            charge = quotas.case_charge(client=client, body_bytes=body_bytes, backlog_key=backlog_key)
        with transaction.atomic():
            case = _case_store(client=client, submission=submission, pin=pin,
                               backlog=charge.backlog if charge is not None else None)
    except (IntegrityError, quotas.OverLimit):
        # The same case again costs nothing, even once the day's quota is used up: the client has it already.
        if charge is not None:
            charge.refund()
        existing = _submitted_before(client, submission)
        if existing is None:
            raise
        return _resubmitted(existing, submission), False
    except BaseException:
        if charge is not None:
            charge.refund()
        raise
    return case, True


def _case_store(*, client: Client, submission: contract.Case, pin: ConstitutionVersion, backlog: int | None) -> Case:
    """The case, its sources and its audit event, and its run scheduled for after the commit, at the priority of
    its client's `backlog` when its charge counted it there already."""
    from reviewconsole.intake.tasks import verify_case

    case = Case(
        client=client,
        external_id=submission.external_id,
        question=submission.question,
        answer=submission.answer,
        metadata=submission.metadata,
        constitution_name=submission.constitution or "",
        constitution_version=pin.short_sha,
        constitution_pin=pin,
    )
    # The submission path's inserts skip Django's per-statement compilation (inserts.py says why).
    insert([case])
    sources = [
        Source(
            case=case,
            position=position,
            source_id=source.id,
            title=source.title or "",
            uri=source.uri or "",
            text=source.text,
            sha256=contract.sha256_text(source.text),
        )
        for position, source in enumerate(submission.sources)
    ]
    insert(sources)
    audit_events.case_received(case=case, sources=sources)
    # Counted only once stored: a case submitted before is not counted again.
    if backlog is None:
        priority = fair_share.case_priority(client_id=client.pk)
    else:
        priority = fair_share.backlog_priority(backlog)
    enqueue_on_commit(verify_case, case.pk, priority=priority)
    return case


def _submitted_before(client: Client, submission: contract.Case) -> Case | None:
    if submission.external_id is None:
        return None
    return Case.objects.filter(client=client, external_id=submission.external_id).prefetch_related("sources").first()


def _resubmitted(existing: Case, submission: contract.Case) -> Case:
    """The stored case when `submission` is the same case again; ExternalIdTaken when it differs."""
    stored = _comparable(case_contract(existing))
    submitted = _comparable(submission)
    differing = [field for field in submitted if stored[field] != submitted[field]]
    if differing:
        raise ExternalIdTaken(existing, differing)
    return existing


def _comparable(case: contract.Case) -> dict:
    # Stored rows keep an absent title, uri or constitution as "": compare them as absent either way.
    data = case.model_dump(mode="json")
    for source in data["sources"]:
        source["title"] = source["title"] or None
        source["uri"] = source["uri"] or None
    data["constitution"] = data["constitution"] or None
    return data


def case_contract(case: Case) -> contract.Case:
    """The stored case in the engine's contract shape."""
    return contract.Case(
        external_id=case.external_id,
        question=case.question,
        answer=case.answer,
        sources=[
            contract.Source(id=source.source_id, text=source.text, title=source.title or None, uri=source.uri or None)
            for source in case.sources.all()
        ],
        constitution=case.constitution_name or None,
        metadata=case.metadata,
    )


# --- Running -------------------------------------------------------------------------------------


def case_run_failed(*, case_id: int, error: str) -> None:
    """A case's run failed for good (`Case.on_work_failed`): audited, its client told, its backlog recounted."""
    audit_events.case_failed(case_id=case_id, error=error)
    # Failed by one UPDATE (work_claims), which Django's auto_now does not see: the API lists it as changed.
    Case.objects.filter(pk=case_id).update(updated_at=timezone.now())
    case_failed.send(sender=Case, case_id=case_id, error=error)
    client_id = Case.objects.filter(pk=case_id).values_list("client_id", flat=True).first()
    if client_id is not None:
        fair_share.backlog_recount_on_commit(client_id=client_id)


def case_run(*, case_id: int) -> Case | None:
    """Claim the case, run the engine on it, store the chain and route it; None if it is not ours to run.

    A failure fails the case with its reason, except a transient one a retry will come for: that hands
    the case back to the queue and propagates to the task's retry policy.
    """
    claim = case_run_claim(case_id=case_id, now=timezone.now())
    if claim is None:
        return None
    with work_claims.settling(claim):
        case = Case.objects.select_related("constitution_pin").prefetch_related("sources").get(pk=case_id)
        record = run_engine(case_contract(case), constitution=case_constitution(case))
        return case_run_finish(claim=claim, record=record, now=timezone.now())
    return None


def case_run_claim(*, case_id: int, now: datetime) -> work_claims.Claim | None:
    """Take a queued case, or a running one whose run is past its deadline (so it died)."""
    # Set here: the claim is one UPDATE, which Django's auto_now does not see.
    return work_claims.claim(Case.work_kind, work_id=case_id, now=now, deadline=now + task_hold(), updated_at=now)


def case_run_finish(*, claim: work_claims.Claim, record: RunRecord, now: datetime) -> Case | None:
    """Store the whole chain and set the case's status, in one transaction, if the claim still holds.

    Returns None when another run took the case over: its chain stands and this one is dropped.
    """
    with transaction.atomic():
        case = work_claims.lock(claim)
        if case is None:
            return None
        _store_chain(case, record)
        audit_events.run_stored(case=case, record=record)
        case.terminal = record.terminal.value
        case.reason = record.reason.value
        case.final_answer = record.final_answer
        case.verifier = record.verifier
        case.run_record = record.model_dump(mode="json", by_alias=True)
        case.finished_at = now
        case.claim_token = None
        case.run_deadline = None
        case.release_held = release_hold(case, record)
        # A release the gate holds waits for a person, as any escalated case does.
        case.status = CaseStatus.ESCALATED if case.release_held else _STATUS_AFTER[record.terminal]
        case.save()
        fair_share.backlog_recount_on_commit(client_id=case.client_id)
        # Escalations and webhooks belong to the apps above; they act in this same transaction.
        run_stored.send(sender=Case, case=case, record=record)
        return case


# REVIEW and ABSTAIN: a person decides.
_STATUS_AFTER = {
    Terminal.PERMIT: CaseStatus.RELEASED,
    Terminal.REJECT: CaseStatus.REJECTED,
    Terminal.REVIEW: CaseStatus.ESCALATED,
    Terminal.ABSTAIN: CaseStatus.ESCALATED,
}


def case_runs_sweep(*, now: datetime) -> list[int]:
    """Cases whose run was lost (a dead worker, a lost message): run again, or failed out of attempts."""
    from reviewconsole.intake.tasks import verify_case

    lost = work_claims.sweep(Case.work_kind, now=now)
    clients = dict(Case.objects.filter(pk__in=lost).values_list("pk", "client_id"))
    # Sent again at the priority their client's backlog gives now, as a new case of the client would be.
    priorities = {client: fair_share.case_priority(client_id=client, counted=True) for client in {*clients.values()}}
    for case_id in lost:
        enqueue_on_commit(verify_case, case_id, priority=priorities[clients[case_id]])
    return lost


def _store_chain(case: Case, record: RunRecord) -> None:
    rows: dict[str, Candidate] = {}
    for position, candidate in enumerate(record.candidates):
        row = Candidate.objects.create(
            case=case,
            position=position,
            candidate_id=candidate.id,
            parent=rows.get(candidate.parent) if candidate.parent else None,
            origin=candidate.origin.value,
            operation=candidate.operation or "",
            text=candidate.text,
            sha256=candidate.sha256,
        )
        rows[candidate.id] = row
        candidate_claims_store(candidate=row, claims=candidate.claims)
        candidate_checks_store(candidate=row, rule_verdicts=candidate.rule_verdicts, findings=candidate.findings)
    RepairAttempt.objects.bulk_create(
        RepairAttempt(
            case=case,
            position=index,
            from_candidate=repair.from_,
            to_candidate=repair.to or "",
            operation=repair.operation,
            target_claim_ids=repair.target_claim_ids,
            protected_claim_ids=repair.protected_claim_ids,
            outcome=repair.outcome,
            supported_removed=repair.supported_removed,
            failure=repair.failure,
            details=repair.model_dump(mode="json", by_alias=True),
        )
        for index, repair in enumerate(record.repairs)
    )


def candidate_claims_store(*, candidate: Candidate, claims: list[contract.Claim]) -> list[Claim]:
    """Write the verified claims of a stored candidate (once: claim rows are immutable)."""
    return Claim.objects.bulk_create(_claim_row(candidate, index, claim) for index, claim in enumerate(claims))


def candidate_checks_store(
    *, candidate: Candidate, rule_verdicts: list[contract.RuleVerdict], findings: list[contract.Finding]
) -> None:
    """Write a stored candidate's rule verdicts and critic findings (once: the rows are immutable)."""
    RuleVerdict.objects.bulk_create(
        RuleVerdict(
            candidate=candidate,
            position=index,
            rule=verdict.rule,
            passed=verdict.passed,
            critique=verdict.critique,
            checked_by=verdict.checked_by,
            blocking=verdict.blocking,
        )
        for index, verdict in enumerate(rule_verdicts)
    )
    Finding.objects.bulk_create(
        Finding(candidate=candidate, position=index, claim=f.claim, problem=f.problem, evidence=f.evidence)
        for index, f in enumerate(findings)
    )


def _claim_row(candidate: Candidate, position: int, claim: contract.Claim) -> Claim:
    return Claim(
        candidate=candidate,
        position=position,
        claim_id=claim.id,
        text=claim.text,
        start=claim.start,
        end=claim.end,
        state=claim.state.value,
        severity=claim.severity.value,
        question=claim.question or "",
        evidence=[span.model_dump(mode="json") for span in claim.evidence],
        method=claim.method,
        confidence=claim.confidence,
        release_score=claim.release_score,
        commitments=[commitment.model_dump(mode="json") for commitment in claim.commitments],
        rationale=claim.rationale,
        model_record=claim.model_record.model_dump(mode="json") if claim.model_record else None,
        decided_by=claim.decided_by or "",
        escalation=claim.escalation or "",
        alignment=[word.model_dump(mode="json") for word in claim.alignment],
        language=claim.language,
    )

"""The names of audited actions: `<object>.<what happened>`, so a filter on a prefix finds a family."""

from __future__ import annotations

from enum import StrEnum


class AuditAction(StrEnum):
    # Machine steps of a run.
    CASE_RECEIVED = "case.received"
    CANDIDATE_CREATED = "candidate.created"
    CLAIMS_VERIFIED = "claims.verified"
    REPAIR_ATTEMPTED = "repair.attempted"
    CASE_TERMINAL = "case.terminal"
    CASE_FAILED = "case.failed"
    ESCALATION_OPENED = "escalation.opened"
    # Human actions.
    ESCALATION_REVIEWED = "escalation.reviewed"
    ADJUDICATION_OPENED = "escalation.adjudication_opened"
    ESCALATION_ASSIGNED = "escalation.assigned"
    ESCALATION_UNASSIGNED = "escalation.unassigned"
    ESCALATION_SKIPPED = "escalation.skipped"
    ESCALATION_RETURNED = "escalation.returned"
    LEASE_CLAIMED = "lease.claimed"
    LEASE_RELEASED = "lease.released"
    DECISION_APPROVED = "decision.approved"
    DECISION_EDITED = "decision.edited"
    DECISION_REJECTED = "decision.rejected"
    EDIT_VERIFIED = "edit.verified"
    NOTE_ADDED = "note.added"
    CLAIM_LABELLED = "claim.labelled"
    CLAIM_LABEL_UNDONE = "claim.label_undone"
    CLAIM_COMMENTED = "claim.commented"
    ERROR_TAGGED = "error.tagged"
    ERROR_UNTAGGED = "error.untagged"
    DECISION_UNDONE = "decision.undone"
    QUEUE_FILTER_SAVED = "queue_filter.saved"
    QUEUE_FILTER_DELETED = "queue_filter.deleted"
    POLICY_CHANGED = "policy.changed"
    # The release gate's breaker: blind spot checks stopped a constitution's releases; a person resumed them.
    GATE_PAUSED = "gate.paused"
    GATE_RESUMED = "gate.resumed"
    # The learned scorer retrained on reviewers' labels: runs, the model versions they make, promotions.
    RETRAINING_REQUESTED = "retraining.requested"
    RETRAINING_FINISHED = "retraining.finished"
    RETRAINING_FAILED = "retraining.failed"
    TRAINING_SET_EXPORTED = "training_set.exported"
    SCORER_MODEL_ADDED = "scorer_model.added"
    SCORER_MODEL_PROMOTED = "scorer_model.promoted"
    SCORER_MODEL_ROLLED_BACK = "scorer_model.rolled_back"
    EXPORT_CREATED = "export.created"
    EXPORT_EXPIRED = "export.expired"
    CHAIN_CHECK_REQUESTED = "chain_check.requested"
    CHAIN_CHECKED = "chain_check.finished"
    # The team: people, their roles, sign-in, API clients, webhook deliveries.
    PERSON_ADDED = "person.added"
    PERSON_ROLES_CHANGED = "person.roles_changed"
    PERSON_DEACTIVATED = "person.deactivated"
    PERSON_REACTIVATED = "person.reactivated"
    PERSON_INVITED = "person.invited"
    CLIENT_CREATED = "client.created"
    CLIENT_TOKEN_ROTATED = "client.token_rotated"
    CLIENT_REVOKED = "client.revoked"
    CLIENT_RESTORED = "client.restored"
    CLIENT_WEBHOOK_CHANGED = "client.webhook_changed"
    CLIENT_LIMITS_CHANGED = "client.limits_changed"
    CLIENT_LABEL_SHARING_CHANGED = "client.label_sharing_changed"
    WEBHOOK_RESENT = "webhook.resent"
    WEBHOOK_FAILED = "webhook.failed"
    # `manage.py demo` made this database the demo's (its accounts and client are audited on their own).
    DEMO_INSTALLED = "demo.installed"


# Actors that are not people; a person is recorded as "user:<username>".
ENGINE = "engine"
WORKER = "worker"
SYSTEM = "system"
COMMAND_LINE = f"{SYSTEM}:manage.py"
"""A change made from the command line (`manage.py user`, `create_client`, `rotate_token`)."""


def client_actor(name: str) -> str:
    return f"client:{name}"

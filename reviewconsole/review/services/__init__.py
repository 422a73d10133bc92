"""Every write of review, one module per concern; the reads are selectors.py and review's other modules.

Each service takes keyword arguments and changes its rows, with their audit events, in one transaction (or in
the caller's, where it says so). Callers import the services from here; the modules are:

- `decisions`: approve, edit and reject; `closing` takes the decision that closes a case, and
  `double_review` records an independent review of a double-reviewed case.
- `edit_verifications`: a worker's re-verification of a reviewer's edit (claimed work).
- `leases` ("Next case", claiming a case, giving it back), `skips`, `assignment` and `bulk` (a review lead's).
- `labels`, `comments` and `error_tags` on claims (error tags on whole answers too), `notes` on cases,
  `undo` of a decision, `saved_filters` of the queue.
- `routing`: where a finished run goes (the receivers of intake's signals).
- `queue_counts`: the queue's kept counts, moved in the transactions above; rebuilt on demand.
"""

from __future__ import annotations

from reviewconsole.review.services.assignment import AssignmentRefused, escalation_assign
from reviewconsole.review.services.bulk import (
    LEAD_ONLY,
    BulkAction,
    BulkOutcome,
    escalation_return,
    escalations_bulk_act,
)
from reviewconsole.review.services.closing import decision_close
from reviewconsole.review.services.comments import (
    COMMENT_MAX_CHARS,
    CommentRefused,
    claim_comment_add,
    comment_text_error,
)
from reviewconsole.review.services.decisions import (
    CLAIM_FIRST,
    NO_ANSWER_YET,
    CaseChanged,
    DecisionRefused,
    InvalidEdit,
    LeadRequired,
    OverrideRequired,
    candidate_edit,
    decision_approve,
    decision_reject,
)
from reviewconsole.review.services.double_review import review_record
from reviewconsole.review.services.edit_verifications import (
    edit_verification_claim,
    edit_verification_finish,
    edit_verification_run,
    edit_verifications_sweep,
)
from reviewconsole.review.services.error_tags import TagRefused, error_tag_toggle
from reviewconsole.review.services.labels import LabelRefused, claim_label_set, claim_label_undo, label_value_error
from reviewconsole.review.services.leases import (
    escalation_claim_next,
    escalation_lease_release,
    escalation_lease_renew,
    escalation_lease_take,
)
from reviewconsole.review.services.notes import case_note_add
from reviewconsole.review.services.routing import case_failure_notified, case_routed, escalation_priority
from reviewconsole.review.services.saved_filters import (
    MAX_SAVED_FILTERS,
    SavedFilterRefused,
    queue_filter_delete,
    queue_filter_save,
)
from reviewconsole.review.services.skips import escalation_skip, skip_minutes
from reviewconsole.review.services.undo import UndoRefused, decision_undo

__all__ = [
    "TagRefused",
    "error_tag_toggle",
    "CLAIM_FIRST",
    "COMMENT_MAX_CHARS",
    "LEAD_ONLY",
    "MAX_SAVED_FILTERS",
    "NO_ANSWER_YET",
    "AssignmentRefused",
    "BulkAction",
    "BulkOutcome",
    "CaseChanged",
    "CommentRefused",
    "DecisionRefused",
    "InvalidEdit",
    "LabelRefused",
    "LeadRequired",
    "OverrideRequired",
    "SavedFilterRefused",
    "UndoRefused",
    "candidate_edit",
    "case_failure_notified",
    "case_note_add",
    "case_routed",
    "claim_comment_add",
    "claim_label_set",
    "claim_label_undo",
    "comment_text_error",
    "decision_approve",
    "decision_close",
    "decision_reject",
    "decision_undo",
    "edit_verification_claim",
    "edit_verification_finish",
    "edit_verification_run",
    "edit_verifications_sweep",
    "escalation_assign",
    "escalation_claim_next",
    "escalation_lease_release",
    "escalation_lease_renew",
    "escalation_lease_take",
    "escalation_priority",
    "escalation_return",
    "escalation_skip",
    "escalations_bulk_act",
    "label_value_error",
    "queue_filter_delete",
    "queue_filter_save",
    "review_record",
    "skip_minutes",
]

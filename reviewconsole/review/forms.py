"""Forms of the review console: they validate input and carry labels; services do the writing."""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import User
from django.http import QueryDict
from django.utils.http import urlencode

from reviewconsole.review.queue import QUEUE_PAGE_SIZE, QueueCursor, QueueFilters, QueuePosition, constitution_names
from reviewconsole.review.queue_order import QueueSort
from reviewconsole.review.reasons import RejectReason
from reviewconsole.review.selectors import assignable_reviewers
from reviewconsole.review.services import BulkAction
from verification import Severity


class QueueCursorField(forms.Field):
    """A place in the queue, as the pager's links carry it."""

    widget = forms.HiddenInput

    default_error_messages = {
        "invalid": "This link does not name a place in the queue (it was changed or cut short). "
        "Showing the first page.",
    }

    def to_python(self, value: str | None) -> QueueCursor | None:
        if value in self.empty_values:
            return None
        try:
            return QueueCursor.decode(str(value))
        except ValueError as error:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from error


def _search_field(label: str, placeholder: str) -> forms.CharField:
    return forms.CharField(
        required=False, max_length=200, label=label,
        widget=forms.TextInput(attrs={"type": "search", "placeholder": placeholder}),
    )


class FindCaseForm(forms.Form):
    """Any case, whatever became of it: its number goes straight to it."""

    q = _search_field("Find a case", "Case number, ticket id, question or answer words")


class QueueFilterForm(forms.Form):
    q = _search_field("Search", "Ticket id, question or answer words")
    # Rendered on their own, in the results, so the counts per reason and the column headers can switch them.
    reason = forms.CharField(required=False, max_length=40, widget=forms.HiddenInput)
    sort = forms.ChoiceField(required=False, choices=QueueSort.choices, widget=forms.HiddenInput)
    severity = forms.ChoiceField(required=False, choices=[("", "Any")] + [(s.value, s.value.title()) for s in Severity])
    constitution = forms.ChoiceField(required=False)
    client = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    assignee = forms.ChoiceField(required=False, label="Assigned to")
    held = forms.ChoiceField(required=False, label="Held by")
    spot_check = forms.ChoiceField(
        required=False, label="Spot checks", choices=[("", "Included"), ("only", "Only"), ("none", "Excluded")]
    )
    overdue = forms.ChoiceField(
        required=False, label="Deadline", choices=[("", "Any"), ("1", "Overdue only")]
    )
    # Where the page starts: set by the pager's links, never by the filters, so a change of filter
    # goes back to the top.
    after = QueueCursorField(required=False)
    before = QueueCursorField(required=False)

    def __init__(self, *args, clients, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["constitution"].choices = [("", "Any")] + [(name, name) for name in constitution_names()]
        self.fields["client"].choices = [("", "Any")] + [(client.pk, client.name) for client in clients]
        people = [("", "Anyone"), ("none", "Nobody"), ("me", "Me")] + [
            (str(user.pk), user.get_username()) for user in assignable_reviewers()
        ]
        self.fields["assignee"].choices = people
        self.fields["held"].choices = people

    def filters(self) -> QueueFilters:
        """The filters asked for; an invalid field is ignored rather than emptying the queue."""
        self.is_valid()  # cleaned_data then holds only the fields that validated
        data = self.cleaned_data
        spot_check = {"only": True, "none": False}.get(data.get("spot_check") or "")
        return QueueFilters(
            reason=data.get("reason") or "",
            severity=data.get("severity") or "",
            constitution=data.get("constitution") or "",
            client=data.get("client"),
            assignee=data.get("assignee") or "",
            held=data.get("held") or "",
            spot_check=spot_check,
            overdue=data.get("overdue") == "1",
            search=data.get("q") or "",
            sort=QueueSort(data.get("sort") or QueueSort.PRIORITY),
        )

    def query(self) -> str:
        """The search, filters and order asked for as a query string, without the place in the queue:
        what a saved filter keeps. Fields that did not validate are left out, as `filters` ignores them."""
        self.is_valid()
        return urlencode([
            (name, self.data[name]) for name in _SAVED_FIELDS
            if self.cleaned_data.get(name) not in (None, "") and self.data.get(name)
        ])

    def position(self) -> QueuePosition:
        """Where the page asked for starts; the top of the queue if its cursor is not valid."""
        self.is_valid()
        if self.cursor_errors:
            return QueuePosition()
        data = self.cleaned_data
        return QueuePosition(after=data.get("after"), before=data.get("before"))

    @property
    def cursor_errors(self) -> list[str]:
        """What is wrong with the link's place in the queue, each naming its field."""
        return [f"{name}: {error}" for name in ("after", "before") for error in self.errors.get(name, [])]

    def clean(self):
        data = super().clean()
        if data.get("after") and data.get("before"):
            self.add_error("before", "A link goes after a case or back before one, not both. Showing the first page.")
        return data


_SAVED_FIELDS = (
    "q", "reason", "severity", "constitution", "client", "assignee", "held", "spot_check", "overdue", "sort",
)


class SaveFilterForm(forms.Form):
    """A name for the queue's current search and filters (`query`, as QueueFilterForm.query writes it)."""

    name = forms.CharField(
        max_length=60, label="Name for these filters",
        error_messages={"required": "name: give these filters a name to save them under.",
                        "max_length": "name: at most 60 characters."},
    )
    query = forms.CharField(required=False, max_length=1000, widget=forms.HiddenInput,
                            error_messages={"max_length": "filters: too long to save (at most 1,000 characters)."})

    def __init__(self, *args, clients, **kwargs):
        kwargs.setdefault("auto_id", "save_%s")
        super().__init__(*args, **kwargs)
        self.clients = clients

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("name: give these filters a name to save them under.")
        return name

    def clean_query(self) -> str:
        """Kept as the queue's own form reads it back, so a saved filter holds only what the queue applies."""
        query = QueueFilterForm(QueryDict(self.cleaned_data["query"]), clients=self.clients).query()
        if not query:
            raise forms.ValidationError(
                "filters: the queue shows everything as it is: search, filter or sort it, then save."
            )
        return query


class _CaseIdsField(forms.Field):
    """The case numbers ticked in the queue (one checkbox each, all named alike)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list[int]:
        values = [str(item).strip() for item in (value or []) if str(item).strip()]
        if not values:
            raise forms.ValidationError("cases: select at least one case (x ticks the selected row).")
        if len(values) > QUEUE_PAGE_SIZE:
            raise forms.ValidationError(f"cases: at most {QUEUE_PAGE_SIZE} cases at once, a page of the queue.")
        if not all(item.isdigit() and len(item) < 19 for item in values):
            raise forms.ValidationError("cases: each selected case must be a case number.")
        return [int(item) for item in values]


class BulkForm(forms.Form):
    """A review lead's action on the cases ticked in the queue."""

    action = forms.ChoiceField(
        choices=[(action.value, action.value) for action in BulkAction],
        error_messages={"required": "action: choose assign, unassign or return to the queue.",
                        "invalid_choice": "action: choose assign, unassign or return to the queue."},
    )
    cases = _CaseIdsField()
    assignee = forms.ModelChoiceField(
        queryset=User.objects.none(), required=False, label="Reviewer for the selected cases",
        empty_label="Choose a reviewer",
        error_messages={"invalid_choice": "assignee: choose an active reviewer from the list."},
    )
    # Where the lead was: the queue's query string, to go back to after the action.
    query = forms.CharField(required=False, max_length=1000, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "bulk_%s")
        super().__init__(*args, **kwargs)
        self.fields["assignee"].queryset = assignable_reviewers()

    def clean(self):
        data = super().clean()
        if data.get("action") == BulkAction.ASSIGN and not data.get("assignee") and "assignee" not in self.errors:
            self.add_error("assignee", "assignee: choose the reviewer to assign the selected cases to.")
        return data


class _CaseForm(forms.Form):
    """A form of the case page. Several share field names (note, text), so each prefixes its element
    ids (`id_prefix`): the page's labels then name exactly one field each."""

    id_prefix = "case"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", f"{self.id_prefix}_%s")
        super().__init__(*args, **kwargs)


class _OnCandidate(_CaseForm):
    """Names the exact candidate the reviewer saw, so a changed case refuses the decision."""

    candidate_id = forms.CharField(widget=forms.HiddenInput, max_length=20)
    sha256 = forms.CharField(widget=forms.HiddenInput, min_length=64, max_length=64)


class EditForm(_CaseForm):
    """A reviewer's text for the current version, or the first version of a case that has none."""

    id_prefix = "edit"

    # Empty only for a case with no version yet; the service checks either against the case under its lock.
    candidate_id = forms.CharField(widget=forms.HiddenInput, max_length=20, required=False)
    sha256 = forms.CharField(widget=forms.HiddenInput, max_length=64, required=False)
    text = forms.CharField(label="Edited answer", widget=forms.Textarea(attrs={"rows": 10}), max_length=20_000)
    note = forms.CharField(required=False, label="Note on the edit (optional)", max_length=2000)


class ApproveForm(_OnCandidate):
    id_prefix = "approve"

    note = forms.CharField(required=False, label="Note (optional)", widget=forms.Textarea(attrs={"rows": 2}))
    # Optional here: whether a reason is needed is the service's call, made under the case's lock on the
    # claims as they are then. The page asks for one in the browser too (`ask_for_override_reason`).
    override_reason = forms.CharField(
        required=False, label="Override reason (required while claims fail)", widget=forms.Textarea(attrs={"rows": 2})
    )

    def ask_for_override_reason(self) -> None:
        """Have the browser refuse to send the form (Ctrl+Enter included) until a reason is written."""
        self.fields["override_reason"].widget.attrs["required"] = True


class RejectForm(_OnCandidate):
    id_prefix = "reject"

    reason_code = forms.ChoiceField(label="Reason", choices=RejectReason.choices)
    note = forms.CharField(label="Note", widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)


class NoteForm(_CaseForm):
    id_prefix = "note"

    text = forms.CharField(label="Add a note", widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)


class AssignForm(forms.Form):
    """A review lead's choice of reviewer for a case; empty takes the assignment back."""

    assignee = forms.ModelChoiceField(
        queryset=User.objects.none(), required=False, label="Assign to", empty_label="Nobody (unassign)",
        error_messages={"invalid_choice": "assignee: choose an active reviewer from the list."},
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "assign_%s")
        super().__init__(*args, **kwargs)
        self.fields["assignee"].queryset = assignable_reviewers()

"""Forms of the review console: they validate input and carry labels; services do the writing."""

from __future__ import annotations

from django import forms
from django.db import models

from reviewconsole.review.selectors import QueueFilters, constitution_names, reviewers
from verification import Severity


class RejectReason(models.TextChoices):
    WRONG_FACTS = "WRONG_FACTS", "Facts contradict the sources"
    NOT_IN_SOURCES = "NOT_IN_SOURCES", "Not backed by the sources"
    OFF_QUESTION = "OFF_QUESTION", "Does not answer the question"
    POLICY = "POLICY", "Breaks policy"
    UNSAFE = "UNSAFE", "Unsafe or harmful"
    OTHER = "OTHER", "Other (see note)"


class QueueFilterForm(forms.Form):
    reason = forms.CharField(required=False, max_length=40)
    severity = forms.ChoiceField(required=False, choices=[("", "Any")] + [(s.value, s.value.title()) for s in Severity])
    constitution = forms.ChoiceField(required=False)
    client = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    assignee = forms.ChoiceField(required=False)
    spot_check = forms.ChoiceField(
        required=False, label="Spot checks", choices=[("", "Included"), ("only", "Only"), ("none", "Excluded")]
    )
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, *args, clients, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["constitution"].choices = [("", "Any")] + [(name, name) for name in constitution_names()]
        self.fields["client"].choices = [("", "Any")] + [(client.pk, client.name) for client in clients]
        self.fields["assignee"].choices = [("", "Anyone"), ("none", "Nobody"), ("me", "Me")] + [
            (str(user.pk), user.get_username()) for user in reviewers()
        ]

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
            spot_check=spot_check,
        )


class _OnCandidate(forms.Form):
    """Names the exact candidate the reviewer saw, so a changed case refuses the decision."""

    candidate_id = forms.CharField(widget=forms.HiddenInput, max_length=20)
    sha256 = forms.CharField(widget=forms.HiddenInput, min_length=64, max_length=64)


class ApproveForm(_OnCandidate):
    note = forms.CharField(required=False, label="Note (optional)", widget=forms.Textarea(attrs={"rows": 2}))
    override_reason = forms.CharField(
        required=False, label="Override reason (required while claims fail)", widget=forms.Textarea(attrs={"rows": 2})
    )


class EditForm(_OnCandidate):
    text = forms.CharField(label="Edited answer", widget=forms.Textarea(attrs={"rows": 6}), max_length=20_000)
    note = forms.CharField(required=False, label="Note on the edit (optional)", max_length=2000)


class RejectForm(_OnCandidate):
    reason_code = forms.ChoiceField(label="Reason", choices=RejectReason.choices)
    note = forms.CharField(label="Note", widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)


class NoteForm(forms.Form):
    text = forms.CharField(label="Add a note", widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)

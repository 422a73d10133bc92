"""Forms of the audit pages: they validate the filters; selectors and services do the work."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django import forms
from django.utils import timezone

from reviewconsole.audit.actions import AuditAction
from reviewconsole.audit.models import ExportFormat
from reviewconsole.intake.models import Client
from reviewconsole.review.models import DecisionKind
from reviewconsole.review.reasons import reason_choices
from reviewconsole.support.selectors import AuditFilter

_DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


def _action_choices() -> list[tuple[str, str]]:
    families = sorted({action.value.split(".")[0] for action in AuditAction})
    return (
        [("", "Any")]
        + [(f"{family}.", f"{family}.* (all)") for family in families]
        + [(action.value, action.value) for action in AuditAction]
    )


class AuditFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=200, label="Search",
                        help_text="a ticket (the client's external id) or words of the question")
    since = forms.DateTimeField(required=False, label="From", widget=_DATETIME)
    until = forms.DateTimeField(required=False, label="Until", widget=_DATETIME)
    client = forms.ChoiceField(required=False)
    case = forms.IntegerField(required=False, min_value=1, label="Case #")
    actor = forms.CharField(required=False, max_length=150, help_text='a username ("rita"), "engine", "client:bot"')
    action = forms.ChoiceField(required=False, choices=_action_choices)
    decision = forms.ChoiceField(required=False, choices=[("", "Any")] + DecisionKind.choices)
    reason = forms.ChoiceField(required=False, choices=[("", "Any"), *reason_choices()])
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = Client.objects.order_by("name").values_list("name", flat=True)
        self.fields["client"].choices = [("", "Any")] + [(name, name) for name in names]

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since >= until:
            # Said on "until", the field that closes the range: an empty range is never what was meant.
            self.add_error("until", "must be later than From (a range that ends before it starts holds nothing)")
        return data

    def audit_filter(self) -> AuditFilter:
        """The filter asked for; call it on a valid form (the pages show the errors of an invalid one)."""
        self.is_valid()
        data = self.cleaned_data
        return AuditFilter(
            since=data.get("since"),
            until=data.get("until"),
            client=data.get("client") or "",
            case=data.get("case"),
            actor=(data.get("actor") or "").strip(),
            action=data.get("action") or "",
            decision=data.get("decision") or "",
            reason=data.get("reason") or "",
            q=(data.get("q") or "").strip(),
        )

    def error_lines(self) -> list[str]:
        """Each error as "<field label>: <message>", so a message names what to correct."""
        return [f"{self._label(name)}: {message}" for name, messages in self.errors.items() for message in messages]

    def _label(self, name: str) -> str:
        field = self.fields.get(name)
        return str(field.label or name.capitalize()) if field is not None else "Filters"

    def page_number(self) -> int:
        self.is_valid()
        return self.cleaned_data.get("page") or 1


class ExportForm(forms.Form):
    format = forms.ChoiceField(choices=ExportFormat.choices)


class MetricsForm(forms.Form):
    since = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, label="Until (inclusive)", widget=forms.DateInput(attrs={"type": "date"}))

    DEFAULT_DAYS = 30

    def period(self, *, now: datetime) -> tuple[datetime, datetime]:
        """[since, until) as aware datetimes: whole days when given, else the last 30 days up to now."""
        self.is_valid()
        data = self.cleaned_data
        until = _day_start(data["until"] + timedelta(days=1)) if data.get("until") else now
        since = _day_start(data["since"]) if data.get("since") else until - timedelta(days=self.DEFAULT_DAYS)
        return since, max(until, since)


def _day_start(day) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))

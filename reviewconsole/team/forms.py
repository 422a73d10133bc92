"""The team admin's forms: add a person, set their roles; add a client, set its webhook and its limits."""

from __future__ import annotations

from django import forms
from django.core.validators import URLValidator

from reviewconsole.accounts.roles import Role
from reviewconsole.intake.models import Client
from reviewconsole.webhooks.models import DeliveryStatus

ROLE_CHOICES = [(role.value, role.label) for role in Role]


class RolesField(forms.MultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def __init__(self, **kwargs) -> None:
        super().__init__(choices=ROLE_CHOICES, required=False, **kwargs)

    def clean(self, value) -> list[Role]:
        return [Role(name) for name in super().clean(value)]


class PersonAddForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="Letters, digits and @ . + - _ only.")
    email = forms.EmailField(required=False)
    roles = RolesField()


class PersonRolesForm(forms.Form):
    roles = RolesField()


class DeliveryFilterForm(forms.Form):
    """Which deliveries to list: one client's, in one status."""

    client = forms.ModelChoiceField(queryset=Client.objects.order_by("name"), required=False, empty_label="All clients")
    status = forms.ChoiceField(choices=[("", "Any status"), *DeliveryStatus.choices], required=False)
    page = forms.IntegerField(min_value=1, required=False)


# Its own code, so the field's generic "Enter a valid URL." does not replace the message.
_HTTP = URLValidator(schemes=["http", "https"], message="Enter an http or https URL.", code="scheme")


class ClientAddForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="A unique name, e.g. support-bot.")
    webhook_url = forms.URLField(required=False, max_length=500, assume_scheme="https", validators=[_HTTP],
                                 help_text="Where decisions are POSTed, signed (optional).")


class ClientWebhookForm(forms.Form):
    webhook_url = forms.URLField(required=False, max_length=500, assume_scheme="https", validators=[_HTTP])
    new_secret = forms.BooleanField(required=False, label="Make a new signing secret")


class ClientLimitsForm(forms.Form):
    """A client's own limits (reviewconsole/intake/quotas.py): blank is the setting's default, 0 no limit."""

    # The bounds are the columns': requests a second as the setting allows, cases as an integer column holds.
    requests_per_second = forms.IntegerField(required=False, min_value=0, max_value=100_000,
                                             label="Requests per second")
    cases_per_day = forms.IntegerField(required=False, min_value=0, max_value=2_147_483_647, label="Cases per day")
    body_bytes_per_day = forms.IntegerField(required=False, min_value=0, max_value=10**15, label="Body bytes per day")

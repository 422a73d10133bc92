"""The risk budget an admin picks on the release-gate page: a share strictly between 0 and 1."""

from __future__ import annotations

from django import forms

BUDGET_ERROR = "max_unsafe_release_rate: a number strictly between 0 and 1, such as 0.05 for at most 5%"


class BudgetForm(forms.Form):
    """`max_unsafe_release_rate`, named as the constitution's policy names it."""

    max_unsafe_release_rate = forms.FloatField(
        label="Risk budget (max unsafe release rate)",
        # Django's FloatField already refuses NaN and infinities as "invalid".
        error_messages=dict.fromkeys(("required", "invalid"), BUDGET_ERROR),
    )

    def clean_max_unsafe_release_rate(self) -> float:
        budget: float = self.cleaned_data["max_unsafe_release_rate"]
        # Both ends are open: a budget of 0 no finite sample can meet, and 1 releases everything.
        if not 0.0 < budget < 1.0:
            raise forms.ValidationError(BUDGET_ERROR)
        return budget

    @property
    def error(self) -> str:
        """The one message to show beside the field; empty when valid or not yet checked."""
        errors = self.errors.get("max_unsafe_release_rate") if self.is_bound else None
        return str(errors[0]) if errors else ""

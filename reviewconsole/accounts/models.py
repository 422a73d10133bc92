"""What accounts keeps beside Django's users and groups: the serial that voids a person's set-password links."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SetPasswordStamp(models.Model):
    """A person's set-password serial, mixed into every link's token: raising it voids the links made before."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="+")
    serial = models.PositiveBigIntegerField(
        default=0, help_text="Raised by each new link, each change of roles and each (de)activation"
    )


class Digest(models.TextChoices):
    DAILY = "DAILY", "A daily digest"
    NONE = "NONE", "None"


class NotificationSetting(models.Model):
    """How a person hears of the cases assigned to them that are past their time to decision."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="notification_setting")
    digest = models.CharField(max_length=10, choices=Digest.choices, default=Digest.DAILY)
    updated_at = models.DateTimeField(auto_now=True)

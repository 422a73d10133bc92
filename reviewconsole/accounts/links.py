"""Set-password links: one-time, short-lived, and only the newest one of a person works.

A link is Django's password-reset token (it stops once the password is set or its owner signs in) with a
per-person serial mixed into its hash. Making a link, any change of the person's roles and deactivating or
reactivating the account raise the serial, so every link made before stops working, and two links made in the
same second differ. A link expires SET_PASSWORD_LINK_HOURS after it was made (Django's PASSWORD_RESET_TIMEOUT).
"""

from __future__ import annotations

from typing import cast

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AbstractUser, User
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from reviewconsole.accounts.models import SetPasswordStamp


class SetPasswordLinkTokens(PasswordResetTokenGenerator):
    key_salt = "reviewconsole.accounts.links.SetPasswordLinkTokens"

    def _make_hash_value(self, user: User, timestamp: int) -> str:
        serial = SetPasswordStamp.objects.filter(user_id=user.pk).values_list("serial", flat=True).first() or 0
        return f"{super()._make_hash_value(user, timestamp)}|{serial}"


set_password_tokens = SetPasswordLinkTokens()


def links_void(*, user: AbstractBaseUser) -> int:
    """Stop every set-password link of `user` made so far; returns the new serial.

    The person's stamp stays locked until the caller's transaction ends, so a link made in it is the newest.
    """
    with transaction.atomic():
        stamp, _ = SetPasswordStamp.objects.select_for_update().get_or_create(user_id=user.pk)
        stamp.serial += 1
        stamp.save(update_fields=["serial"])
    return stamp.serial


def set_password_path(user: AbstractUser) -> str:
    """A new one-time link for `user` to choose a password, which stops every link made before it."""
    with transaction.atomic():
        links_void(user=user)
        # The console's user model is Django's own (AUTH_USER_MODEL is not swapped), as the token's types say.
        token = set_password_tokens.make_token(cast(User, user))
    return reverse("password_set", args=[urlsafe_base64_encode(force_bytes(user.pk)), token])

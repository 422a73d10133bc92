"""Sign-in hardening: repeated wrong passwords lock a username out from an address; sessions expire."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


def _attempt(client: Client, password: str, address: str = "10.0.0.7"):
    return client.post("/login/", {"username": "rita", "password": password}, REMOTE_ADDR=address)


def test_five_wrong_passwords_lock_the_username_out_from_that_address_even_with_the_right_one(reviewer):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = _attempt(client, "wrong")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()
    locked = _attempt(client, "wrong")
    assert locked.status_code == 429
    assert "Too many sign-in attempts" in locked.content.decode()
    # Locked out: the right password does not get in either, from that address.
    assert _attempt(client, "rita-password").status_code == 429
    # Another address is not locked out by someone guessing elsewhere.
    assert _attempt(Client(), "rita-password", address="10.0.0.8").status_code == 302


def test_a_successful_sign_in_resets_the_count(reviewer):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _attempt(client, "wrong")
    assert _attempt(client, "rita-password").status_code == 302
    other = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _attempt(other, "wrong").status_code == 200


def test_a_session_ends_at_its_maximum_age(reviewer):
    client = Client()
    response = _attempt(client, "rita-password")
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert int(cookie["max-age"]) == settings.SESSION_COOKIE_AGE == 12 * 3600
    session = client.session
    session.set_expiry(-1)  # as the session store sees it once its age has passed
    session.save()
    assert client.get("/review/").status_code == 302

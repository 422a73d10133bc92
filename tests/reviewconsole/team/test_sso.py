"""Single sign-on against a real OpenID Connect provider on 127.0.0.1 (oidc-provider-mock).

The provider issues signed ID tokens and serves its keys and userinfo over HTTP; the console runs the
whole code flow against it, as it would against a company's identity provider.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from oidc_provider_mock import run_server_in_thread

from reviewconsole.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    with run_server_in_thread() as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture
def sso(provider: str, settings) -> str:
    settings.OIDC_ENABLED = True
    settings.OIDC_RP_CLIENT_ID = "review-console"
    settings.OIDC_RP_CLIENT_SECRET = "console-secret"
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = f"{provider}/oauth2/authorize"
    settings.OIDC_OP_TOKEN_ENDPOINT = f"{provider}/oauth2/token"
    settings.OIDC_OP_USER_ENDPOINT = f"{provider}/userinfo"
    settings.OIDC_OP_JWKS_ENDPOINT = f"{provider}/jwks"
    settings.OIDC_RP_SIGN_ALGO = "RS256"
    settings.OIDC_VERIFY_KID = False  # this provider signs with one key and names none in its tokens
    settings.OIDC_ROLE_MAP = "console-reviewers=reviewer, console-audit=support-lead"
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, "reviewconsole.team.sso.RoleMappingBackend"]
    settings.ROOT_URLCONF = "tests.reviewconsole.team.sso_urls"
    return provider


def _sign_in(provider: str, client: Client, sub: str, claims: dict) -> httpx.Response:
    """The whole code flow: the console sends the browser to the provider, the person signs in there,
    the provider sends the browser back with a code, the console redeems it."""
    assert httpx.put(f"{provider}/users/{sub}", json=claims).status_code == 204
    start = client.get("/oidc/authenticate/", {"next": "/"})
    assert start.status_code == 302 and start["Location"].startswith(f"{provider}/oauth2/authorize")
    back = httpx.post(start["Location"], data={"sub": sub})
    assert back.status_code == 302
    callback = urlsplit(back.headers["Location"])
    assert callback.path == "/oidc/callback/"
    return client.get(f"{callback.path}?{callback.query}", follow=True)


def test_a_person_signs_in_through_the_provider_and_their_group_becomes_a_role(sso):
    client = Client()
    page = _sign_in(sso, client, "u-1001", {"preferred_username": "ada", "email": "ada@example.com",
                                             "groups": ["console-reviewers", "unrelated"]})
    assert page.redirect_chain[-1][0] == "/review/"
    ada = User.objects.get(username="ada")
    assert ada.email == "ada@example.com" and not ada.has_usable_password()
    assert set(ada.groups.values_list("name", flat=True)) == {"reviewer"}
    added = AuditEvent.objects.get(action="person.added")
    assert added.actor == "sso" and added.payload["roles"] == ["reviewer"]


def test_the_provider_owns_the_roles_it_maps_and_an_admins_other_roles_stay(sso):
    ada = User.objects.create_user("ada", email="ada@example.com")
    client = Client()
    _sign_in(sso, client, "u-1001", {"preferred_username": "ada", "groups": ["console-reviewers"]})
    # Given by a team admin here; the provider does not map it.
    ada.groups.add(Group.objects.get_or_create(name="policy admin")[0])

    page = _sign_in(sso, Client(), "u-1001", {"preferred_username": "ada", "groups": ["console-audit"]})
    # Support lead and policy admin now: the home page lists both, and the queue is closed to her.
    assert page.redirect_chain[-1][0] == "/"
    assert "Open the audit trail" in page.content.decode() and "Open the constitutions" in page.content.decode()
    assert set(ada.groups.values_list("name", flat=True)) == {"support lead", "policy admin"}
    change = AuditEvent.objects.filter(action="person.roles_changed").order_by("id").last()
    assert change.actor == "sso" and change.payload["added"] == ["support lead"]
    assert change.payload["removed"] == ["reviewer"]


def test_a_deactivated_account_cannot_sign_in_through_the_provider(sso):
    User.objects.create_user("ada", is_active=False)
    client = Client()
    page = _sign_in(sso, client, "u-1001", {"preferred_username": "ada", "groups": ["console-reviewers"]})
    assert page.redirect_chain[-1][0] == "/login/?sso=refused"
    assert "Single sign-on did not sign you in" in page.content.decode()
    assert client.get("/review/").status_code == 302


def test_the_sign_in_page_offers_single_sign_on_when_it_is_configured(sso, settings):
    settings.OIDC_PROVIDER_NAME = "Acme ID"
    page = Client().get("/login/").content.decode()
    assert "Sign in with Acme ID" in page and 'href="/oidc/authenticate/' in page

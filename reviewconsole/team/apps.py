from __future__ import annotations

from django.apps import AppConfig
from django.core import checks


class TeamConfig(AppConfig):
    name = "reviewconsole.team"
    label = "team"
    verbose_name = "Running the console for a team: people, sign-in, API clients, webhook deliveries"

    def ready(self) -> None:
        checks.register(_role_map_check, checks.Tags.security)


def _role_map_check(app_configs, **kwargs) -> list[checks.CheckMessage]:
    """A mistyped OIDC_ROLE_MAP is reported at start-up, not at someone's first sign-in."""
    from django.core.exceptions import ImproperlyConfigured

    from reviewconsole.team.sso import role_map

    try:
        role_map()
    except ImproperlyConfigured as error:
        return [checks.Error(str(error), id="team.E001")]
    return []

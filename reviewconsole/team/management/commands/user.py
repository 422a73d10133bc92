"""`manage.py user …`: people and their roles from the command line, audited like the People page.

    manage.py user add alice --role team-admin        # the first admin: prints a set-password link
    manage.py user add bob --role reviewer --email bob@example.com --password-stdin < password.txt
    manage.py user roles bob --grant support-lead --revoke reviewer
    manage.py user deactivate bob | reactivate bob | link bob | list
"""

from __future__ import annotations

import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewconsole.accounts.roles import Role
from reviewconsole.audit.actions import COMMAND_LINE
from reviewconsole.team import selectors, services

ACTOR = COMMAND_LINE


def _role(text: str) -> Role:
    try:
        return Role.named(text)
    except ValueError as error:
        raise CommandError(f"--role: {error}") from None


class Command(BaseCommand):
    help = "Add people, give and take roles, deactivate accounts (every change is audited)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, parser_class=CommandParser)
        add = actions.add_parser("add", help="add a person; prints a one-time set-password link")
        add.add_argument("username")
        add.add_argument("--role", dest="roles", action="append", default=[],
                         help=f"repeatable: {', '.join(role.slug for role in Role)}")
        add.add_argument("--email", default="")
        add.add_argument("--password-stdin", action="store_true",
                         help="read a password from standard input instead of printing a link")
        roles = actions.add_parser("roles", help="give (--grant) or take away (--revoke) roles")
        roles.add_argument("username")
        roles.add_argument("--grant", action="append", default=[])
        roles.add_argument("--revoke", action="append", default=[])
        for name, text in (("deactivate", "stop an account signing in (its sessions end at once)"),
                           ("reactivate", "let a deactivated account sign in again"),
                           ("link", "print a new one-time set-password link")):
            actions.add_parser(name, help=text).add_argument("username")
        actions.add_parser("list", help="everyone, with roles and status")

    def handle(self, *args: object, action: str, **options) -> None:
        try:
            getattr(self, f"_{action}")(**options)
        except ValidationError as error:
            raise CommandError("; ".join(
                f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items()
            )) from None

    def _add(self, *, username: str, roles: list[str], email: str, password_stdin: bool, **_) -> None:
        wanted = [_role(text) for text in roles]
        password = None
        if password_stdin:
            password = sys.stdin.readline().rstrip("\n")
            if not password:
                raise CommandError("--password-stdin: standard input held no password")
        user, path = services.person_add(actor=ACTOR, username=username, email=email, roles=wanted, password=password)
        self.stdout.write(f"Added {user.username} ({', '.join(role.value for role in wanted) or 'no role'}).")
        if path:
            self._print_link(user.username, path)

    def _roles(self, *, username: str, grant: list[str], revoke: list[str], **_) -> None:
        if not grant and not revoke:
            raise CommandError("roles: give --grant ROLE or --revoke ROLE")
        user = self._user(username)
        granted = {_role(text) for text in grant}
        revoked = {_role(text) for text in revoke}
        if granted & revoked:
            both = ", ".join(sorted(role.value for role in granted & revoked))
            raise CommandError(f"--grant and --revoke both name {both}")
        change = services.person_roles_change(actor=ACTOR, user=user,
                                              roles=(selectors.roles_held(user) | granted) - revoked)
        held = sorted(role.value for role in selectors.roles_held(user))
        outcome = "changed" if change else "unchanged"
        self.stdout.write(f"{user.username}: {outcome}; roles now: {', '.join(held) or 'none'}.")

    def _deactivate(self, *, username: str, **_) -> None:
        user = self._user(username)
        changed = services.person_active_set(actor=ACTOR, user=user, active=False)
        self.stdout.write(f"{user.username} {'deactivated' if changed else 'was already deactivated'}.")

    def _reactivate(self, *, username: str, **_) -> None:
        user = self._user(username)
        changed = services.person_active_set(actor=ACTOR, user=user, active=True)
        self.stdout.write(f"{user.username} {'reactivated' if changed else 'was already active'}.")

    def _link(self, *, username: str, **_) -> None:
        user = self._user(username)
        self._print_link(user.username, services.invitation_renew(actor=ACTOR, user=user))

    def _list(self, **_) -> None:
        for person in selectors.people():
            roles = ", ".join(group.name for group in person.groups.all()) or "no role"
            self.stdout.write(f"{person.username}\t{'active' if person.is_active else 'deactivated'}\t{roles}")

    def _user(self, username: str):
        try:
            return get_user_model().objects.get(username__iexact=username.strip())
        except get_user_model().DoesNotExist:
            raise CommandError(f"USERNAME: nobody is called {username!r}") from None

    def _print_link(self, username: str, path: str) -> None:
        link = settings.CONSOLE_BASE_URL.rstrip("/") + path
        hours = settings.SET_PASSWORD_LINK_HOURS
        self.stdout.write(f"Set-password link for {username} (works once, for {hours} hours): {link}")

"""Typed readers for settings that come from the environment.

Each reader refuses a bad value with `ImproperlyConfigured` naming the variable, so a typo in
a deployment fails at start-up instead of running with a silently wrong setting. Every name read
is recorded in `READ_VARIABLES`, which the tests use to check docker-compose.yml and .env.example.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Literal, overload
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

READ_VARIABLES: set[str] = set()

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    READ_VARIABLES.add(name)
    return os.environ.get(name)


@overload
def env_str(name: str, default: str, *, required: bool = False) -> str: ...
@overload
def env_str(name: str, default: None = None, *, required: Literal[True]) -> str: ...
@overload
def env_str(name: str, default: None = None, *, required: bool = False) -> str | None: ...
def env_str(name: str, default: str | None = None, *, required: bool = False) -> str | None:
    """The variable as text; `required` refuses an unset or empty value."""
    value = _raw(name)
    if value is None or value == "":
        if required:
            raise ImproperlyConfigured(f"{name} must be set")
        return default
    return value


def env_bool(name: str, default: bool = False) -> bool:
    """1/true/yes/on or 0/false/no/off (any case); anything else is refused."""
    value = _raw(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no, on/off), got {value!r}")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """A whole number, optionally bounded."""
    return _env_number(name, default, int, "a whole number", minimum, maximum)


def env_float(name: str, default: float, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """A decimal number, optionally bounded."""
    return _env_number(name, default, float, "a number", minimum, maximum)


def _env_number(name, default, parse, kind: str, minimum, maximum):
    value = _raw(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = parse(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind}, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name} must be at most {maximum}, got {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blanks between commas are dropped."""
    value = _raw(name)
    if value is None or value.strip() == "":
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, default: str, *, choices: tuple[str, ...]) -> str:
    """One of a fixed set of words (compared case-insensitively, returned as listed)."""
    value = _raw(name)
    if value is None or value.strip() == "":
        return default
    by_lower = {choice.lower(): choice for choice in choices}
    if value.strip().lower() not in by_lower:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return by_lower[value.strip().lower()]


def env_url(name: str, *, schemes: tuple[str, ...], required: bool = False) -> str | None:
    """A URL whose scheme is one of `schemes` and which names a host."""
    value = env_str(name, required=required)
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name} must be a URL starting with {' or '.join(s + '://' for s in schemes)}, got {value!r}"
        )
    if not parsed.hostname and parsed.scheme not in ("sqlite",):
        raise ImproperlyConfigured(f"{name} must name a host, got {value!r}")
    return value


def env_networks(name: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Comma-separated networks in CIDR form (`10.0.0.0/8, fd00::/8`; a bare address is one host); empty by default."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ipaddress.ip_network(item))
        except ValueError as error:
            raise ImproperlyConfigured(
                f"{name} must be comma-separated networks in CIDR form, like 10.0.0.0/8, got {item!r}: {error}"
            ) from None
    return networks

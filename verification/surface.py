"""A package's public names, each imported from the module that defines it when it is first read, so that
importing the package loads no stage it does not use (a web process reads run records, not the scorer)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """The package's module `__getattr__`: `homes` maps each public name to "module" (the same name there)
    or "module:name"; a name read once is kept in the package's `namespace`."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = home.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        namespace[name] = value  # read once: later reads find it without this function
        return value

    return __getattr__

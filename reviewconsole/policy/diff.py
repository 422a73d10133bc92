"""What changed between two versions: fields, policy knobs, a constitution's rules or a rubric's fixtures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldChange:
    field: str
    before: Any
    after: Any

    @property
    def before_text(self) -> str | None:
        return shown(self.before)

    @property
    def after_text(self) -> str | None:
        return shown(self.after)


def shown(value: Any) -> str | None:
    """A stored value as a policy admin reads it: a list as its quoted items, not Python's repr."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(f"“{item}”" if isinstance(item, str) else (shown(item) or "") for item in value) or "(none)"
    if isinstance(value, dict):
        return "; ".join(f"{key}: {shown(item)}" for key, item in value.items()) or "(none)"
    return str(value)


@dataclass(frozen=True)
class ItemChange:
    """A rule or fixture added, removed or changed (matched by name: renaming shows as removed plus added)."""

    name: str
    change: str
    """added, removed or changed."""
    fields: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class VersionDiff:
    fields: tuple[FieldChange, ...]
    """Top-level fields and policy knobs (as policy.<knob>) that differ."""
    items: tuple[ItemChange, ...]
    order_changed: bool

    @property
    def is_empty(self) -> bool:
        return not self.fields and not self.items and not self.order_changed


def _changed(before: dict[str, Any], after: dict[str, Any], prefix: str = "") -> tuple[FieldChange, ...]:
    keys = [*before, *(key for key in after if key not in before)]
    return tuple(
        FieldChange(prefix + key, before.get(key), after.get(key)) for key in keys if before.get(key) != after.get(key)
    )


def content_diff(
    older: dict[str, Any], newer: dict[str, Any], *, items: str, nested: tuple[str, ...] = ()
) -> VersionDiff:
    """The difference between two stored contents: top-level fields, the fields of each `nested` object
    (as "<object>.<field>"), and the named entries of the list `items` (a constitution's rules, a
    rubric's fixtures), matched by name."""
    plain = (items, *nested)
    top = _changed({k: v for k, v in older.items() if k not in plain},
                   {k: v for k, v in newer.items() if k not in plain})
    inner = tuple(change for key in nested
                  for change in _changed(older.get(key) or {}, newer.get(key) or {}, f"{key}."))
    old_items = {item["name"]: item for item in older.get(items) or []}
    new_items = {item["name"]: item for item in newer.get(items) or []}
    changes = []
    for name, item in new_items.items():
        if name not in old_items:
            changes.append(ItemChange(name, "added", _changed({}, item)))
        elif old_items[name] != item:
            changes.append(ItemChange(name, "changed", _changed(old_items[name], item)))
    changes.extend(ItemChange(name, "removed", _changed(item, {})) for name, item in old_items.items()
                   if name not in new_items)
    kept_old = [name for name in old_items if name in new_items]
    kept_new = [name for name in new_items if name in old_items]
    return VersionDiff((*top, *inner), tuple(changes), kept_old != kept_new)


def constitution_diff(older: dict[str, Any], newer: dict[str, Any]) -> VersionDiff:
    return content_diff(older, newer, items="rules", nested=("policy",))


def rubric_diff(older: dict[str, Any], newer: dict[str, Any]) -> VersionDiff:
    return content_diff(older, newer, items="fixtures")

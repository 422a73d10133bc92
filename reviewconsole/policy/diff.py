"""What changed between two versions: fields, policy knobs, a constitution's rules or a rubric's fixtures."""

from __future__ import annotations

import json
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from reviewconsole.policy.diff_words import field_words, value_words


@dataclass(frozen=True)
class FieldChange:
    field: str
    before: Any
    after: Any
    item: bool = False
    """A field of a rule or fixture (an absent value there means the entry was added or removed)."""

    @property
    def label(self) -> str:
        """The field as the editor names it, never its stored key."""
        return field_words(self.field, item=self.item)

    @property
    def before_text(self) -> str | None:
        return self._words(self.before)

    @property
    def after_text(self) -> str | None:
        return self._words(self.after)

    def _words(self, value: Any) -> str | None:
        return None if self.item and value is None else value_words(self.field, value)


@dataclass(frozen=True)
class ItemChange:
    """A rule or fixture added, removed, changed or renamed (a renamed one may have changed too)."""

    name: str
    change: str
    """added, removed, changed or renamed."""
    fields: tuple[FieldChange, ...] = ()
    previous_name: str = ""
    """The name it had before, when renamed."""


@dataclass(frozen=True)
class VersionDiff:
    fields: tuple[FieldChange, ...]
    """Top-level fields and policy knobs (as policy.<knob>) that differ."""
    items: tuple[ItemChange, ...]
    order_changed: bool

    @property
    def is_empty(self) -> bool:
        return not self.fields and not self.items and not self.order_changed


def _changed(
    before: dict[str, Any], after: dict[str, Any], prefix: str = "", *, item: bool = False
) -> tuple[FieldChange, ...]:
    keys = [*before, *(key for key in after if key not in before)]
    return tuple(
        FieldChange(prefix + key, before.get(key), after.get(key), item)
        for key in keys if before.get(key) != after.get(key)
    )


def content_diff(
    older: dict[str, Any], newer: dict[str, Any], *, items: str, nested: tuple[str, ...] = ()
) -> VersionDiff:
    """The difference between two stored contents: top-level fields, the fields of each `nested` object
    (as "<object>.<field>"), and the named entries of the list `items` (a constitution's rules, a
    rubric's fixtures), matched by name, and by content where a name is new (a rename)."""
    plain = (items, *nested)
    top = _changed({k: v for k, v in older.items() if k not in plain},
                   {k: v for k, v in newer.items() if k not in plain})
    inner = tuple(change for key in nested
                  for change in _changed(older.get(key) or {}, newer.get(key) or {}, f"{key}."))
    old_items = {item["name"]: item for item in older.get(items) or []}
    new_items = {item["name"]: item for item in newer.get(items) or []}
    renamed_from = {new: old for old, new in _renames(
        {name: item for name, item in old_items.items() if name not in new_items},
        {name: item for name, item in new_items.items() if name not in old_items},
    )}
    changes = []
    for name, item in new_items.items():
        if name in renamed_from:
            previous = renamed_from[name]
            changes.append(ItemChange(name, "renamed", _changed(old_items[previous], item, item=True), previous))
        elif name not in old_items:
            changes.append(ItemChange(name, "added", _changed({}, item, item=True)))
        elif old_items[name] != item:
            changes.append(ItemChange(name, "changed", _changed(old_items[name], item, item=True)))
    renamed = set(renamed_from.values())
    changes.extend(ItemChange(name, "removed", _changed(item, {}, item=True)) for name, item in old_items.items()
                   if name not in new_items and name not in renamed)
    # An item's identity is its name in the newer version; a renamed one keeps its place in the order.
    new_name_of = {name: name for name in old_items if name in new_items} | {
        old: new for new, old in renamed_from.items()
    }
    kept_old = [new_name_of[name] for name in old_items if name in new_name_of]
    kept_new = [name for name in new_items if name in old_items or name in renamed_from]
    return VersionDiff((*top, *inner), tuple(changes), kept_old != kept_new)


# How alike (difflib's ratio over everything but the name) a removed and an added entry of the same
# kind must be to count as one entry renamed; an admin who renames a rule often retouches it too.
RENAME_LIKENESS = 0.6


def _renames(removed: dict[str, dict[str, Any]], added: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """(old name, new name) for removed and added entries that are one entry renamed: the most alike
    pairs first, so an entry identical apart from its name always finds its twin."""
    scored: list[tuple[float, int, str, str]] = []
    for old_name, old in removed.items():
        for new_name, new in added.items():
            if old.get("kind") == new.get("kind"):
                likeness = _likeness(old, new)
                if likeness >= RENAME_LIKENESS:
                    scored.append((-likeness, len(scored), old_name, new_name))
    pairs: list[tuple[str, str]] = []
    for _, _, old_name, new_name in sorted(scored):
        if all(old_name != old and new_name != new for old, new in pairs):
            pairs.append((old_name, new_name))
    return pairs


def _likeness(old: dict[str, Any], new: dict[str, Any]) -> float:
    def body(item: dict[str, Any]) -> str:
        return json.dumps({key: value for key, value in item.items() if key != "name"}, sort_keys=True)

    before, after = body(old), body(new)
    return 1.0 if before == after else SequenceMatcher(None, before, after).ratio()


def constitution_diff(older: dict[str, Any], newer: dict[str, Any]) -> VersionDiff:
    return content_diff(older, newer, items="rules", nested=("policy",))


def rubric_diff(older: dict[str, Any], newer: dict[str, Any]) -> VersionDiff:
    return content_diff(older, newer, items="fixtures")

"""The built-in policy documents: the engine's constitutions and the console's critic rubric, as data.

A fresh database gets each as the published version 1 of its name from a migration (policy 0002), so
no page, selector or API check ever has to write them on the way. When an upgrade changes a built-in
(or adds one), `manage.py sync_builtins` brings it in through `services.builtins_sync`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from reviewconsole.policy.rubrics import BUILTIN_RUBRIC, BUILTIN_RUBRIC_NAME
from reviewconsole.policy.versioning import canonical_content, content_sha256
from verification import builtin, builtin_names

BUILTIN_NOTE = "built-in"


@dataclass(frozen=True)
class BuiltinDocument:
    """One built-in, as its stored version holds it."""

    kind: Literal["constitution", "rubric"]
    """Which kind of policy document: its models are `MODELS[kind]`."""
    name: str
    """The document's name."""
    content: dict[str, Any]
    """The canonical JSON a version of it stores."""

    @property
    def sha256(self) -> str:
        return content_sha256(self.content)


# (document model, version model) per kind, by app label and model name: a migration looks them up in
# its own historical registry, the running console in the real one.
MODELS = {
    "constitution": ("NamedConstitution", "ConstitutionVersion"),
    "rubric": ("Rubric", "RubricVersion"),
}


def builtin_documents() -> list[BuiltinDocument]:
    """Every built-in of this release: the engine's constitutions, then the critic rubric."""
    documents = [
        BuiltinDocument("constitution", name, canonical_content(constitution))
        for name in builtin_names()
        if (constitution := builtin(name)) is not None  # every name listed has one
    ]
    documents.append(BuiltinDocument("rubric", BUILTIN_RUBRIC_NAME, canonical_content(BUILTIN_RUBRIC)))
    return documents


def builtins_install(apps, *, now: datetime) -> list[str]:
    """Write each built-in whose name has no version yet as its published version 1; the names written.

    `apps` is an app registry: the migration passes its historical one, so this uses only what the
    policy tables held when they were created. It records no audit event: it writes what a new database
    starts with (as the migration creating the role groups does), not a change someone made; every
    later change goes through the services, which audit it.
    """
    written = []
    for document in builtin_documents():
        document_name, version_name = MODELS[document.kind]
        document_model = apps.get_model("policy", document_name)
        version_model = apps.get_model("policy", version_name)
        parent, _ = document_model.objects.get_or_create(name=document.name)
        if version_model.objects.filter(document=parent).exists():
            continue
        version_model.objects.create(
            document=parent, number=1, content=document.content, sha256=document.sha256, status="PUBLISHED",
            author=None, note=BUILTIN_NOTE, published_at=now,
        )
        written.append(document.name)
    return written

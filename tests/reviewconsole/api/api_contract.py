"""Holds every API response a test produces to the OpenAPI document the API serves.

A response under /api/ must be documented for its path, method and status, be JSON, and validate
against the schema the document gives it; an accepted submission's body must validate against the
document's request schema. Checked as each response arrives, so a drift fails the test that shows it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.test import Client
from django.urls import resolve
from jsonschema import Draft202012Validator

SERVER = "/api/v1"
DOCUMENT_PATH = f"{SERVER}/openapi.json"


@dataclass(frozen=True)
class Exchange:
    """One response, as the document names it: its path template, the documented method, its status."""

    path: str
    method: str
    status: int


@dataclass
class ApiResponses:
    """The API responses of one test, each checked against the served document as it arrives."""

    seen: list[Exchange] = field(default_factory=list)
    _document: dict[str, Any] | None = None
    _loading: bool = False

    @property
    def document(self) -> dict[str, Any]:
        """The OpenAPI document the API serves, fetched once per test."""
        if self._document is None:
            self._loading = True
            try:
                response = Client().get(DOCUMENT_PATH)
            finally:
                self._loading = False
            assert response.status_code == 200, response.content
            self._document = response.json()
        return self._document

    def observe(self, request: dict[str, Any], response) -> None:
        path, method = request["PATH_INFO"], request["REQUEST_METHOD"].lower()
        if self._loading or not path.startswith("/api/"):
            return
        self.seen.append(self._check(path, method, response))

    def _check(self, path: str, method: str, response) -> Exchange:
        where = f"{method.upper()} {path} -> {response.status_code}"
        assert response["Content-Type"] == "application/json", where
        body = response.json()
        template = self._template(path)
        if template is None:
            # The catch-all: any other path under /api/ is a 404 in the error shape.
            assert response.status_code == 404, where
            self._validate({"$ref": "#/components/schemas/Error"}, body, where)
            return Exchange("", method, 404)
        operations = self.document["paths"][template]
        if method not in operations and response.status_code == 405:
            # A method the path does not take: documented under the operation it does take.
            method = next(name for name, operation in operations.items() if "405" in operation["responses"])
        assert method in operations, f"{where}: the document has no {method.upper()} {template}"
        documented = operations[method]["responses"]
        assert str(response.status_code) in documented, f"{where}: {template} documents only {sorted(documented)}"
        content = documented[str(response.status_code)]["content"]
        self._validate(content["application/json"]["schema"], body, where)
        if response.status_code in (200, 202) and "requestBody" in operations[method]:
            sent = json.loads(response.wsgi_request.body)
            schema = operations[method]["requestBody"]["content"]["application/json"]["schema"]
            self._validate(schema, sent, f"the body accepted by {where}")
        return Exchange(template, method, response.status_code)

    def _template(self, path: str) -> str | None:
        if resolve(path).url_name is None:
            return None
        for template in self.document["paths"]:
            pattern = "[^/]+".join(re.escape(part) for part in re.split(r"\{[^}]+\}", SERVER + template))
            if re.fullmatch(pattern, path):
                return template
        raise AssertionError(f"{path} is a route of the API that the document does not describe")

    def _validate(self, schema: dict[str, Any], instance: Any, where: str) -> None:
        # The document's own components resolve the schema's "#/components/..." references.
        validator = Draft202012Validator({**schema, "components": self.document["components"]})
        errors = [
            f"{'.'.join(map(str, error.absolute_path)) or 'body'}: {error.message}"
            for error in validator.iter_errors(instance)
        ]
        assert not errors, f"{where} does not match the document: {errors[:5]}"

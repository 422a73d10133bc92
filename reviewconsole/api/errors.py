"""The API's answers: every body is one of schemas.py's models, and a refused request is an ApiError."""

from __future__ import annotations

from django.http import JsonResponse
from pydantic import BaseModel

from reviewconsole.api.schemas import Error, ErrorCode, FieldError


def json_response(body: BaseModel, status: int = 200) -> JsonResponse:
    """Every body the API sends is one of the models of schemas.py, so it is what the document says."""
    return JsonResponse(body.model_dump(mode="json", by_alias=True), status=status)


class ApiError(Exception):
    """A refused request: HTTP status, a machine-readable code, and the fields at fault."""

    def __init__(self, status: int, code: ErrorCode, errors: list[FieldError]):
        super().__init__(code)
        self.status = status
        self.code = code
        self.errors = errors

    def response(self) -> JsonResponse:
        return json_response(Error.of(self.code, self.errors), status=self.status)


def field_error(status: int, code: ErrorCode, field: str, message: str) -> ApiError:
    return ApiError(status, code, [FieldError(field=field, message=message)])


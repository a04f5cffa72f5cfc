"""The API's JSON parser and the one reader of a validated body (`valid_body`). The parser: DRF's, except that JSON nested deeper than Python's parser can follow
(a RecursionError) is malformed input, 400 `malformed_json` (API.md, Fine points), not a 500."""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.request import Request


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - nested too deeply.") from exc


def valid_body(serializer_class: type, request: Request, **options: Any) -> dict[str, Any]:
    """The request's body as `serializer_class` validates it (400 with the fields' errors)."""
    data = serializer_class(data=request.data, **options)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)

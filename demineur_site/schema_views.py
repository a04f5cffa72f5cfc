"""The OpenAPI schema (`/api/schema/`) and its browsable page (`/api/docs/`), whose errors are
JSON like every other error under /api/ (API.md, Conventions).

drf-spectacular renders these views as YAML/OpenAPI and HTML; an error answer (405, 404 for
an unknown `format`, 406, 429) would take the same renderer and come out as YAML or as a bare
HTML page instead of the JSON error body."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response


class JsonErrorsMixin:
    def finalize_response(
        self, request: Request, response: HttpResponseBase, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if isinstance(response, Response) and response.status_code >= 400:
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = JSONRenderer.media_type
        return response


class SchemaView(JsonErrorsMixin, SpectacularAPIView):  # type: ignore[misc]
    pass


class DocsView(JsonErrorsMixin, SpectacularSwaggerSplitView):  # type: ignore[misc]
    """Swagger UI from drf-spectacular-sidecar's static files (SWAGGER_UI_DIST = "SIDECAR"),
    its start-up script from `?script` rather than inline, and a page template without an
    inline <style>: the page runs under the site's Content-Security-Policy like every other."""

    template_name = "frontend/swagger_ui.html"


def paths_as_written(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular spells the optional trailing slash of our routes (`/?$`) as `/`; the
    schema lists the paths as API.md writes them, without it (the slash is still accepted)."""
    result["paths"] = {
        (path.rstrip("/") or "/"): item for path, item in result.get("paths", {}).items()
    }
    return result


# --- Every answer in the schema, errors included: a client generated from it knows each -----

_ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
_ERROR_COMPONENTS = {
    "ErrorOut": {
        "type": "object",
        "properties": {"error": {"$ref": "#/components/schemas/ErrorDetailOut"}},
        "required": ["error"],
    },
    "ErrorDetailOut": {
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "details": {"type": "object", "additionalProperties": {}},
        },
        "required": ["code", "details", "message"],
    },
}
_WHY = {
    "400": "Malformed input: `invalid` (field errors in `details.fields`), `malformed_json`, "
    "`out_of_bounds`, `invalid_page`, `invalid_page_size`, …",
    "401": "Not signed in, or an unknown token: `not_authenticated`, `authentication_failed`, "
    "`invalid_credentials`.",
    "403": "Not yours (`not_your_game`, `forbidden`) or a failed CSRF check (`csrf_failed`).",
    "404": "Unknown: `not_found` (a path parameter, or a page past the last).",
    "406": "The Accept header names no JSON: `not_acceptable`.",
    "409": "Not allowed in the current state (API.md, What is refused).",
    "413": "The body is over 64 KiB: `payload_too_large`.",
    "415": "The body is not JSON: `unsupported_media_type`.",
    "429": "Throttled: `throttled`, with `Retry-After`.",
    "503": "The database is unreachable: `service_unavailable`, with `Retry-After` "
    "(docs/RELIABILITY.md).",
}
_UNSAFE = {"post", "put", "patch", "delete"}


def _error_statuses(method: str, operation: dict[str, Any]) -> list[str]:
    params = operation.get("parameters", [])
    has_body = "requestBody" in operation
    statuses = ["406", "429", "503"]
    if operation.get("security") and operation["security"] != [{}]:
        statuses.append("401")  # any operation that reads a token refuses an unknown one
    if has_body or params:
        statuses.append("400")
    if any(p.get("in") == "path" or p.get("name") == "page" for p in params):
        statuses.append("404")
    if method in _UNSAFE:
        statuses.append("403")  # a session without its CSRF token
    if has_body:
        statuses += ["413", "415"]
    return statuses


# No string the API reads may hold a NUL character: PostgreSQL text cannot store one, so a
# query parameter with one is refused by demineur_site.middleware and a body string by DRF.
_NO_NUL = "^[^\\u0000]*$"


def _no_nul_strings(schema: dict[str, Any]) -> None:
    if schema.get("type") == "string" and not ({"enum", "format", "pattern"} & schema.keys()):
        schema["pattern"] = _NO_NUL
    elif "[^/]" in schema.get("pattern", ""):  # a path segment of our re_path routes
        schema["pattern"] = schema["pattern"].replace("[^/]", "[^/\\u0000]")
    for sub in schema.get("properties", {}).values():
        _no_nul_strings(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _no_nul_strings(schema[key])


def document_errors(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A POSTPROCESSING_HOOK: every operation lists the errors it can answer, each with the
    API.md error body, next to those its view declares (400, 404, 409…). Statuses that any
    request may meet (406, 429, 503; 401 on an unknown token; 400, 404, 413 and 415 wherever
    the request has input) are added here rather than on each view."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, component in _ERROR_COMPONENTS.items():
        schemas.setdefault(name, component)
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            body = operation.get("requestBody", {})
            media = body.get("content", {}).get("application/json", {})
            if media.get("schema") == {"$ref": "#/components/schemas/GameCreateInRequest"}:
                body["required"] = True  # `{level}` or a size: an empty POST is refused
            for code in _error_statuses(method, operation):
                responses.setdefault(
                    code,
                    {"description": "", "content": {"application/json": {"schema": _ERROR_REF}}},
                )
            for code, response in responses.items():
                if code[0] in "45":  # whatever a view declared, an error has the error body
                    response["content"] = {"application/json": {"schema": _ERROR_REF}}
                if code in _WHY and not response.get("description"):
                    response["description"] = _WHY[code]
            operation["responses"] = dict(sorted(responses.items()))
    for name, component in schemas.items():
        if name.endswith("Request"):
            _no_nul_strings(component)
    for item in result.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict):
                for param in operation.get("parameters", []):
                    _no_nul_strings(param.get("schema", {}))
    create = schemas.get("GameCreateInRequest")
    if create is not None and "oneOf" not in create:
        # `{level}` or `{width, height, mines}`, never both (API.md, Games). Other keys are
        # ignored, as everywhere.
        # `no_guess` (and any other option) goes with either.
        props = create.get("properties", {})
        custom = ["width", "height", "mines"]
        options = {k: v for k, v in props.items() if k not in {"level", *custom}}
        create.clear()
        create["oneOf"] = [
            {
                "type": "object",
                "properties": {"level": props["level"], **options},
                "required": ["level"],
                "not": {"anyOf": [{"required": [k]} for k in custom]},
            },
            {
                "type": "object",
                "properties": {**{k: props[k] for k in custom}, **options},
                "required": custom,
                "not": {"required": ["level"]},
            },
        ]
    return result

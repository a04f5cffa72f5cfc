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

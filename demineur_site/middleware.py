"""Edge guards that keep bad input from ever reaching the database."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from .api_errors import error_body


class RejectNulCharactersMiddleware:
    """PostgreSQL text cannot hold NUL characters: a path or query string carrying one is
    malformed input (400), not a database error. JSON bodies are covered by DRF's CharField,
    which refuses NUL in every string it validates."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.GET.lists()
        if "\x00" in request.path or any("\x00" in v for _, values in query for v in values):
            return JsonResponse(
                error_body("invalid", "NUL characters are not allowed in a path or query."),
                status=400,
            )
        return self.get_response(request)

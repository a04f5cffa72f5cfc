"""What every room's REST doors share: the signed-in player, one page of a list, a list's
schema and filters, a file download's schema. Imports no room: each door passes in its rows,
its shapes and its serializers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from demineur_site.api_errors import ApiError
from demineur_site.pagination import Pagination, page_number
from games.api.serializers import ErrorOut, PageQuery

F = TypeVar("F", bound=Callable[..., Any])


def signed_in(request: Request) -> User:
    if not request.user.is_authenticated:
        raise ApiError("not_authenticated", "Sign in or send `Authorization: Token <key>`.")
    return request.user


def paginated_response(
    request: Request, view: APIView, rows: Any, shape: Callable[[list[Any]], list[Any]]
) -> Response:
    """One page of `rows` (a queryset) as `{count, next, previous, results}`, each page's rows
    turned into JSON by `shape` (API.md, Lists)."""
    page_number(request)  # DRF's paginator took an empty one for 1
    paginator = Pagination()
    page: list[Any] = list(paginator.paginate_queryset(rows, request, view=view) or [])
    return paginator.get_paginated_response(shape(page))


def list_schema(
    *, tag: str, page: type, states: list[str], levels: list[str], by: str
) -> Callable[[F], F]:
    """The schema of a list: `?state=` (comma-separated), `?level=`, `?<by>=` and the page."""
    return extend_schema(
        parameters=[
            OpenApiParameter("state", str, enum=states),
            OpenApiParameter("level", str, enum=levels),
            OpenApiParameter(by, str),
            PageQuery,
        ],
        responses={200: page, 400: ErrorOut, 404: ErrorOut},
        operation_id=f"{tag}_list",
        tags=[tag],
    )


def list_filters(request: Request, by: str) -> dict[str, str | None]:
    """The filters list_schema documents: `?state=`, `?level=` and `?<by>=` (absent: None)."""
    params = request.query_params
    return {"state": params.get("state"), "level": params.get("level"), by: params.get(by)}


def file_responses(
    content_type: str, kind: OpenApiTypes, description: str, errors: dict[int, Any]
) -> dict[Any, Any]:
    """The schema's responses of a file download: a 200 of `content_type`, then `errors`."""
    return {(200, content_type): OpenApiResponse(kind, description=description), **errors}

"""Pagination of every list and board: {count, next, previous, results}, 50 rows, page_size up
to 200. The one reader of `?page=` and `?page_size=` (API.md, Lists)."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.utils.urls import remove_query_param, replace_query_param

from .api_errors import ApiError


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200  # larger values are clamped (API.md, Fine points)

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if size < 1:
            raise ApiError("invalid_page_size", "page_size must be a positive integer.")
        return min(size, self.max_page_size)


def page_number(request: Request) -> int:
    """`?page=`: an integer from 1 in ASCII digits, as the schema says; absent is 1. Anything
    else (empty, signed, spaced, `3.0`) is 400 `invalid_page`."""
    raw = request.query_params.get("page")
    if raw is None:
        return 1
    if not (raw.isascii() and raw.isdigit() and int(raw) >= 1):
        raise ApiError("invalid_page", "page must be a positive integer.")
    return int(raw)


def page_link(request: Request, page: int) -> str:
    """The address of another page of the same board (`around` dropped: the page is explicit)."""
    url = remove_query_param(request.build_absolute_uri(), "around")
    return replace_query_param(url, "page", page) if page > 1 else remove_query_param(url, "page")

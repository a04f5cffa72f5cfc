"""Pagination of every list: {count, next, previous, results}, 50 rows, page_size up to 200."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

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
            raise ApiError(400, "invalid_page_size", "page_size must be a positive integer.")
        return min(size, self.max_page_size)

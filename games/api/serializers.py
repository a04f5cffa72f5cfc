"""The request and response shapes every room's REST doors share (validation only, and the
OpenAPI schema): strict JSON fields, a level's name, paging, a board's size, a cell, errors.
The rooms' own shapes are theirs (games/play/serializers.py, games/races/serializers.py,
games/arenas/serializers.py, accounts/standings/serializers.py).

API.md: coordinates, width, height and mines must be JSON integers; strings, floats,
booleans and null are malformed (400)."""

from __future__ import annotations

from typing import Any, cast

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine import LEVELS


class StrictIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "A JSON integer is required."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"invalid": "A JSON boolean is required."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers, booleans and null instead of coercing them."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


# The schema states what the service accepts (a schema-valid request must not be refused):
# the level names. The services still validate, with their own error details.
@extend_schema_field({"type": "string", "enum": list(LEVELS)})
class LevelNameField(StrictCharField):
    pass


class PageQuery(serializers.Serializer[Any]):
    """The paging query of every list (API.md, Lists): page from 1, page_size from 1 (above
    200 is clamped to 200)."""

    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1)


# The schema describes a class by the first docstring up its bases: the page's fields stand
# on a class without one, so a page can go undescribed (page_of's `described`).
class _PageFields(serializers.Serializer[Any]):
    count = serializers.IntegerField(help_text="How many rows the whole list has.")
    next = serializers.URLField(
        allow_null=True, help_text="The URL of the next page, or null on the last."
    )
    previous = serializers.URLField(
        allow_null=True, help_text="The URL of the previous page, or null on the first."
    )


class _PageOut(_PageFields):
    """API.md, Lists: `{count, next, previous, results}`."""


def page_of(
    name: str, row: type[serializers.Serializer[Any]], *, me: bool = False, described: bool = True
) -> type[serializers.Serializer[Any]]:
    """The shape of one page of a list of `row`s, `name` in the schema; with `me`, a board's
    page: the viewer's own row too, or null (API.md, Leaderboards and statistics). Without
    `described`, the schema gives the page no description (the lists' one is the default).

    Every list's page is the same but for its rows, so each list's page class is made here.
    DRF orders a serializer's fields by when each was made: `results` is made before `me`."""
    fields: dict[str, Any] = {"results": row(many=True, help_text="This page's rows, in order.")}
    if me:
        fields["me"] = row(
            allow_null=True,
            help_text="The signed-in viewer's own row wherever it is, or null (anonymous, or "
            "no row).",
        )
    base = _PageOut if described else _PageFields
    return cast(type[serializers.Serializer[Any]], type(name, (base,), fields))


class BoardOut(serializers.Serializer[Any]):
    """What a Game and a Race share: an id and a board's level and size (API.md)."""

    id = serializers.UUIDField(help_text="Its id (a UUID).")
    level = serializers.CharField(
        help_text="The level's name (`beginner` ... `marathon`), or `custom` for a board of a custom size."
    )
    width = serializers.IntegerField(help_text="Columns: `x` goes from 0 to width - 1.")
    height = serializers.IntegerField(help_text="Rows: `y` goes from 0 to height - 1.")
    mines = serializers.IntegerField(help_text="Mines on the board.")


class CellOut(serializers.Serializer[Any]):
    x = serializers.IntegerField(help_text="The column, from 0.")
    y = serializers.IntegerField(help_text="The row, from 0.")


class ErrorDetailOut(serializers.Serializer[Any]):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField()


class ErrorOut(serializers.Serializer[Any]):
    error = ErrorDetailOut()


# The refusals a door that acts for a signed-in player may answer.
ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut}

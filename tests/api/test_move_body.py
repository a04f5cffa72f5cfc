"""The move body's fast reading (games.play.serializers.plain_move_body) against the serializers
it stands in for: whatever it accepts, MoveIn / FlagIn accept with the same validated data."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.play.serializers import FlagIn, MoveIn, plain_move_body

_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**33), max_value=2**33),
    st.floats(allow_nan=False),
    st.text(max_size=70),
    st.sampled_from(["3", "", " 1", "a\tb", "\x00", "\ud800", "x" * 64, "x" * 65]),
    st.lists(st.integers(), max_size=2),
)
_bodies = st.one_of(
    st.dictionaries(
        st.sampled_from(["x", "y", "flagged", "client_move_id", "other"]), _values, max_size=5
    ),
    st.fixed_dictionaries(
        {"x": st.integers(-5, 5000), "y": st.integers(-5, 5000)},
        optional={
            "flagged": st.booleans(),
            "client_move_id": st.text(min_size=0, max_size=66),
            "other": _values,
        },
    ),
    st.lists(st.integers(), max_size=2),
    st.none(),
)


@pytest.mark.parametrize("serializer", [MoveIn, FlagIn])
@settings(max_examples=400, deadline=None)
@given(body=_bodies)
def test_what_it_accepts_the_serializer_accepts_alike(serializer: type, body: Any) -> None:
    fast = plain_move_body(body, flag=serializer is FlagIn)
    checked = serializer(data=body)
    if fast is not None:
        assert checked.is_valid(), checked.errors
        assert fast == dict(checked.validated_data)


@pytest.mark.parametrize(
    ("body", "flag", "expected"),
    [
        ({"x": 1, "y": 2}, False, {"x": 1, "y": 2}),
        (
            {"x": 1, "y": 2, "client_move_id": "m-1"},
            False,
            {"x": 1, "y": 2, "client_move_id": "m-1"},
        ),
        ({"x": 0, "y": 0, "flagged": False}, True, {"x": 0, "y": 0, "flagged": False}),
        ({"x": 0, "y": 0, "flagged": True}, False, {"x": 0, "y": 0}),  # reveal ignores it
        ({"x": 1.0, "y": 2}, False, None),
        ({"x": True, "y": 2}, False, None),
        ({"x": "1", "y": 2}, False, None),
        ({"x": 1}, False, None),
        ({"x": 1, "y": 2, "client_move_id": ""}, False, None),
        ({"x": 1, "y": 2, "client_move_id": "a\x00"}, False, None),
        ({"x": 1, "y": 2, "flagged": None}, True, None),
        ([1, 2], False, None),
    ],
)
def test_the_common_bodies_and_the_ones_left_to_the_serializer(
    body: Any, flag: bool, expected: dict[str, Any] | None
) -> None:
    assert plain_move_body(body, flag=flag) == expected

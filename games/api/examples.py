"""Examples of the main objects for the OpenAPI schema (OpenApiExample), as API.md shows them:
a Game being played and one ended, a MoveResult, a Race, an Arena, a Puzzle and a page. The
rooms' doors attach them to their operations; they are data only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

GAME_ID = "3f2c9a4e-8b1d-4c6e-9a7f-2d5b8e1c4a90"
RACE_ID = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
ARENA_ID = "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c"

PLAYING_GAME: dict[str, Any] = {
    "id": GAME_ID,
    "player": "alice",
    "level": "beginner",
    "width": 9,
    "height": 9,
    "mines": 10,
    "no_guess": False,
    "state": "playing",
    "mines_left": 9,
    "elapsed_ms": 4210,
    "created_at": "2026-12-03T10:15:00.120000Z",
    "started_at": "2026-12-03T10:15:02.480000Z",
    "ended_at": None,
    "ranked": True,
    "unranked_reason": None,
    "race": None,
    "daily": None,
    "end_reason": None,
    "result_stats": None,
    "seq": 3,
    "board": [
        "000001###",
        "000001F##",
        "000112###",
        "00012####",
        "0001#####",
        "0001#####",
        "001######",
        "001######",
        "001######",
    ],
    "analysis": None,
}
NEW_GAME = {
    **PLAYING_GAME,
    "state": "new",
    "mines_left": 10,
    "elapsed_ms": 0,
    "started_at": None,
    "seq": 0,
    "board": ["#########"] * 9,
}

game = OpenApiExample("A game being played", value=PLAYING_GAME, response_only=True)
new_game = OpenApiExample("A new game", value=NEW_GAME, response_only=True, status_codes=["201"])
new_game_request = OpenApiExample(
    "A no-guess expert game", value={"level": "expert", "no_guess": True}, request_only=True
)
custom_game_request = OpenApiExample(
    "A custom board", value={"width": 20, "height": 12, "mines": 40}, request_only=True
)
game_page = OpenApiExample(
    "A page of games",
    value={"count": 1, "next": None, "previous": None, "results": [PLAYING_GAME]},
    response_only=True,
)
move_result = OpenApiExample(
    "A reveal that opened cells",
    value={
        "game": {**PLAYING_GAME, "seq": 4},
        "changes": [{"x": 6, "y": 3, "v": "1"}, {"x": 6, "y": 4, "v": "2"}],
        "seq": 4,
    },
    response_only=True,
)
move_request = OpenApiExample(
    "A move with its idempotency key",
    value={"x": 6, "y": 3, "client_move_id": "b7-0042"},
    request_only=True,
)
race = OpenApiExample(
    "A race that has started",
    value={
        "id": RACE_ID,
        "code": "K7QX2M",
        "level": "beginner",
        "width": 9,
        "height": 9,
        "mines": 10,
        "state": "running",
        "host": "alice",
        "max_players": 8,
        "quick": False,
        "no_guess": False,
        "arena": None,
        "rated": True,
        "time_limit_ms": 300000,
        "seq": 7,
        "created_at": "2026-12-03T10:00:00Z",
        "starts_at": "2026-12-03T10:01:03Z",
        "started_at": "2026-12-03T10:01:03Z",
        "ended_at": None,
        "start_cell": {"x": 4, "y": 4},
        "racers": [
            {
                "player": "alice",
                "player_kind": "human",
                "ready": True,
                "game": GAME_ID,
                "state": "racing",
                "opened": 31,
                "safe_cells": 71,
                "flags": 2,
                "elapsed_ms": 9100,
                "place": None,
                "rating_before": None,
                "rating_after": None,
            }
        ],
    },
    response_only=True,
)
arena = OpenApiExample(
    "An arena running",
    value={
        "id": ARENA_ID,
        "code": "Q4T7WZ",
        "name": "Hourly Beginner",
        "level": "beginner",
        "no_guess": False,
        "players": "humans",
        "private": False,
        "state": "running",
        "starts_at": "2026-12-03T10:00:00Z",
        "ends_at": "2026-12-03T10:30:00Z",
        "ended_at": None,
        "created_by": None,
        "time_limit_ms": 300000,
        "seq": 41,
        "joined": 12,
        "min_players": 2,
        "me": {
            "score": 7,
            "race": None,
            "active": True,
            "rank": 3,
            "streak": 2,
            "fire": True,
            "eligible_at": "2026-12-03T10:12:00Z",
        },
    },
    response_only=True,
)
puzzle = OpenApiExample(
    "A puzzle being tried",
    value={
        "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        "level": "intermediate",
        "width": 16,
        "height": 10,
        "mines_left": 17,
        "board": ["##12#" + "#" * 11] + ["#" * 16] * 9,
        "rating": 1640,
        "provisional": False,
        "plays": 312,
        "themes": ["pattern"],
        "daily": None,
        "attempt": {
            "state": "playing",
            "mode": "rated",
            "rated": True,
            "opened": [{"x": 3, "y": 4, "number": 2}],
            "wrong": None,
            "rating_before": 1500,
            "rating_after": None,
            "started_at": "2026-12-03T10:20:00Z",
            "ended_at": None,
        },
        "solution": None,
        "depth": None,
        "source_game": None,
    },
    response_only=True,
)

"""What a client's frame on ``/ws/games/{id}`` says, read without I/O (games.live.consumers sends).

Only the player's frames are parsed. A watcher's frame is never parsed: at most a plain
``"client_move_id": "..."`` is found by one bounded regular expression and echoed. Everything
that is not a JSON object with a string ``action`` and valid fields raises the API.md error
(400 ``malformed_json`` or ``invalid``), never a 500; validation is the REST one
(games/api/serializers.py: coordinates are JSON integers, ``client_move_id`` at most 64 chars).

    >>> parse('{"action": "reveal", "x": 3, "y": 4}')
    {'action': 'reveal', 'x': 3, 'y': 4}
    >>> parse("[1]")
    Traceback (most recent call last):
    ...
    demineur_site.api_errors.ApiError: Send a JSON object with an `action`.
    >>> echoed_move_id('{"action": "flag", "client_move_id": "m-1"}')
    'm-1'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rest_framework import serializers

from demineur_site.api_errors import ApiError, flatten_detail
from games.api.serializers import FlagIn, MoveIn
from games.api.views import _plain_move_body as plain_move_body
from games.errors import GameError

MOVE_ACTIONS: dict[str, type[serializers.Serializer[Any]]] = {
    "reveal": MoveIn,
    "flag": FlagIn,
    "chord": MoveIn,
}
_CLIENT_MOVE_ID = re.compile(r'"client_move_id"\s*:\s*"([^"\\]{0,64})"')


def echoed_move_id(text_data: str | None) -> str | None:
    """The plain `client_move_id` of a frame that is not parsed (a watcher's), if any."""
    found = _CLIENT_MOVE_ID.search(text_data) if text_data is not None else None
    return found.group(1) if found else None


def parse(text_data: str | None) -> dict[str, Any]:
    """The player's frame as a JSON object (its size was checked before: socket_guard)."""
    if text_data is None:
        raise ApiError("invalid", "Send JSON text frames.")
    try:
        content = json.loads(text_data)
    except RecursionError:  # as REST (demineur_site.parsers): too deep to parse is malformed
        raise ApiError("malformed_json", "The message is nested too deeply to parse.") from None
    except ValueError:
        raise ApiError("malformed_json", "The message is not valid JSON.") from None
    if not isinstance(content, dict):
        raise ApiError("invalid", "Send a JSON object with an `action`.")
    return content


def client_move_id(content: dict[str, Any]) -> str | None:
    """What an error may echo: only what could be an id (validation says why if it is not)."""
    value = content.get("client_move_id")
    return value if isinstance(value, str) and len(value) <= 64 else None


def action_of(content: dict[str, Any], actions: Sequence[str]) -> str:
    """The frame's `action`, one of `actions` (400 `invalid` listing them otherwise)."""
    action = content.get("action")
    if not isinstance(action, str):
        raise ApiError("invalid", "`action` must be a string.", {"actions": list(actions)})
    if action not in actions:
        raise ApiError("invalid", f"Unknown action {action[:40]!r}.", {"actions": list(actions)})
    return action


def move_body(action: str, content: dict[str, Any]) -> dict[str, Any]:
    """The validated fields of a reveal, flag or chord (400 `invalid` with the field errors)."""
    data = {k: v for k, v in content.items() if k != "action"}
    # The REST doors' reading of a plainly well-formed body, without building a serializer
    # (a deep copy of its fields per frame: a twentieth of a socket move's CPU, issue 27).
    plain = plain_move_body(data, flag=action == "flag")
    if plain is not None:
        return plain
    serializer = MOVE_ACTIONS[action](data=data)
    if not serializer.is_valid():
        raise ApiError(
            "invalid",
            "The request is malformed.",
            {"fields": flatten_detail(serializer.errors)},
        )
    return dict(serializer.validated_data)


def not_allowed_to_move(user: Any) -> ApiError | GameError:
    if user is None or not user.is_authenticated:
        return ApiError("not_authenticated", "Sign in or send `Authorization: Token <key>`.")
    return GameError("not_your_game", "This game belongs to another player.")

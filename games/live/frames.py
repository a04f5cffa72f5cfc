"""What a client's frame says, read without I/O, and how every frame is written: the pieces
of frame reading every socket shares (the game socket's moves are read by games.play.sockets).

Only a player's frames are parsed. A watcher's frame is never parsed: at most a plain
``"client_move_id": "..."`` is found by one bounded regular expression and echoed. Everything
that is not a JSON object with a string ``action`` raises the API.md error (400
``malformed_json`` or ``invalid``), never a 500.

    >>> parse('{"action": "reveal", "x": 3, "y": 4}')
    {'action': 'reveal', 'x': 3, 'y': 4}
    >>> parse("[1]")
    Traceback (most recent call last):
    ...
    demineur_site.api_errors.ApiError: Send a JSON object with an `action`.
    >>> echoed_move_id('{"action": "flag", "client_move_id": "m-1"}')
    'm-1'
    >>> dumps({"type": "error", "seq": None})
    '{"type":"error","seq":null}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from demineur_site.api_errors import ApiError

_CLIENT_MOVE_ID = re.compile(r'"client_move_id"\s*:\s*"([^"\\]{0,64})"')


def dumps(payload: Any) -> str:
    """A frame's JSON text, compact: what every socket sends (and the NDJSON streams' lines,
    whose last one games.live.streams finds by its first key)."""
    return json.dumps(payload, separators=(",", ":"))


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

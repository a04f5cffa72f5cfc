"""NDJSON streams (API.md, Token scopes and event streams), for clients without a socket: the
line reading and ordering that the sync (client.Streams) and async (aio.Streams) iterators
share. A game stream that ends before its `ended` line is opened again (its first line is the
state again; lines already seen are skipped by `seq`): an early end is never taken for the
end of the game. An event stream ends for good when the server ends it (a newer stream of the
account replaced it) and is opened again after a network error."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import StreamEnded

GAME_END_TYPES = {"ended", "discarded"}


@dataclass
class GameLines:
    """The frames of one game stream in seq order, across reconnections."""

    path: str
    seq: int = -1
    over: bool = False

    def take(self, line: str) -> dict[str, Any] | None:
        if not line.strip():
            return None  # keep-alive
        frame: dict[str, Any] = json.loads(line)
        seq = frame.get("seq")
        kind = frame.get("type")
        if isinstance(seq, int) and kind not in ("state", "ended"):
            if seq <= self.seq:
                return None  # seen before the reconnection
            self.seq = seq
        elif isinstance(seq, int):
            self.seq = max(self.seq, seq)
        if kind in GAME_END_TYPES:
            self.over = True
        return frame

    def early_end(self, attempt: int, retries: int, cause: BaseException | None = None) -> None:
        if attempt >= retries:
            raise StreamEnded(f"{self.path} ended {attempt} times before the game did") from cause


def event_line(line: str) -> dict[str, Any] | None:
    if not line.strip():
        return None
    value: dict[str, Any] = json.loads(line)
    return value

"""NDJSON streams (API.md, Token scopes and event streams), for clients without a socket: the
line reading and ordering that the sync (client.Streams) and async (aio.Streams) iterators
share. A game stream that ends before its `ended` line is opened again (its first line is the
state again; lines already seen are skipped by `seq`): an early end is never taken for the
end of the game, and a game stream whose game was discarded ends on its last line (the
`not_found` error line docs/LIVE.md documents), yielded. An event stream ends for good when the server ends it (a newer stream of the
account replaced it) and is opened again after a network error. Empty lines are the server's
keep-alives (one at least every 7 s, from the start): skipped. A network error that outlasts
the reopenings (a read timeout included) is raised as the client's own TransportError
(RequestTimeout for a timeout), the httpx error as its `__cause__`.

`GameLines`, `EventLines` and `ExportLines` (a player's games export, read once) are each a `Followed`: what a client does with each line and
whether it opens the stream again after an end, so that each client's `Streams._follow` is
only the reading and the waiting (sync or async)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from ._transport import network_error
from .errors import StreamEnded

GAME_END_TYPES = {"ended", "discarded"}
# The last line of a game stream whose untapped game was discarded (its player started another
# of the same level, or left it a day): the API.md error body with this code. The game no
# longer exists, so the stream is over rather than opened again onto a 404.
DISCARDED_CODE = "not_found"


class Followed(Protocol):
    """One NDJSON stream as a client follows it: it opens `path`, passes each line to `take`
    (yielding what is not None), stops once `over`, and after any other end asks `reopen`."""

    path: str
    over: bool

    def take(self, line: str) -> dict[str, Any] | None: ...

    def reopen(self, attempt: int, reconnects: int, cause: Exception | None) -> bool:
        """After the `attempt`-th opening ended, by the server (`cause` None) or by a network
        error: True to open the stream again (after a back-off), False to end for good; or it
        raises, when the end is a failure."""
        ...


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
        # An error line carries the last seq sent (docs/LIVE.md), not a seq of its own: never
        # taken for a line seen before.
        if isinstance(seq, int) and kind not in ("state", "ended", "error"):
            if seq <= self.seq:
                return None  # seen before the reconnection
            self.seq = seq
        elif isinstance(seq, int):
            self.seq = max(self.seq, seq)
        if kind in GAME_END_TYPES or (
            kind == "error" and (frame.get("error") or {}).get("code") == DISCARDED_CODE
        ):
            self.over = True
        return frame

    def early_end(self, attempt: int, retries: int, cause: BaseException | None = None) -> None:
        if attempt >= retries:
            raise StreamEnded(f"{self.path} ended {attempt} times before the game did") from cause

    def reopen(self, attempt: int, reconnects: int, cause: Exception | None) -> bool:
        """A game stream that ended before the game is always opened again, until
        `reconnects` is spent: then StreamEnded."""
        self.early_end(attempt, reconnects, cause)
        return True


def _wrapped(path: str, cause: Exception) -> Exception:
    """What a stream cut by `cause` raises: the client's own error for an httpx one."""
    return network_error(path, cause) if isinstance(cause, httpx.HTTPError) else cause


def event_line(line: str) -> dict[str, Any] | None:
    if not line.strip():
        return None
    value: dict[str, Any] = json.loads(line)
    return value


@dataclass
class EventLines:
    """The account's event stream. It has no end of its own (`over` stays False): ended by
    the server, it ends for good (a newer stream of the account took over); cut by the
    network, it is opened again until `reconnects` is spent, then TransportError raised."""

    path: str
    over: bool = False

    def take(self, line: str) -> dict[str, Any] | None:
        return event_line(line)

    def reopen(self, attempt: int, reconnects: int, cause: Exception | None) -> bool:
        if cause is None:
            return False
        if attempt == reconnects:
            raise _wrapped(self.path, cause)
        return True


@dataclass
class ExportLines:
    """A player's games export (NDJSON, one ended Game a line): read once to its end. It is
    not opened again after a network error, which would start it over: the error is raised."""

    path: str
    over: bool = False

    def take(self, line: str) -> dict[str, Any] | None:
        return event_line(line)

    def reopen(self, attempt: int, reconnects: int, cause: Exception | None) -> bool:
        if cause is not None:
            raise _wrapped(self.path, cause)
        return False

"""NDJSON streams (API.md, Token scopes and event streams), for clients without a socket: the
line reading and ordering that the sync (client.Streams) and async (aio.Streams) iterators
share. A game stream that ends before its `ended` line is opened again (its first line is the
state again; lines already seen are skipped by `seq`): an early end is never taken for the
end of the game. An event stream ends for good when the server ends it (a newer stream of the
account replaced it) and is opened again after a network error. Empty lines are the server's
keep-alives (one at least every 7 s, from the start): skipped. A network error that outlasts
the reopenings (a read timeout included) is raised as the client's own TransportError.

`GameLines` and `EventLines` are both a `Followed`: what a client does with each line and
whether it opens the stream again after an end, so that each client's `Streams._follow` is
only the reading and the waiting (sync or async)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import StreamEnded, TransportError

GAME_END_TYPES = {"ended", "discarded"}


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

    def reopen(self, attempt: int, reconnects: int, cause: Exception | None) -> bool:
        """A game stream that ended before the game is always opened again, until
        `reconnects` is spent: then StreamEnded."""
        self.early_end(attempt, reconnects, cause)
        return True


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
            raise TransportError(f"{self.path}: {cause!r}") from cause
        return True

"""The order of one socket's game events, by ``seq``: what to send, what to hold, when to
re-read the game. Pure: no asyncio, no channels, no Django; the caller passes the clock
(seconds on any monotonic scale) and does the I/O (docs/LIVE.md, "Sequence rules").

The consumer of ``/ws/games/{id}`` owns one :class:`Sequencer` and

* calls :meth:`Sequencer.restart` each time it sends a ``state`` (on connect and after every
  re-read), then sends the held events that method returns;
* feeds each published event to :meth:`Sequencer.receive` and sends what it returns;
* calls :meth:`Sequencer.expect` after the player's own move was stored with a new seq;
* wakes at :meth:`Sequencer.wake_at` and asks :meth:`Sequencer.due` whether to re-read.

    >>> s = Sequencer()
    >>> s.restart(seq=1, ended=False)
    []
    >>> [e["seq"] for e in s.receive({"type": "move", "seq": 3}, now=10.0).send]
    []
    >>> s.wake_at()
    10.2
    >>> [e["seq"] for e in s.receive({"type": "move", "seq": 2}, now=10.1).send]
    [2, 3]
    >>> s.due(now=10.2) is None  # the gap closed in time: nothing to re-read
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# How long an event that skips a seq is held for the missing one before the game is re-read:
# two server processes publishing moves of one game can reach Redis in either order.
REORDER_WAIT_SECONDS = 0.2
# Redis Pub/Sub is fire-and-forget. When the player's own move was stored but its event has
# not come back after this long, re-read the game rather than leave the player waiting.
LOST_EVENT_SECONDS = 2.0

Event = Mapping[str, Any]  # a games.play.events game event: at least "type" and "seq"


@dataclass
class Step:
    """What to do with one event: send these, in this order (possibly none)."""

    send: list[Event] = field(default_factory=list)
    gone: bool = False  # the game was discarded: say so (404) and close


class Sequencer:
    """Rules (docs/LIVE.md): an event with seq <= the last seq sent is dropped (it is in the
    snapshot already), except ``ended``, which shares the seq of the move that ended the
    game and comes right after it; an event that skips a seq is held up to ``reorder_wait``
    for the missing one, then the game is re-read; after ``ended`` nothing more is sent; a
    move the player made whose event has not come back after ``lost_after`` is re-read."""

    def __init__(
        self,
        *,
        reorder_wait: float = REORDER_WAIT_SECONDS,
        lost_after: float = LOST_EVENT_SECONDS,
        ended_shares_seq: bool = True,
    ) -> None:
        # A game's `ended` shares the seq of the move that ended it; a race's `ended` is an
        # event of its own, numbered like the others (ended_shares_seq=False).
        self.ended_shares_seq = ended_shares_seq
        self.reorder_wait = reorder_wait
        self.lost_after = lost_after
        self.last_seq = -1  # the last seq sent to the socket; -1 before the first state
        self.ended = False
        self.held: dict[int, list[Event]] = {}  # events waiting for an earlier seq
        self._gap_deadline: float | None = None
        self._expected: tuple[int, float] | None = None  # (seq, deadline) of the player's move

    # --- what the consumer tells the sequencer ---------------------------------------------

    def restart(self, *, seq: int, ended: bool) -> list[Event]:
        """A ``state`` with this seq was just sent. Returns the held events now in line."""
        self.last_seq = seq
        self.ended = ended
        return self._release_held()

    def receive(self, event: Event, *, now: float) -> Step:
        """A published event arrived."""
        if self.ended:
            return Step()
        if event["type"] == "discarded":
            self._finish()
            return Step(gone=True)
        seq = int(event["seq"])
        if seq < self.last_seq or (seq == self.last_seq and not self._shares_seq(event)):
            return Step()  # already in the snapshot or already sent
        if self._in_line(event):
            return Step(send=[self._sent(event), *self._release_held()])
        # An event from the future: an earlier one is late (two server processes published
        # them) or lost. Hold it briefly; if the gap is still there, re-read the game.
        self.held.setdefault(seq, []).append(event)
        if self._gap_deadline is None:
            self._gap_deadline = now + self.reorder_wait
        return Step()

    def expect(self, seq: int, *, now: float) -> None:
        """The player's own move was stored with `seq`: make sure they hear of it, event lost
        or not. A newer move's expectation replaces an older one (it covers it)."""
        if seq > self.last_seq:
            self._expected = (seq, now + self.lost_after)

    # --- what the sequencer tells the consumer ---------------------------------------------

    def wake_at(self) -> float | None:
        """When :meth:`due` should next be asked (None: nothing pending)."""
        deadlines = [d for d in (self._gap_deadline, self._deadline_expected()) if d is not None]
        return min(deadlines) if deadlines else None

    def due(self, *, now: float) -> str | None:
        """Why the game must be re-read now (a gap that did not close, a lost event of the
        player's move), or None. Deadlines that passed are cleared."""
        why = None
        if self._expected is not None and now >= self._expected[1]:
            seq = self._expected[0]
            self._expected = None
            if self.last_seq < seq and not self.ended:
                why = f"the event of seq {seq} never came"
        if self._gap_deadline is not None and now >= self._gap_deadline:
            self._gap_deadline = None
            if self.held and not self.ended:
                why = f"seq {min(self.held)} after {self.last_seq}"
        return why

    # --- inside -------------------------------------------------------------------------------

    def _deadline_expected(self) -> float | None:
        return self._expected[1] if self._expected is not None else None

    def _shares_seq(self, event: Event) -> bool:
        return self.ended_shares_seq and event["type"] == "ended"

    def _in_line(self, event: Event) -> bool:
        if self._shares_seq(event):
            return bool(event["seq"] == self.last_seq)
        return bool(event["seq"] == self.last_seq + 1)

    def _sent(self, event: Event) -> Event:
        if event["type"] == "ended":
            self._finish()
        else:
            self.last_seq = int(event["seq"])
        return event

    def _finish(self) -> None:
        self.ended = True
        self.held.clear()
        self._gap_deadline = None
        self._expected = None

    def _release_held(self) -> list[Event]:
        """The held events that are now in line, in order; stale ones are forgotten."""
        out: list[Event] = []
        while self.held and not self.ended:
            self._drop_stale_held()
            waiting = [*self.held.get(self.last_seq, []), *self.held.get(self.last_seq + 1, [])]
            ready = [e for e in waiting if self._in_line(e)]
            if not ready:
                break
            event = ready[0]
            self.held[int(event["seq"])].remove(event)
            if not self.held[int(event["seq"])]:
                del self.held[int(event["seq"])]
            out.append(self._sent(event))
        if self.ended:
            self.held.clear()
        if not self.held:
            self._gap_deadline = None  # no gap left to wait for
        return out

    def _drop_stale_held(self) -> None:
        """Forget held events that a fresh state (or an earlier send) already covers."""
        for seq in list(self.held):
            kept = [e for e in self.held[seq] if self._in_line(e) or seq > self.last_seq]
            if kept:
                self.held[seq] = kept
            else:
                del self.held[seq]

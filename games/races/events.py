"""Race events (API.md, Races, `/ws/races/{id}`): one constructor each, published after the
commit through games.play.events' publisher. Every event carries the race's `seq`. No event ever
carries a cell: a racer is counts only.

    state      the whole Race, on connect (and after a gap)
    joined  left  ready  countdown  started      the whole Race too (an extension: a client
               never has to merge membership changes itself); `countdown` also carries
               `starts_at`, and `started` `started_at` and `start_cell`, at the top level
               where API.md names them (the same values as inside `race`)
    progress   player, opened, flags, state, elapsed_ms: after each of a racer's moves
    finished   player, state, elapsed_ms, opened: a racer is done (won, lost or left)
    ended      the whole Race with places and ratings
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, TypedDict
from uuid import UUID

from demineur_site import publish

RACE_EVENT_TYPE = "race.event"  # -> RaceConsumer.race_event()

RaceJson = dict[str, Any]  # games.races.presenters.race_dict


def race_group(race_id: UUID | str) -> str:
    return f"race.{race_id}"


class RaceStateEvent(TypedDict):
    type: Literal["state", "joined", "left", "ready", "ended"]
    seq: int
    race: RaceJson


class CountdownEvent(TypedDict):
    type: Literal["countdown"]
    seq: int
    race: RaceJson
    starts_at: str | None


class StartedEvent(TypedDict):
    type: Literal["started"]
    seq: int
    race: RaceJson
    started_at: str | None
    start_cell: dict[str, int] | None


class ProgressEvent(TypedDict):
    type: Literal["progress", "finished"]
    seq: int
    player: str
    opened: int
    flags: int
    state: str
    elapsed_ms: int


WholeRaceEvent = RaceStateEvent | CountdownEvent | StartedEvent
RaceEvent = WholeRaceEvent | ProgressEvent

WHOLE_RACE_TYPES = ("state", "joined", "left", "ready", "countdown", "started", "ended")


def race_event(kind: str, *, race: RaceJson) -> WholeRaceEvent:
    """`state`, `joined`, `left`, `ready`, `countdown`, `started` or `ended`: the Race as it
    is after the change (its `seq` is the event's). API.md lists `countdown` with `starts_at`
    and `started` with `started_at` and `start_cell`: those are copied to the top level of
    the message; `race` keeps them too (the page scripts read them there)."""
    if kind not in WHOLE_RACE_TYPES:
        raise ValueError(kind)
    seq = race["seq"]
    if kind == "countdown":
        return {"type": "countdown", "seq": seq, "race": race, "starts_at": race["starts_at"]}
    if kind == "started":
        return {
            "type": "started",
            "seq": seq,
            "race": race,
            "started_at": race["started_at"],
            "start_cell": race["start_cell"],
        }
    return {"type": kind, "seq": seq, "race": race}  # type: ignore[typeddict-item]


@dataclass(frozen=True)
class Counts:
    """What everyone may know of a racer during the race: counts, never cells."""

    player: str
    opened: int
    flags: int
    state: str
    elapsed_ms: int


def progress_event(*, seq: int, counts: Counts, finished: bool = False) -> ProgressEvent:
    """`progress` after each of a racer's moves; `finished` once they are done."""
    kind: Literal["progress", "finished"] = "finished" if finished else "progress"
    return {"type": kind, "seq": seq, **asdict(counts)}  # type: ignore[typeddict-item]


def race_on_commit(race_id: UUID | str, event: RaceEvent) -> None:
    """Publish `event` to the race's watchers once the transaction commits."""
    message = {"type": RACE_EVENT_TYPE, "race_id": str(race_id), "event": event}
    publish.on_commit(race_group(race_id), message)

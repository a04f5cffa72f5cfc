"""Arena events (API.md, Arenas, `/ws/arenas/{id}`; docs/ARENAS.md): one constructor each,
published after the commit through demineur_site.publish. Every event carries the arena's
`seq`. No event ever carries a cell: an arena's frames hold its Arena, standings rows and the
ids and players of its races.

    state      the Arena and the first page of standings, on connect (and after a gap)
    standings  the Arena and the first page again: after a race ends (`race`: its id), a
               player joins or leaves, the arena starts (`race`: null)
    race       `race` (its id) and `players` (their names) when a race forms
    ended      the Arena and the final standings (the first page)

The players' event streams (/api/stream/event) get `arena_race` (`arena`: its id, `race`: the
Race) when the player is paired, and `arena_end` (`arena`: the Arena) at the end.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict
from uuid import UUID

from demineur_site import publish
from games.play import events as play_events

ARENA_EVENT_TYPE = "arena.event"  # -> ArenaConsumer.arena_event()

ArenaJson = dict[str, Any]  # games.arenas.presenters.arena_dict
Row = dict[str, Any]  # games.arenas.presenters.standing_row


def arena_group(arena_id: UUID | str) -> str:
    return f"arena.{arena_id}"


class StandingsEvent(TypedDict):
    type: Literal["state", "standings", "ended"]
    seq: int
    arena: ArenaJson
    standings: list[Row]
    race: str | None  # the race whose end brought these standings, else null


class RaceFormedEvent(TypedDict):
    type: Literal["race"]
    seq: int
    race: str
    players: list[str]


ArenaEvent = StandingsEvent | RaceFormedEvent


def standings_event(
    kind: str, *, arena: ArenaJson, standings: list[Row], race: UUID | str | None = None
) -> StandingsEvent:
    """`state`, `standings` or `ended`: the Arena (its `seq` is the event's), the rows, and the
    race whose end brought them (a `standings` frame after a race's scoring; else null)."""
    if kind not in ("state", "standings", "ended"):
        raise ValueError(kind)
    return {
        "type": kind,  # type: ignore[typeddict-item]
        "seq": arena["seq"],
        "arena": arena,
        "standings": standings,
        "race": str(race) if race is not None else None,
    }


def race_formed_event(*, seq: int, race_id: UUID | str, players: list[str]) -> RaceFormedEvent:
    return {"type": "race", "seq": seq, "race": str(race_id), "players": players}


def arena_on_commit(arena_id: UUID | str, event: ArenaEvent) -> None:
    """Publish `event` to the arena's watchers once the transaction commits."""
    message = {"type": ARENA_EVENT_TYPE, "arena_id": str(arena_id), "event": event}
    publish.on_commit(arena_group(arena_id), message)


def player_arena_on_commit(player_id: int, kind: str, **body: Any) -> None:
    """`arena_race` or `arena_end` on the player's event stream after the commit."""
    play_events.player_on_commit(player_id, {"type": kind, **body})

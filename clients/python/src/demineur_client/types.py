"""The shapes of API.md's answers, as typed dictionaries (the server may add fields; a client
reads the ones it knows). Names and fields follow API.md."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

GameState = Literal["new", "playing", "paused", "won", "lost"]
RaceState = Literal["open", "countdown", "running", "finished", "cancelled"]
AttemptState = Literal["playing", "solved", "failed"]
Action = Literal["reveal", "flag", "chord"]


class Change(TypedDict):
    x: int
    y: int
    v: str


class ResultStats(TypedDict, total=False):
    bbbv: int
    clicks: int
    bbbv_per_s: float | None
    efficiency: float


class Game(TypedDict, total=False):
    id: str
    player: str
    level: str
    width: int
    height: int
    mines: int
    state: GameState
    mines_left: int
    elapsed_ms: int
    created_at: str
    started_at: str | None
    ended_at: str | None
    ranked: bool
    unranked_reason: str | None
    end_reason: str | None
    result_stats: ResultStats | None
    seq: int
    board: list[str] | None
    race: str | None
    no_guess: bool
    analysis: dict[str, Any] | None


class MoveResult(TypedDict):
    game: Game
    changes: list[Change]
    seq: int


class Move(TypedDict, total=False):
    seq: int
    action: str
    x: int | None
    y: int | None
    at_ms: int


class Racer(TypedDict, total=False):
    player: str
    ready: bool
    game: str | None
    state: str
    opened: int
    safe_cells: int
    flags: int
    elapsed_ms: int
    place: int | None
    rating_before: float | None
    rating_after: float | None


class Race(TypedDict, total=False):
    id: str
    code: str
    level: str
    width: int
    height: int
    mines: int
    state: RaceState
    host: str
    max_players: int
    rated: bool
    time_limit_ms: int
    seq: int
    created_at: str
    starts_at: str | None
    started_at: str | None
    ended_at: str | None
    start_cell: dict[str, int] | None
    racers: list[Racer]
    no_guess: bool


class ArenaMe(TypedDict, total=False):
    score: int
    race: str | None


class Arena(TypedDict, total=False):
    """`me` is None for someone who has not joined; `me.race` is the race they are in."""

    id: str
    code: str
    name: str
    level: str
    no_guess: bool
    players: Literal["humans", "bots"]
    state: Literal["scheduled", "running", "finished"]
    starts_at: str
    ends_at: str
    created_by: str | None
    joined: int
    me: ArenaMe | None


class QueuePlace(TypedDict, total=False):
    state: Literal["waiting", "matched"]
    level: str
    race: Race | None


class Page(TypedDict, total=False):
    count: int
    next: str | None
    previous: str | None
    results: list[dict[str, Any]]
    me: dict[str, Any] | None


class Profile(TypedDict, total=False):
    username: str
    kind: str
    date_joined: str
    stats: dict[str, dict[str, Any]]
    recent_games: list[dict[str, Any]]


class Account(TypedDict):
    id: int
    username: str
    kind: str


class Token(TypedDict, total=False):
    id: int
    name: str
    created_at: str
    token: str


class OpenedCell(TypedDict):
    x: int
    y: int
    number: int


class PuzzleCell(TypedDict):
    x: int
    y: int


class PuzzleAttempt(TypedDict, total=False):
    """The caller's attempt: made when the puzzle is shown, started at its first opening."""

    state: AttemptState
    mode: str
    rated: bool
    opened: list[OpenedCell]
    wrong: dict[str, Any] | None
    rating_before: int | None
    rating_after: int | None
    started_at: str | None
    ended_at: str | None


class Puzzle(TypedDict, total=False):
    """`board` as a Game's, without flags; `solution`, `depth` and `source_game` stay None
    until the caller's attempt has ended."""

    id: str
    level: str
    width: int
    height: int
    mines_left: int
    board: list[str]
    rating: int
    provisional: bool
    plays: int
    themes: list[str]
    daily: str | None
    attempt: PuzzleAttempt | None
    solution: list[PuzzleCell] | None
    depth: int | None
    source_game: str | None


class PuzzleRun(TypedDict, total=False):
    """A streak or a storm: `puzzle` is the one in play (None once it has ended)."""

    id: str
    kind: Literal["streak", "storm"]
    state: Literal["running", "ended"]
    score: int
    failures: int
    best: int
    created_at: str
    started_at: str | None
    ended_at: str | None
    ends_at: str | None
    time_left_ms: int | None
    penalty_ms: int | None
    puzzle: Puzzle | None
    puzzles: list[dict[str, Any]]


class PuzzleOpened(TypedDict):
    """An opening's answer: `correct` when the numbers proved the cell safe."""

    correct: bool
    puzzle: Puzzle
    run: PuzzleRun | None

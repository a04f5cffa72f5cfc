"""The integrity checker behind `manage.py verify_games` (docs/RELIABILITY.md).

Every stored game is replayed from its layout through the engine, move by move, and what the
replay gives is compared with what is stored: the board, the state and how it ended, `seq`
(1 to n, no gap), the clock (`at_ms` never goes back; an ended game's time is its last
move's), clicks and the counters of games.play.counters, the mine counter, 3BV, 3BV solved,
3BV/s and ZiNi, and the original `changes` kept for idempotent replays. Then each player's statistics are recomputed from their ended games
with the same pure rules the service applies (accounts.standings.records) and compared with the stored
rows. Anything that differs is a `Mismatch` naming the game (or the player and level).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accounts.models import User
from accounts.standings.models import PlayerStats
from accounts.standings.records import GameEnd, Summary, bucket_for, sets_bests, stats_after
from games.engine import Board, EngineError
from games.play import counters
from games.play.models import ENDED_STATES, SOLO, Action, EndReason, Game, GameState, Move

HAND = (Action.REVEAL, Action.FLAG, Action.CHORD)
# How a game may end, by its last move: the engine's status and the stored end_reason.
ENDINGS = {
    Action.RESIGN: EndReason.RESIGNED,
    Action.ABANDON: EndReason.ABANDONED,
}


@dataclass(frozen=True)
class Mismatch:
    subject: str  # "game <id>" or "stats <user id>/<level>"
    what: str

    def __str__(self) -> str:
        return f"{self.subject}: {self.what}"


def _closed_layout(board: Board) -> Board:
    """The layout as it was right after the mines were placed: every cell closed."""
    rows = ["".join("*" if ch in "*MX" else "." for ch in row) for row in board.to_ascii()]
    return Board.from_ascii(rows)


def _apply(board: Board, move: Move) -> list[dict[str, Any]] | None:
    """One stored move through the engine; its changes, or None for a move without any."""
    if move.action == Action.REVEAL:
        outcome = board.reveal(int(move.x or 0), int(move.y or 0))
    elif move.action == Action.FLAG:
        outcome = board.flag(int(move.x or 0), int(move.y or 0), move.flagged)
    elif move.action == Action.CHORD:
        outcome = board.chord(int(move.x or 0), int(move.y or 0))
    else:
        if move.action in ENDINGS:
            board.resign()
        return None
    return outcome.change_dicts()


def check_game(game: Game, moves: list[Move]) -> list[Mismatch]:
    """Everything about one stored game that its replay does not reproduce."""
    subject = f"game {game.id}"
    out: list[Mismatch] = []

    def bad(what: str) -> None:
        out.append(Mismatch(subject, what))

    seqs = [m.seq for m in moves]
    if seqs != list(range(1, len(moves) + 1)):
        bad(f"seq is not 1..{len(moves)} without gaps: {seqs[:20]}")
    if game.seq != len(moves):
        bad(f"game.seq is {game.seq} but {len(moves)} moves are stored")
    if game.state == GameState.NEW:
        if moves:
            bad("an untapped game has moves")
        return out
    stored = Board.decode(bytes(game.board))
    try:
        board = _closed_layout(stored)
    except EngineError as exc:
        return [*out, Mismatch(subject, f"the stored board has no layout ({exc})")]
    if game.bbbv != board.bbbv():
        bad(f"bbbv is {game.bbbv}, the layout's is {board.bbbv()}")
    if not moves or moves[0].action != Action.REVEAL or moves[0].at_ms != 0:
        bad("the first move is not a reveal at 0 ms")
    last_at = 0
    paused = False
    played: list[tuple[str, list[dict[str, Any]]]] = []
    for move in moves:
        if move.at_ms < last_at:
            bad(f"move {move.seq}: the clock went back ({move.at_ms} < {last_at} ms)")
        last_at = move.at_ms
        if board.ended:
            bad(f"move {move.seq} ({move.action}) came after the end")
            break
        if move.action == Action.PAUSE:
            paused = True
            continue
        if move.action == Action.RESUME:
            paused = False
            continue
        if paused and move.action in HAND:
            bad(f"move {move.seq} ({move.action}) was played while paused")
        try:
            changes = _apply(board, move)
        except EngineError as exc:
            bad(f"move {move.seq} ({move.action}) is refused by the engine: {exc.code}")
            continue
        if move.changes is not None and changes is not None and move.changes != changes:
            bad(f"move {move.seq}: the stored changes differ from the replay's")
        if changes is not None:
            played.append((move.action, changes))
    if board.to_ascii() != stored.to_ascii():
        bad("the stored board differs from the replay's")
    expected_state = {"won": GameState.WON, "lost": GameState.LOST}.get(board.status)
    if expected_state is None:
        expected_state = GameState.PAUSED if paused else GameState.PLAYING
    if game.state != expected_state:
        bad(f"state is {game.state}, the replay says {expected_state}")
    clicks = sum(1 for m in moves if m.action in HAND)
    if game.clicks != clicks:
        bad(f"clicks is {game.clicks}, {clicks} hand moves are stored")
    if game.mines_left != board.mines_left:
        bad(f"mines_left is {game.mines_left}, the replay's is {board.mines_left}")
    if game.effective_clicks is not None:  # null: started before the counters were kept
        for column, value in counters.counts_of(played).items():
            if getattr(game, column) != value:
                bad(f"{column} is {getattr(game, column)}, the replay counts {value}")
    if game.state in ENDED_STATES:
        _check_end(game, moves, board, bad)
    return out


def _check_end(game: Game, moves: list[Move], board: Board, bad: Callable[[str], None]) -> None:
    last = moves[-1] if moves else None
    if last is None:
        return
    if game.elapsed_ms != last.at_ms:
        bad(f"elapsed_ms is {game.elapsed_ms}, the last move's clock is {last.at_ms}")
    reason = ENDINGS.get(Action(last.action))
    if reason is None:
        reason = EndReason.CLEARED if board.status == "won" else EndReason.MINE
    if game.end_reason != reason:
        bad(f"end_reason is {game.end_reason}, the moves say {reason}")
    if game.bbbv_solved != board.bbbv_solved():
        bad(f"bbbv_solved is {game.bbbv_solved}, the replay's is {board.bbbv_solved()}")
    if game.zini is not None and game.zini != counters.board_zini(board):
        bad(f"zini is {game.zini}, the layout's is {counters.board_zini(board)}")
    won = game.state == GameState.WON
    speed = game.bbbv / (last.at_ms / 1000) if won and last.at_ms > 0 and game.bbbv else None
    if (speed is None) != (game.bbbv_per_s is None) or (
        speed is not None and game.bbbv_per_s is not None and abs(speed - game.bbbv_per_s) > 1e-6
    ):
        bad(f"bbbv_per_s is {game.bbbv_per_s}, its time and 3BV give {speed}")


def games_to_check(since: datetime | None) -> Iterator[Game]:
    qs = Game.objects.order_by("created_at", "id")
    if since is not None:
        qs = qs.filter(last_action_at__gte=since)
    return qs.iterator(chunk_size=500)


def moves_of(game_ids: list[Any]) -> dict[Any, list[Move]]:
    found: dict[Any, list[Move]] = defaultdict(list)
    for move in Move.objects.filter(game_id__in=game_ids).order_by("game_id", "seq"):
        found[move.game_id].append(move)
    return found


def check_stats(user_ids: Iterable[int]) -> list[Mismatch]:
    """Each player's statistics, recomputed from their ended games in the order they ended
    (the order the service applied them), against the stored rows: played, won, the total of
    winning times and both streaks. Best times are compared for accounts that were never
    flagged (a flag keeps the statistics but unranks the games they came from)."""
    out: list[Mismatch] = []
    for user_id in user_ids:
        flagged = User.objects.filter(pk=user_id, flagged=True).exists()
        summaries: dict[str, Summary] = {}
        # Race games count in race statistics only (RULES.md, Races; games.races.recompute).
        games = Game.objects.filter(SOLO, player_id=user_id, state__in=ENDED_STATES).order_by(
            "ended_at", "id"
        )
        # A custom or guest game keeps its first reason when paused: its moves say it was.
        paused = set(
            Move.objects.filter(game__player_id=user_id, action=Action.PAUSE).values_list(
                "game_id", flat=True
            )
        )
        for game in games.only(
            "id",
            "level",
            "state",
            "elapsed_ms",
            "bbbv_per_s",
            "ended_at",
            "ranked",
            "unranked_reason",
            "no_guess",
        ):
            bucket = bucket_for(game.level, game.no_guess)
            end = GameEnd(
                won=game.state == GameState.WON,
                game_id=game.id,
                elapsed_ms=int(game.elapsed_ms or 0),
                bbbv_per_s=game.bbbv_per_s,
                ended_at=game.ended_at or datetime.min,
                ranked=game.ranked,
                bests=sets_bests(
                    unranked_reason=game.unranked_reason, flagged=flagged, paused=game.id in paused
                ),
            )
            summaries[bucket], _ = stats_after(summaries.get(bucket, Summary()), end)
        rows = {row.level: row for row in PlayerStats.objects.filter(user_id=user_id)}
        for bucket in sorted(set(summaries) | set(rows)):
            s, row = summaries.get(bucket, Summary()), rows.get(bucket)
            subject = f"stats {user_id}/{bucket}"
            stored = (
                (row.played, row.won, row.total_win_ms, row.current_streak, row.best_streak)
                if row is not None
                else (0, 0, 0, 0, 0)
            )
            wanted = (s.played, s.won, s.total_win_ms, s.streaks.current, s.streaks.best)
            if stored != wanted:
                out.append(
                    Mismatch(
                        subject,
                        f"played, won, total_win_ms, streaks are {stored}, the games give {wanted}",
                    )
                )
            if not flagged and row is not None and row.best_time_ms != s.best_time_ms:
                out.append(
                    Mismatch(
                        subject,
                        f"best_time_ms is {row.best_time_ms}, the wins give {s.best_time_ms}",
                    )
                )
    return out

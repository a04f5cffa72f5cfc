"""The only writers of games. Each action runs in one transaction holding the game's row lock,
so moves on one game never interleave; events are published only after the commit.

    game_create  ->  game_move (reveal | flag | chord)  ->  game_pause / game_resume / game_resign
    games_close_idle: the 24-hour abandonment rule (RULES.md, Statistics)

Over 400 lines on purpose: it is the single writer, and every write shares one lock path
(`_locked_action`) and one store (`_store_move`); events are only built in games.play.events.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.locks import lock_player
from accounts.models import User
from accounts.standings import stats
from accounts.standings.records import GameEnd, sets_bests
from games import clock, engine
from games.engine import Board, EngineError, Outcome
from games.errors import GameError
from games.play import counters, events, fairplay, move_store, noguess
from games.play.models import ENDED_STATES, Action, EndReason, Game, GameState, Move, UnrankedReason

MOVE_ACTIONS = (Action.REVEAL, Action.FLAG, Action.CHORD)
_SYSTEM_RANDOM = random.SystemRandom()
T = TypeVar("T")


class RaceMoveListener(Protocol):
    """What a race does with a move of one of its games, inside the move's transaction."""

    def __call__(
        self,
        game: Game,
        board: Board,
        *,
        now: datetime,
        at_ms: int,
        player_name: str,
        left: bool = ...,
        by_player: bool = ...,
    ) -> None: ...


_race_listener: RaceMoveListener | None = None


def on_race_move(listener: RaceMoveListener) -> None:
    """games.races registers what a race game's move does to its race (games.apps, at start-up),
    so that one game never imports races: the dependency points from races to play only."""
    global _race_listener
    _race_listener = listener


class UnlockedRaceShare(Protocol):
    """What a race does with a move of one of its games stored without the lock
    (`_move_without_lock`): one more write in the move's statement, then its events."""

    def statement(self, game: Game, *, at_ms: int) -> move_store.Also: ...

    def stored(
        self, game: Game, board: Board, row: tuple[int, ...], *, at_ms: int, player_name: str
    ) -> None: ...


_unlocked_race_share: UnlockedRaceShare | None = None


def on_unlocked_race_move(share: UnlockedRaceShare) -> None:
    """games.races registers its share of a race move stored without the lock (games.apps);
    until it does, race games' moves all take the locked path."""
    global _unlocked_race_share
    _unlocked_race_share = share


def _race_moved(game: Game, board: Board, **progress: Any) -> None:
    """The race's share of a move (RaceMoveListener's keywords), in the move's transaction."""
    if _race_listener is None:  # a race game without the races room loaded: never half a move
        raise RuntimeError("games.races has not registered its move listener")
    _race_listener(game, board, **progress)


class DailyShare(Protocol):
    """What a daily game's moves change beyond the game (the day's board and the daily
    statistics), inside the move's transaction."""

    def ended(self, game: Game, end: GameEnd) -> None:
        """The game ended (a practice game never gets here)."""

    def unranked(self, game: Game) -> None:
        """The game just became unranked (paused after the first tap)."""

    def state_changed(self, game: Game, state: str) -> None:
        """The game was paused or resumed."""


_daily_share: DailyShare | None = None


def on_daily_move(share: DailyShare) -> None:
    """games.daily registers its share of a daily game's moves (games.apps, at start-up), as
    races does: play never imports the daily room."""
    global _daily_share
    _daily_share = share


def _daily() -> DailyShare:
    if _daily_share is None:  # a daily game without the daily room loaded: never half a move
        raise RuntimeError("games.daily has not registered its share of a move")
    return _daily_share


@dataclass(frozen=True)
class MoveAsk:
    """A move as the player asked it (API.md, Moves): what `game_move` stores as the Move and
    what a retry with the same `client_move_id` must ask again. A pause or resume is an
    action alone."""

    action: str
    x: int | None = None
    y: int | None = None
    flagged: bool | None = None  # a flag move's explicit state; None toggles
    client_move_id: str | None = None


@dataclass(frozen=True)
class MoveResult:
    game: Game
    board: Board | None
    changes: list[dict[str, Any]]
    seq: int
    at_ms: int  # the game clock when the server received the move (Move.at_ms)
    replayed: bool = False


def seeded_rng(seed: str, width: int, height: int, mines: int) -> random.Random:
    """The generator that places the mines of a width x height board with `mines` mines while
    GAME_TEST_SEED is `seed` (test-only): tests rebuild a layout from it, never from the format."""
    return random.Random(f"{seed}:{width}x{height}:{mines}")


def layout_rng(width: int, height: int, mines: int, *, scope: str = "") -> random.Random:
    """The one source of mine layouts (a game's first tap, a race's start): SystemRandom in
    production; a seeded generator only when the test-only GAME_TEST_SEED is on, its seed
    followed by `scope` (a race's `:race:<code>`)."""
    if settings.GAME_TEST_SEED:
        return seeded_rng(f"{settings.GAME_TEST_SEED}{scope}", width, height, mines)
    return _SYSTEM_RANDOM


def _rng_for(game: Game) -> random.Random:
    return layout_rng(game.width, game.height, game.mines)


def no_guess_seed(seed: str, width: int, height: int, mines: int, x: int, y: int) -> str:
    """The seed of a no-guess search while GAME_TEST_SEED is `seed` (test-only), per size and
    first tap: tests regenerate a no-guess layout from it (games.play.noguess.search)."""
    return f"{seed}:ng:{width}x{height}:{mines}:{x},{y}"


def check_no_guess(*, level: str, width: int, height: int, mines: int) -> None:
    """Refuse up front a no-guess board the generator cannot serve in time: custom boards
    denser than games.play.noguess's bounds (docs/NOGUESS.md). The six levels always pass."""
    if level == "custom" and noguess.refuses(width, height, mines):
        raise GameError(
            "no_guess_unavailable",
            "No no-guess board of this density can be dealt in time: use fewer mines.",
            {
                "max_density": noguess.max_density(width, height),
                "max_mines": noguess.max_mines(width, height),
            },
        )


def no_guess_layout(*, width: int, height: int, mines: int, x: int, y: int) -> list[int] | None:
    """A no-guess layout around a first tap at (x, y) (games.play.noguess), or None when the
    generator found none within its budget (the caller deals a classic layout instead)."""
    seed = None
    if settings.GAME_TEST_SEED:
        seed = no_guess_seed(settings.GAME_TEST_SEED, width, height, mines, x, y)
    ask = noguess.LayoutAsk(
        width, height, mines, x, y, seed=seed, budget_s=settings.NOGUESS_BUDGET_S
    )
    return noguess.layout_for(ask)


def _engine_error(exc: EngineError) -> GameError:
    code = exc.code if exc.code != "invalid_board" else "invalid"
    return GameError(code, str(exc))


def _idle_limit() -> timedelta:
    return timedelta(hours=settings.GAME_IDLE_HOURS)


# --- create -------------------------------------------------------------------------------


def resolve_board_spec(
    *, level: str | None, width: int | None, height: int | None, mines: int | None
) -> tuple[str, int, int, int]:
    """Validate `{level}` or `{width, height, mines}` (RULES.md, Levels) into (level, w, h, mines)."""
    custom = (width, height, mines)
    if level is not None:
        if any(v is not None for v in custom):
            raise GameError(
                "invalid", "Send either `level` or `width`, `height` and `mines`, not both."
            )
        spec = engine.LEVELS.get(level)
        if spec is None:
            raise GameError(
                "invalid", f"Unknown level {level!r}.", {"levels": sorted(engine.LEVELS)}
            )
        return spec.name, spec.width, spec.height, spec.mines
    if width is None or height is None or mines is None:
        raise GameError("invalid", "Send `level`, or all of `width`, `height` and `mines`.")
    lo, hi = engine.CUSTOM_MIN_SIDE, engine.CUSTOM_MAX_SIDE
    if not (lo <= width <= hi and lo <= height <= hi):
        raise GameError("invalid", f"width and height must be between {lo} and {hi}.")
    max_mines = engine.custom_mines_max(width, height)
    if not 1 <= mines <= max_mines:
        raise GameError("invalid", f"mines must be between 1 and {max_mines} for this board.")
    return "custom", width, height, mines


def game_create(
    *,
    player: User,
    level: str | None = None,
    width: int | None = None,
    height: int | None = None,
    mines: int | None = None,
    no_guess: bool = False,
) -> Game:
    """A new game, state `new`, no mines yet. A started unfinished game of the same level is
    ended as abandoned (a loss); an untapped one is discarded (RULES.md, Statistics). Classic
    and no-guess games of one level are separate slots, as they are separate statistics."""
    level_name, w, h, m = resolve_board_spec(level=level, width=width, height=height, mines=mines)
    if no_guess:
        check_no_guess(level=level_name, width=w, height=h, mines=m)
        noguess.prestart()
    now = timezone.now()
    with transaction.atomic():
        # Two creations by one player at once (two tabs, a retry) would each miss the other's
        # new game and leave two unfinished games of one level: the player's row lock makes
        # them one after the other. Moves never take this lock, so no lock order can cross.
        lock_player(player)
        games_close_idle(now=now, player=player)
        previous = Game.objects.select_for_update().filter(
            player=player,
            level=level_name,
            no_guess=no_guess,
            state__in=(GameState.NEW, GameState.PLAYING, GameState.PAUSED),
            race__isnull=True,  # a race game is the race's to end (games.races.services)
            daily__isnull=True,  # a daily game is its own slot (API.md, Daily challenge)
        )
        for old in previous:
            old.player = player
            _abandon_or_discard(old, player_name=player.username, now=now)
        board = Board.new(w, h, m)
        unranked_reason = fairplay.reason_at_creation(level=level_name, player=player)
        game = Game.objects.create(
            player=player,
            level=level_name,
            width=w,
            height=h,
            mines=m,
            no_guess=no_guess,
            ranked=unranked_reason is None,
            unranked_reason=unranked_reason,
            board=board.encode(),
            mines_left=board.mines_left,
            created_at=now,
            last_action_at=now,
        )
        events.lobby_on_commit(events.game_started_event(game, player=player))
        events.player_on_commit(player.pk, events.game_stream_event("game_start", game))
    return game


# --- moves --------------------------------------------------------------------------------


def _lock_own_game(*, game_id: Any, player: User) -> Game:
    game = move_store.lock_game(game_id)
    if game is None:
        raise GameError("not_found", "No such game.")
    if game.player_id != player.pk:
        raise GameError("not_your_game", "This game belongs to another player.")
    game.player = player  # the signed-in player: no query when the end needs their kind
    return game


def _replay(game: Game, move: Move, ask: MoveAsk) -> MoveResult:
    if (move.action, move.x, move.y, move.flagged) != (ask.action, ask.x, ask.y, ask.flagged):
        raise GameError(
            "idempotency_conflict",
            "This client_move_id was used for a different move.",
            {"seq": move.seq},
        )
    if game.state == GameState.PAUSED:
        # A replay answers the game as it is now, and a paused game's board is hidden
        # (API.md, Fine points): the replay waits for the resume.
        raise GameError("game_paused", "The game is paused: resume it first.")
    return MoveResult(
        game=game,
        board=None,
        changes=list(move.changes or []),
        seq=move.seq,
        at_ms=move.at_ms,
        replayed=True,
    )


def _check_playable(game: Game) -> None:
    if game.state == GameState.PAUSED:
        raise GameError("game_paused", "The game is paused: resume it first.")
    if game.state in ENDED_STATES:
        raise GameError("game_over", "The game has ended.")


def _close_if_idle(game: Game, *, player_name: str, now: datetime) -> bool:
    """The server closes a player's idle game when that player next acts on it, as
    games_close_idle would have: a started one is abandoned, an untapped one discarded. A
    daily game whose day has ended is abandoned the same way, as the day's end would have."""
    if (
        game.daily is not None
        and game.unranked_reason != UnrankedReason.PRACTICE
        and game.state in (GameState.PLAYING, GameState.PAUSED)
        and now >= clock.daily_day_end(game.daily)
    ):
        _abandon_or_discard(game, player_name=player_name, now=now)
        return True
    if (
        game.state in (GameState.NEW, GameState.PLAYING, GameState.PAUSED)
        and now - game.last_action_at >= _idle_limit()
    ):
        _abandon_or_discard(game, player_name=player_name, now=now)
        return True
    return False


def _locked_action(
    *,
    game_id: Any,
    player: User,
    act: Callable[[Game, datetime], T],
    replay: Callable[[Game], T | None] | None = None,
) -> T:
    """Run `act` on the player's game inside one transaction holding the row lock.

    A game idle for GAME_IDLE_HOURS is closed first, and that closing is committed even
    though the action itself is then refused: `game_over` for a started game (now abandoned),
    `not_found` for an untapped one (discarded: it no longer exists, API.md Fine points)."""
    with transaction.atomic():
        game = _lock_own_game(game_id=game_id, player=player)
        replayed = replay(game) if replay is not None else None
        if replayed is not None:
            return replayed
        now = timezone.now()
        untapped = game.state == GameState.NEW
        if not _close_if_idle(game, player_name=player.username, now=now):
            return act(game, now)
    if untapped:
        raise GameError("not_found", "No such game: it was discarded after a day untapped.")
    raise GameError("game_over", "The game was closed as abandoned after a day without a move.")


def game_move(
    *,
    game_id: Any,
    player: User,
    action: str,
    x: int,
    y: int,
    flagged: bool | None = None,
    client_move_id: str | None = None,
) -> MoveResult:
    """Reveal, flag or chord one cell. Refusals raise GameError and change nothing."""
    if action not in MOVE_ACTIONS:
        raise GameError("invalid", f"Unknown action {action!r}.")
    ask = MoveAsk(action=action, x=x, y=y, flagged=flagged, client_move_id=client_move_id)

    def replay(game: Game) -> MoveResult | None:
        if client_move_id is None:
            return None
        previous = move_store.move_by_client_id(game, client_move_id)
        if previous is None:
            return None
        return _replay(game, previous, ask)

    def act(game: Game, now: datetime) -> MoveResult:
        board, outcome, changes = _apply(game, ask, now=now)
        at_ms = _store_move(
            game, board, ask, player_name=player.username, now=now, changes=changes, outcome=outcome
        )
        # The game's events first, the race's after (both sent after the commit, in this
        # order): the mover's own `move` frame is then not queued behind the fan-out of the
        # race's `progress` to every spectator on the same process (no Redis round trip on the move's path). A race move
        # refused below rolls the transaction back, and these events with it.
        _publish_move(game, board, ask, player_name=player.username, changes=changes, at_ms=at_ms)
        if game.race_id is not None:
            _race_moved(game, board, now=now, at_ms=at_ms, player_name=player.username)
        return MoveResult(game=game, board=board, changes=changes, seq=game.seq, at_ms=at_ms)

    unlocked = _move_without_lock(game_id=game_id, player=player, ask=ask)
    if unlocked is not None:
        return unlocked
    return _locked_action(game_id=game_id, player=player, act=act, replay=replay)


def _apply(
    game: Game, ask: MoveAsk, *, now: datetime
) -> tuple[Board, Outcome, list[dict[str, Any]]]:
    """The rules of one reveal, flag or chord (`ask`) on `game` (its counts updated, nothing
    stored): the board after it, the engine's outcome and the move's changes. Refusals raise
    GameError."""
    x, y = ask.x, ask.y
    assert x is not None and y is not None  # a cell's move names its cell (game_move)
    if not (0 <= x < game.width and 0 <= y < game.height):
        raise GameError(
            "out_of_bounds",
            f"The cell must be inside the {game.width}x{game.height} board.",
            {"width": game.width, "height": game.height},
        )
    _check_playable(game)
    board = Board.decode(bytes(game.board))
    first_tap = game.state == GameState.NEW and ask.action == Action.REVEAL
    layout = None
    if first_tap and game.no_guess:
        layout = no_guess_layout(width=game.width, height=game.height, mines=game.mines, x=x, y=y)
        if layout is None:  # docs/NOGUESS.md, "When no board is found": a classic game
            game.no_guess = False
    try:
        if ask.action == Action.REVEAL:
            outcome = board.reveal(x, y, _rng_for(game) if first_tap else None, layout=layout)
        elif ask.action == Action.FLAG:
            outcome = board.flag(x, y, ask.flagged)
        else:
            outcome = board.chord(x, y)
    except EngineError as exc:
        raise _engine_error(exc) from None
    if first_tap:
        game.state = GameState.PLAYING
        game.started_at = now
        game.bbbv = board.bbbv()
    game.clicks += 1
    changes = outcome.change_dicts()
    counters.count_move(game, ask.action, changes)
    return board, outcome, changes


# What a move that neither starts nor ends its game changes of the game's row (_apply,
# _next_move); tests/play/test_move_without_lock.py checks it against every column.
MOVE_COLUMNS = ("seq", "last_action_at", "mines_left", "opened", "board", "clicks",
                *counters.COUNT_COLUMNS)  # fmt: skip


def _move_without_lock(*, game_id: Any, player: User, ask: MoveAsk) -> MoveResult | None:
    """The common move in two statements, outside a transaction and without the row lock
    (docs/PERFORMANCE.md, The move without a lock): read the game, apply the rules, then store
    it with a compare-and-set on the game's `seq` (move_store.store_if_unchanged). Only a move
    of a solo or race game being played (no daily) that does not end it, and is no replay; a
    race's share (its next seq) is written in the same statement. Everything else, a
    refusal, and a move that lost its compare-and-set to another writer (or came past its
    race's time limit) returns None, and the locked path decides it from the start as before."""
    if not move_store.can_store_unlocked():
        return None
    game = move_store.read_game(game_id)
    if game is None:
        return None
    race_share = _unlocked_race_share if game.race_id is not None else None
    if (
        game.player_id != player.pk
        or game.state != GameState.PLAYING
        or (game.race_id is not None and race_share is None)
        or game.daily is not None
    ):
        return None
    now = timezone.now()
    if now - game.last_action_at >= _idle_limit():
        return None  # the locked path closes it (_close_if_idle)
    # A replay of a `client_move_id` is not looked for here: its insert breaks the pair's
    # uniqueness, the statement is undone, and the locked path answers it as a replay. The
    # common move, which is no replay, is spared that read.
    game.player = player
    read_seq = game.seq
    try:
        board, outcome, changes = _apply(game, ask, now=now)
    except GameError:
        return None  # the locked path refuses it, after the same checks in the same order
    if outcome.ended:
        return None
    move = _next_move(game, board, ask, now=now, changes=changes)
    game.board = board.encode()
    also = None if race_share is None else race_share.statement(game, at_ms=move.at_ms)
    row = move_store.store_if_unchanged(
        game, move, changed=MOVE_COLUMNS, read_seq=read_seq, also=also
    )
    if row is None:
        return None
    # The game's event first, the race's after, as on the locked path (`game_move`).
    _publish_move(game, board, ask, player_name=player.username, changes=changes, at_ms=move.at_ms)
    if race_share is not None:
        race_share.stored(game, board, row, at_ms=move.at_ms, player_name=player.username)
    return MoveResult(game=game, board=board, changes=changes, seq=game.seq, at_ms=move.at_ms)


def _store_move(
    game: Game,
    board: Board,
    ask: MoveAsk,
    *,
    player_name: str,
    now: datetime,
    changes: list[dict[str, Any]] | None = None,
    outcome: Outcome | None = None,
) -> int:
    """Store the move and the game's new state; returns the game clock at the move. `changes`
    are kept with a move that has a `client_move_id`, for its replay."""
    move = _next_move(game, board, ask, now=now, changes=changes)
    if outcome is not None and outcome.ended:
        _finish(
            game,
            board,
            player_name=player_name,
            now=now,
            at_ms=move.at_ms,
            reason=EndReason.CLEARED if outcome.status == engine.WON else EndReason.MINE,
        )
    game.board = board.encode()
    move_store.store(game, move)
    return move.at_ms


def _next_move(
    game: Game,
    board: Board,
    ask: MoveAsk,
    *,
    now: datetime,
    changes: list[dict[str, Any]] | None,
) -> Move:
    """The game's next move, its `seq`, clock and counts taken onto the game (not stored)."""
    at_ms = clock.elapsed_ms(
        started_at=game.started_at,
        now=now,
        paused_ms=game.paused_ms,
        paused_at=game.paused_at,
        ended_at=None,
    )
    game.seq += 1
    game.last_action_at = now
    game.mines_left = board.mines_left
    game.opened = board.opened_count()
    return Move(
        game=game,
        seq=game.seq,
        action=ask.action,
        x=ask.x,
        y=ask.y,
        flagged=ask.flagged,
        at_ms=at_ms,
        client_move_id=ask.client_move_id,
        changes=changes if ask.client_move_id is not None else None,
        created_at=now,
    )


def _finish(
    game: Game, board: Board, *, player_name: str, now: datetime, at_ms: int, reason: str
) -> None:
    """End the game: fix its time and result stats, and update the player's statistics in
    the same transaction: the solo ones (accounts.standings.stats), or for a daily game the
    day's board and the daily ones (the daily room's share), given the same GameEnd. A won
    game is first checked for the fair-play hold; a practice daily counts nowhere."""
    won = reason == EndReason.CLEARED
    game.state = GameState.WON if won else GameState.LOST
    game.end_reason = reason
    game.ended_at = now
    game.paused_at = None
    game.elapsed_ms = at_ms
    if game.bbbv is None and board.status != engine.NEW:
        game.bbbv = board.bbbv()
    game.bbbv_solved = board.bbbv_solved() if game.bbbv is not None else 0
    game.bbbv_per_s = (game.bbbv / (at_ms / 1000)) if won and at_ms > 0 and game.bbbv else None
    game.zini = counters.board_zini(board) if game.bbbv is not None else None
    if game.race_id is not None:
        # RULES.md, Races: race games count in race statistics and ratings only (games.races.services).
        return
    player = game.player
    if game.daily is not None and game.unranked_reason == UnrankedReason.PRACTICE:
        return  # a past daily played again counts nowhere (RULES.md, The daily challenge)
    if won:
        _hold_if_superhuman(game, player=player)  # held: unranked `review`, off every board
    end = GameEnd(
        won=won,
        game_id=game.id,
        elapsed_ms=at_ms,
        bbbv_per_s=game.bbbv_per_s,
        ended_at=now,
        ranked=game.ranked,
        # NF (docs/STATS.md): a win without a flag ever placed; an uncounted game is not one.
        no_flags=won and game.flags_placed == 0,
    )
    if game.daily is not None:
        # The day's board and the daily statistics, never the solo ones.
        _daily().ended(game, end)
        return
    record = stats.record_game_end(
        end=replace(end, bests=won and _sets_bests(game, player=player)),
        user_id=game.player_id,
        level=game.level,
        no_guess=game.no_guess,
        pool=player.board_pool,
    )
    if record and game.ranked:
        # A new personal best on a ranked board is news for the lobby (after the commit).
        if record.best_time:
            events.lobby_on_commit(
                events.record_event(game, player_name=player_name, kind="time", value=at_ms)
            )
        if record.best_speed and game.bbbv_per_s is not None:
            events.lobby_on_commit(
                events.record_event(
                    game, player_name=player_name, kind="speed", value=game.bbbv_per_s
                )
            )


def _hold_if_superhuman(game: Game, *, player: User) -> None:
    """A won game's fair-play hold (games.play.fairplay), saved in the ending transaction."""
    review = fairplay.hold_if_superhuman(game, player=player)
    if review is not None:
        review.save()


def _sets_bests(game: Game, *, player: User) -> bool:
    """Whether a win sets its bucket's bests (accounts.standings.records.sets_bests). A game
    keeps its first reason, so the pause of a custom or guest game shows only in its moves."""
    paused = game.unranked_reason == UnrankedReason.PAUSED or (
        not game.ranked and Move.objects.filter(game_id=game.id, action=Action.PAUSE).exists()
    )
    return sets_bests(unranked_reason=game.unranked_reason, flagged=player.flagged, paused=paused)


def _publish_move(
    game: Game,
    board: Board,
    ask: MoveAsk,
    *,
    player_name: str,
    changes: list[dict[str, Any]],
    at_ms: int,
) -> None:
    events.game_on_commit(
        game.id,
        events.move_event(
            game,
            action=ask.action,
            changes=changes,
            at_ms=at_ms,
            client_move_id=ask.client_move_id,
        ),
    )
    if game.state in ENDED_STATES:
        _publish_end(game, board, player_name=player_name)


def _publish_end(game: Game, board: Board, *, player_name: str) -> None:
    events.game_on_commit(game.id, events.ended_event(game, player_name=player_name, board=board))
    events.player_on_commit(game.player_id, events.game_stream_event("game_end", game))
    if game.solo:  # race games are followed through their race; dailies are nobody's to watch
        events.lobby_on_commit(events.game_ended_event(game, player=game.player))


# --- pause, resume, resign, abandon ---------------------------------------------------------


def game_pause(*, game_id: Any, player: User) -> Game:
    """Stop the clock and hide the board. Pausing a paused game is a no-op without a `seq`."""

    def act(game: Game, now: datetime) -> Game:
        if game.state == GameState.PAUSED:
            return game
        _check_started_and_running(game)
        if game.race_id is not None:
            raise GameError("race_game", "A race game cannot be paused (RULES.md, Races).")
        board = Board.decode(bytes(game.board))
        game.state = GameState.PAUSED
        # RULES.md, Fair play: from a pause after the first tap on, the game is unranked.
        if fairplay.unrank(game, UnrankedReason.PAUSED) and game.daily is not None:
            _daily().unranked(game)
        if game.daily is not None:
            _daily().state_changed(game, GameState.PAUSED)
        game.paused_at = now  # the clock stops here; _store_move reads it as the move's time
        at_ms = _store_move(
            game, board, MoveAsk(Action.PAUSE), player_name=player.username, now=now
        )
        events.game_on_commit(game.id, events.paused_event(game, at_ms=at_ms))
        return game

    return _locked_action(game_id=game_id, player=player, act=act)


def game_resume(*, game_id: Any, player: User) -> Game:
    """Restart the clock. Resuming a running game is a no-op without a `seq`."""

    def act(game: Game, now: datetime) -> Game:
        if game.state == GameState.PLAYING:
            return game
        _check_started_and_running(game)
        assert game.paused_at is not None
        game.paused_ms = clock.add_pause(
            paused_ms=game.paused_ms, paused_at=game.paused_at, resumed_at=now
        )
        game.paused_at = None
        game.state = GameState.PLAYING
        if game.daily is not None:
            _daily().state_changed(game, GameState.PLAYING)
        board = Board.decode(bytes(game.board))
        at_ms = _store_move(
            game, board, MoveAsk(Action.RESUME), player_name=player.username, now=now
        )
        events.game_on_commit(
            game.id,
            events.resumed_event(
                game, at_ms=at_ms, player_name=player.username, board=board, now=now
            ),
        )
        return game

    return _locked_action(game_id=game_id, player=player, act=act)


def game_resign(*, game_id: Any, player: User) -> Game:
    """End the game as lost without opening a mine (RULES.md, Win and loss)."""

    def act(game: Game, now: datetime) -> Game:
        _check_started_and_running(game)
        _end_without_mine(
            game,
            player_name=player.username,
            now=now,
            action=Action.RESIGN,
            reason=EndReason.RESIGNED,
        )
        return game

    return _locked_action(game_id=game_id, player=player, act=act)


def _check_started_and_running(game: Game) -> None:
    if game.state == GameState.NEW:
        raise GameError("game_not_started", "The game has not started: make the first tap.")
    if game.state in ENDED_STATES:
        raise GameError("game_over", "The game has ended.")


def _end_without_mine(
    game: Game,
    *,
    player_name: str,
    now: datetime,
    action: str,
    reason: str,
    at_ms: int | None = None,
    left_race: bool = False,
) -> None:
    board = Board.decode(bytes(game.board))
    board.resign()
    if game.state == GameState.PAUSED and game.paused_at is not None:
        # The clock stopped at the pause; the paused stretch does not count.
        game.paused_ms = clock.add_pause(
            paused_ms=game.paused_ms, paused_at=game.paused_at, resumed_at=now
        )
        game.paused_at = None
    if at_ms is None:
        at_ms = clock.elapsed_ms(
            started_at=game.started_at,
            now=now,
            paused_ms=game.paused_ms,
            paused_at=None,
            ended_at=None,
        )
    game.seq += 1
    game.last_action_at = now
    _finish(game, board, player_name=player_name, now=now, at_ms=at_ms, reason=reason)
    game.board = board.encode()
    move_store.store(
        game, Move(game=game, seq=game.seq, action=action, at_ms=at_ms, created_at=now)
    )
    if game.race_id is not None:
        _race_moved(
            game,
            board,
            now=now,
            at_ms=at_ms,
            player_name=player_name,
            left=left_race,
            by_player=action == Action.RESIGN and not left_race,
        )
    events.game_on_commit(game.id, events.move_event(game, action=action, changes=[], at_ms=at_ms))
    _publish_end(game, board, player_name=player_name)


@dataclass(frozen=True)
class Dealt:
    games: list[Game]
    opening: tuple[int, int]
    won_at_once: bool  # the opening cleared the board: every game is won at 0 ms


def deal_opened_games(
    players: list[User],
    *,
    level: str,
    width: int,
    height: int,
    mines: int,
    rng: random.Random,
    now: datetime,
    race: Any,
    no_guess: bool = False,
) -> Dealt:
    """One layout for several players, opened by the server at a cell it chooses (RULES.md,
    Races: the start): each player's Game is the same but for its player, with the opening
    as Move 1 at 0 ms, the clock started `now`, unranked (race) and sealed until the race
    unseals it. Inside the caller's transaction (games.races.services.race_begin). A no-guess
    race's layout is a no-guess one around the opening; when none is found in time the games
    are classic (`no_guess` false on each, docs/NOGUESS.md)."""
    x, y = rng.randrange(width), rng.randrange(height)
    board = Board.new(width, height, mines)
    layout = None
    if no_guess:
        seed = str(rng.getrandbits(64)) if settings.GAME_TEST_SEED else None
        ask = noguess.LayoutAsk(
            width, height, mines, x, y, seed=seed, budget_s=settings.NOGUESS_BUDGET_S
        )
        layout = noguess.layout_for(ask)
    won_at_once = board.reveal(x, y, rng, layout=layout).ended
    games = _deal_opened(
        [(player, UnrankedReason.RACE) for player in players],
        level=level,
        board=board,
        opening=(x, y),
        now=now,
        race=race,
        sealed=True,
        no_guess=layout is not None,
    )
    return Dealt(games=games, opening=(x, y), won_at_once=won_at_once)


def _deal_opened(
    players: list[tuple[User, str | None]],
    *,
    level: str,
    board: Board,
    opening: tuple[int, int],
    now: datetime,
    **fields: Any,
) -> list[Game]:
    """The one shape of a game the server opens (a race's or a daily's start): for each
    (player, unranked reason), a copy of `board` as it stands after the opening, Move 1 the
    server's reveal of `opening` at 0 ms, the clock started `now`; won at once when the opening
    cleared the board. `fields`: the race or daily, `sealed`, `no_guess`."""
    won = board.status == engine.WON
    bbbv = board.bbbv()
    copy: dict[str, Any] = {
        "level": level,
        "width": board.width,
        "height": board.height,
        "mines": board.mines,
        "state": GameState.WON if won else GameState.PLAYING,
        "end_reason": EndReason.CLEARED if won else None,
        "board": board.encode(),
        "seq": 1,
        "clicks": 1,
        # The opening is move 1, a reveal that opened cells (games.play.counters).
        "reveal_clicks": 1,
        "effective_clicks": 1,
        "zini": counters.board_zini(board) if won else None,
        "mines_left": board.mines_left,
        "opened": board.opened_count(),
        "bbbv": bbbv,
        "bbbv_solved": bbbv if won else None,
        "created_at": now,
        "started_at": now,
        "last_action_at": now,
        "ended_at": now if won else None,
        "elapsed_ms": 0 if won else None,
        **fields,
    }
    games = [
        Game(player=player, ranked=reason is None, unranked_reason=reason, **copy)
        for player, reason in players
    ]
    Game.objects.bulk_create(games)
    x, y = opening
    Move.objects.bulk_create(
        Move(game=g, seq=1, action=Action.REVEAL, x=x, y=y, at_ms=0, created_at=now) for g in games
    )
    return games


def daily_game_deal(
    *,
    player: User,
    day: Any,
    level: str,
    board: bytes,
    start: tuple[int, int],
    now: datetime,
    practice: bool = False,
) -> Game:
    """A player's copy of one daily (RULES.md, The daily challenge), inside the caller's
    transaction (games.daily.services): the day's layout with its start cell already opened
    as Move 1 at 0 ms, the clock started `now`. A daily of today is sealed until the day ends
    (nobody else sees it, and its player not the layout); a practice game of a past day is
    not sealed, and unranked `practice`."""
    if practice:
        reason: str | None = UnrankedReason.PRACTICE
    else:
        reason = fairplay.reason_at_creation(level=level, player=player)
    (game,) = _deal_opened(
        [(player, reason)],
        level=level,
        board=Board.decode(board),
        opening=start,
        now=now,
        daily=day,
        sealed=not practice,
        no_guess=True,
    )
    events.player_on_commit(player.pk, events.game_stream_event("game_start", game))
    return game


def daily_games_end(*, day: Any, level: str, now: datetime) -> int:
    """The day is over: its daily games still running end as lost (`abandoned`, the server's
    abandon), each under its row lock, as the 24-hour rule ends a solo game. Practice games of
    that day are not the day's and go on. Returns how many were ended."""
    ended = 0
    ids = list(
        Game.objects.filter(daily=day, level=level, state__in=(GameState.PLAYING, GameState.PAUSED))
        .exclude(unranked_reason=UnrankedReason.PRACTICE)
        .values_list("pk", flat=True)
    )
    for game_id in ids:
        with transaction.atomic():
            game = move_store.lock_game(game_id)
            if game is None or game.state not in (GameState.PLAYING, GameState.PAUSED):
                continue
            game.player = User.objects.get(pk=game.player_id)
            _end_without_mine(
                game,
                player_name=game.player.username,
                now=now,
                action=Action.ABANDON,
                reason=EndReason.ABANDONED,
            )
            ended += 1
    return ended


def daily_games_unseal(*, day: Any, level: str) -> None:
    """The day is over: its daily games may be watched and their layouts shown."""
    Game.objects.filter(daily=day, level=level, sealed=True).update(sealed=False)


def race_games_unseal(*, race_id: Any) -> None:
    """The race is over: its games may be watched and their layouts shown (API.md, Races)."""
    Game.objects.filter(race_id=race_id).update(sealed=False)


def race_game_end(game: Game, *, now: datetime, time_limit_ms: int | None = None) -> None:
    """For games.races.services, holding the game's row lock: end a running race game as lost, because
    its player left the race (`time_limit_ms` None: `resigned`) or because the race's time ran
    out (`abandoned`, API.md's "the server's abandon"; the
    game's time is then the limit)."""
    if game.state not in (GameState.PLAYING, GameState.PAUSED):
        return
    left = time_limit_ms is None
    _end_without_mine(
        game,
        player_name=game.player.username,
        now=now,
        action=Action.RESIGN if left else Action.ABANDON,
        reason=EndReason.RESIGNED if left else EndReason.ABANDONED,
        at_ms=time_limit_ms,
        left_race=left,
    )


def _abandon_or_discard(game: Game, *, player_name: str, now: datetime) -> None:
    """A started unfinished game becomes a loss (`abandoned`); an untapped one is deleted."""
    if game.state == GameState.NEW:
        # The lobby heard of the game when it was created: without this it would list a game
        # that no longer exists. `game_ended` is what a lobby client drops a game on.
        events.lobby_on_commit(events.game_ended_event(game, player=game.player, discarded=True))
        # Its watchers are told it is gone, as a socket opened on an unknown game is.
        events.game_on_commit(game.id, events.discarded_event(game))
        # Its player's event stream had its game_start: without an end there, a client that
        # tracks its games from the stream would wait on this one for ever.
        events.player_on_commit(game.player_id, events.game_stream_event("game_discarded", game))
        game.delete()
    elif game.state in (GameState.PLAYING, GameState.PAUSED):
        _end_without_mine(
            game,
            player_name=player_name,
            now=now,
            action=Action.ABANDON,
            reason=EndReason.ABANDONED,
        )


def games_close_idle(*, now: datetime | None = None, player: User | None = None) -> int:
    """Close games untouched for GAME_IDLE_HOURS: started ones as abandoned losses, untapped
    ones discarded. Returns how many were closed. Called by the `close_idle_games` command and
    whenever a player creates a game."""
    now = now or timezone.now()
    cutoff = now - _idle_limit()
    closed = 0
    qs = Game.objects.filter(
        state__in=(GameState.NEW, GameState.PLAYING, GameState.PAUSED), last_action_at__lte=cutoff
    )
    ids = qs.values_list("id", flat=True)
    if player is not None:
        # A player's own idle games are a handful: one plain query, where .iterator() opens a
        # server-side cursor (three round trips) on every game creation.
        found: Any = list(ids.filter(player=player))
    else:
        found = ids.iterator()  # the scheduled sweep may meet many: read them in batches
    for game_id in found:
        with transaction.atomic():
            game = (
                Game.objects.select_for_update(of=("self",))
                .select_related("player")
                .filter(pk=game_id)
                .first()
            )
            if game is None or game.last_action_at > cutoff or game.state in ENDED_STATES:
                continue
            _abandon_or_discard(game, player_name=game.player.username, now=now)
            closed += 1
    return closed


__all__ = [
    "MoveResult",
    "game_create",
    "game_move",
    "game_pause",
    "game_resign",
    "game_resume",
    "games_close_idle",
    "race_game_end",
    "resolve_board_spec",
]

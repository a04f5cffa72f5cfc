"""`manage.py seed_demo --players N --games M`: fill the database with realistic finished games,
quickly, for demos and benchmarks.

Players get a skill (their 3BV/s) and a taste for some levels; games are spread over the last
`--days` days, won or lost according to level and skill, with times that follow from the
board's 3BV and the player's speed. Boards are real engine boards, played to the end once per
level and reused (a small cached set), so every stored `board` decodes and renders.

Statistics are computed while generating, in each player's time order, by the very functions
the live service uses (accounts.standings.records.stats_after and chain_after), then everything is
written with PostgreSQL COPY: no per-game service call, no per-row INSERT. Seeded games have
no move log (`seq` 0). Players are named `demo<id>` and cannot sign in (unusable password).
Needs PostgreSQL (COPY).
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from accounts.models import AccountKind, User
from accounts.standings.leaderboards import rebuild_boards
from accounts.standings.models import PersonalRecord, PlayerStats, RecordKind
from accounts.standings.records import GameEnd, Link, Summary, chain_after, stats_after
from accounts.standings.stats import summary_fields
from games.engine import LEVELS, Board
from games.play.models import Game

# How often each level is played, and how often a typical player wins it.
LEVEL_WEIGHTS = {
    "beginner": 34,
    "intermediate": 24,
    "hard": 16,
    "expert": 14,
    "extreme": 8,
    "marathon": 4,
}
BASE_WIN_RATE = {
    "beginner": 0.85,
    "intermediate": 0.62,
    "hard": 0.45,
    "expert": 0.33,
    "extreme": 0.5,
    "marathon": 0.25,
}
BOARDS_PER_LEVEL = 12


@dataclass(frozen=True)
class PlayedBoard:
    encoded: bytes
    bbbv: int
    bbbv_solved: int
    mines_left: int


def _play(level: str, rng: random.Random, *, win: bool) -> PlayedBoard:
    """A board of `level` played to the end by the engine: cleared, or lost on a mine."""
    spec = LEVELS[level]
    while True:
        board = _attempt(spec.width, spec.height, spec.mines, rng, win=win)
        if (board.status == "won") == win:  # a lucky cascade may clear a board meant to be lost
            return PlayedBoard(board.encode(), board.bbbv(), board.bbbv_solved(), board.mines_left)


def _attempt(width: int, height: int, mines_count: int, rng: random.Random, *, win: bool) -> Board:
    board = Board.new(width, height, mines_count)
    board.reveal(rng.randrange(width), rng.randrange(height), rng)
    layout = board.to_ascii()
    safe = [(x, y) for y, row in enumerate(layout) for x, ch in enumerate(row) if ch == "."]
    mines = [(x, y) for y, row in enumerate(layout) for x, ch in enumerate(row) if ch == "*"]
    rng.shuffle(safe)
    stop = len(safe) if win else rng.randrange(len(safe) // 2 + 1)
    for x, y in safe[:stop]:
        if board.ended:
            break
        board.reveal(x, y)
    if not win and not board.ended:
        board.reveal(*rng.choice(mines))
    return board


def board_pool(rng: random.Random) -> dict[tuple[str, bool], list[PlayedBoard]]:
    return {
        (level, win): [_play(level, rng, win=win) for _ in range(BOARDS_PER_LEVEL)]
        for level in LEVELS
        for win in (True, False)
    }


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, label: str, total: int, *, quiet: bool = False) -> None:
        self.label, self.total, self.quiet = label, max(total, 1), quiet
        self.done = 0
        self.started = time.monotonic()
        self._last = 0.0

    def add(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if not self.quiet and (now - self._last > 0.5 or self.done >= self.total):
            self._last = now
            frac = min(self.done / self.total, 1.0)
            bar = "#" * int(frac * 30)
            elapsed = now - self.started
            rate = self.done / elapsed if elapsed > 0 else 0.0
            sys.stderr.write(
                f"\r{self.label:<8} [{bar:<30}] {frac:6.1%} {self.done:>10,}/{self.total:,}"
                f"  {rate:,.0f}/s  {elapsed:6.1f}s"
            )
            sys.stderr.flush()

    def close(self) -> None:
        if not self.quiet:
            sys.stderr.write("\n")


def _copy(table: str, columns: list[str], rows: Iterable[tuple[Any, ...]]) -> int:
    connection.ensure_connection()
    raw = connection.connection
    n = 0
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


GAME_COLUMNS = [
    "id",
    "player_id",
    "level",
    "width",
    "height",
    "mines",
    "ranked",
    "state",
    "end_reason",
    "board",
    "seq",
    "clicks",
    "mines_left",
    "bbbv",
    "bbbv_solved",
    "created_at",
    "started_at",
    "paused_at",
    "paused_ms",
    "ended_at",
    "last_action_at",
    "elapsed_ms",
    "bbbv_per_s",
]
# luck_months: the per-month luck a game's analysis adds; seeded games have none ("{}").
STATS_COLUMNS = [
    "user_id",
    "level",
    "pool",
    *summary_fields(Summary()).keys(),
    "luck_months",
    "updated_at",
]
RECORD_COLUMNS = [
    "user_id",
    "level",
    "pool",
    "kind",
    "score",
    "time_ms",
    "bbbv_per_s",
    "game_id",
    "achieved_at",
    "prev_at",
]


def _kind(player_id: int) -> str:
    """One seeded account in fifty is a declared bot, so the bot boards have rows too."""
    return AccountKind.BOT if player_id % 50 == 0 else AccountKind.HUMAN


@dataclass
class Player:
    id: int
    skill: float  # 3BV/s on a good day
    win_bonus: float
    levels: list[str]
    level_weights: list[float]


class Seeder:
    def __init__(self, *, players: int, games: int, days: int, seed: int, quiet: bool) -> None:
        self.n_players, self.n_games, self.days = players, games, days
        self.rng = random.Random(seed)
        self.quiet = quiet
        self.now = datetime.now(UTC)
        self.pool = board_pool(self.rng)

    def _players(self, first_id: int) -> list[Player]:
        rng, levels = self.rng, list(LEVEL_WEIGHTS)
        out = []
        for i in range(self.n_players):
            # Each player favours a few levels; speed is log-normal around 1.3 3BV/s.
            weights = [LEVEL_WEIGHTS[lv] * rng.paretovariate(1.5) for lv in levels]
            out.append(
                Player(
                    id=first_id + i,
                    skill=min(max(rng.lognormvariate(math.log(1.3), 0.45), 0.2), 8.0),
                    win_bonus=rng.uniform(-0.15, 0.12),
                    levels=levels,
                    level_weights=weights,
                )
            )
        return out

    def _game(
        self, player: Player, level: str, ended_at: datetime
    ) -> tuple[tuple[Any, ...], GameEnd]:
        rng = self.rng
        spec = LEVELS[level]
        p_win = min(
            max(BASE_WIN_RATE[level] + player.win_bonus + 0.05 * (player.skill - 1.3), 0.05), 0.97
        )
        won = rng.random() < p_win
        board = rng.choice(self.pool[(level, won)])
        speed = player.skill * rng.uniform(0.55, 1.15)
        full_ms = max(int(board.bbbv / speed * 1000), 300)
        if won:
            elapsed_ms, reason, state = full_ms, "cleared", "won"
            solved, clicks = board.bbbv, int(board.bbbv * rng.uniform(1.0, 1.7)) + 1
            bbbv_per_s: float | None = board.bbbv / (elapsed_ms / 1000)
        else:
            elapsed_ms = max(int(full_ms * rng.uniform(0.05, 0.9)), 50)
            reason = rng.choices(("mine", "resigned", "abandoned"), (85, 10, 5))[0]
            state, solved = "lost", board.bbbv_solved
            clicks, bbbv_per_s = int(solved * rng.uniform(1.0, 1.7)) + 1, None
        game_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        started_at = ended_at - timedelta(milliseconds=elapsed_ms)
        created_at = started_at - timedelta(seconds=rng.uniform(1, 30))
        row = (
            game_id,
            player.id,
            level,
            spec.width,
            spec.height,
            spec.mines,
            True,
            state,
            reason,
            board.encoded,
            0,
            clicks,
            board.mines_left,
            board.bbbv,
            solved,
            created_at,
            started_at,
            None,
            0,
            ended_at,
            ended_at,
            elapsed_ms,
            bbbv_per_s,
        )
        return row, GameEnd(
            won=won,
            game_id=game_id,
            elapsed_ms=elapsed_ms,
            bbbv_per_s=bbbv_per_s,
            ended_at=ended_at,
        )

    def _player_games(
        self, player: Player, count: int
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The player's games in time order, their stats rows and record chain rows."""
        rng = self.rng
        span = self.days * 86400.0
        times = sorted(self.now - timedelta(seconds=rng.uniform(60, span)) for _ in range(count))
        levels = rng.choices(player.levels, player.level_weights, k=count)
        games: list[tuple[Any, ...]] = []
        summaries: dict[str, Summary] = {}
        chains: dict[tuple[str, str], list[Link]] = {}
        for level, ended_at in zip(levels, times, strict=True):
            row, end = self._game(player, level, ended_at)
            games.append(row)
            summaries[level], _ = stats_after(summaries.get(level, Summary()), end)
            if end.won:
                link = Link(
                    score=float(end.elapsed_ms),
                    achieved_at=ended_at,
                    game_id=end.game_id,
                    time_ms=end.elapsed_ms,
                    bbbv_per_s=end.bbbv_per_s,
                )
                key = (level, RecordKind.TIME.value)
                chains[key] = chain_after(chains.get(key, []), link, now=ended_at)
                if end.bbbv_per_s is not None:
                    key = (level, RecordKind.SPEED.value)
                    chains[key] = chain_after(
                        chains.get(key, []),
                        Link(
                            score=-end.bbbv_per_s,
                            achieved_at=ended_at,
                            game_id=end.game_id,
                            time_ms=end.elapsed_ms,
                            bbbv_per_s=end.bbbv_per_s,
                        ),
                        now=ended_at,
                    )
        pool = _kind(player.id)  # seeded accounts are never flagged: pool = kind
        stats_rows = []
        for level, s in summaries.items():
            fields = summary_fields(s)
            fields["best_times"] = json.dumps(fields["best_times"])
            stats_rows.append((player.id, level, pool, *fields.values(), "{}", times[-1]))
        record_rows = [
            (
                player.id,
                level,
                pool,
                kind,
                ln.score,
                ln.time_ms,
                ln.bbbv_per_s,
                ln.game_id,
                ln.achieved_at,
                ln.prev_at,
            )
            for (level, kind), chain in chains.items()
            for ln in chain
        ]
        return games, stats_rows, record_rows

    def run(self) -> dict[str, int]:
        if connection.vendor != "postgresql":
            raise CommandError("seed_demo needs PostgreSQL (it writes with COPY).")
        with connection.cursor() as cur:
            cur.execute(f"SELECT coalesce(max(id), 0) FROM {User._meta.db_table}")
            first_id = int(cur.fetchone()[0]) + 1
        players = self._players(first_id)
        joined = [self.now - timedelta(days=self.days + self.rng.uniform(1, 60)) for _ in players]
        bar = Progress("players", len(players), quiet=self.quiet)

        def user_rows() -> Iterator[tuple[Any, ...]]:
            for p, at in zip(players, joined, strict=True):
                bar.add(1)
                # "!" is Django's unusable password: demo players cannot sign in.
                yield (
                    p.id,
                    "!",
                    False,
                    f"demo{p.id}",
                    "",
                    "",
                    "",
                    False,
                    True,
                    at,
                    _kind(p.id),
                    False,
                )

        _copy(
            User._meta.db_table,
            [
                "id",
                "password",
                "is_superuser",
                "username",
                "first_name",
                "last_name",
                "email",
                "is_staff",
                "is_active",
                "date_joined",
                "kind",
                "flagged",
            ],
            user_rows(),
        )
        bar.close()
        with connection.cursor() as cur:
            cur.execute(
                "SELECT setval(pg_get_serial_sequence(%s, 'id'), (SELECT max(id) FROM "
                f"{User._meta.db_table}))",
                [User._meta.db_table],
            )
        # Game counts per player: a few very active players, many casual ones.
        weights = [self.rng.paretovariate(1.2) for _ in players]
        per_player = Counter(self.rng.choices(range(len(players)), weights, k=self.n_games))
        bar = Progress("games", self.n_games, quiet=self.quiet)
        totals = {"players": len(players), "games": 0, "stats": 0, "records": 0}
        chunk = 2000
        triggers = _board_triggers()
        _set_triggers(triggers, enabled=False)
        try:
            self._copy_games(players, per_player, chunk, bar, totals)
        finally:
            _set_triggers(triggers, enabled=True)
        bar.close()
        if triggers:
            # The board counts (accounts migration 0006) in one pass instead of row by row.
            if not self.quiet:
                sys.stderr.write("recounting the leaderboards ...\n")
            started = time.monotonic()
            rebuild_boards()
            if not self.quiet:
                sys.stderr.write(f"recounted in {time.monotonic() - started:.1f}s\n")
        with connection.cursor() as cur:
            for model in (User, Game, PlayerStats, PersonalRecord):
                cur.execute(f"ANALYZE {model._meta.db_table}")
        return totals

    def _copy_games(
        self,
        players: list[Player],
        per_player: Counter[int],
        chunk: int,
        bar: Progress,
        totals: dict[str, int],
    ) -> None:
        for start in range(0, len(players), chunk):
            games: list[tuple[Any, ...]] = []
            stats_rows: list[tuple[Any, ...]] = []
            records: list[tuple[Any, ...]] = []
            for idx in range(start, min(start + chunk, len(players))):
                count = per_player.get(idx, 0)
                if count:
                    g, s, r = self._player_games(players[idx], count)
                    games += g
                    stats_rows += s
                    records += r
            totals["games"] += _copy(Game._meta.db_table, GAME_COLUMNS, games)
            totals["stats"] += _copy(PlayerStats._meta.db_table, STATS_COLUMNS, stats_rows)
            totals["records"] += _copy(PersonalRecord._meta.db_table, RECORD_COLUMNS, records)
            bar.add(len(games))


# The row triggers that keep the leaderboard counts (accounts migration 0006) skip while
# COPY loads the statistics and chains; the counts are then rebuilt in one pass.
def _board_triggers() -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_proc WHERE proname = 'accounts_board_rebuild'")
        return cur.fetchone() is not None


def _set_triggers(present: bool, *, enabled: bool) -> None:
    if present:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT set_config('demineur.board_counts', %s, false)",
                ["on" if enabled else "off"],
            )


class Command(BaseCommand):
    help = "Fill the database with realistic finished games (bulk COPY, with a progress bar)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=1000)
        parser.add_argument("--games", type=int, default=10000)
        parser.add_argument(
            "--days", type=int, default=400, help="spread games over this many days"
        )
        parser.add_argument(
            "--seed", type=int, default=1, help="random seed (same seed, same data)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] < 1 or options["games"] < 0 or options["days"] < 1:
            raise CommandError("--players and --days must be positive, --games not negative.")
        started = time.monotonic()
        totals = Seeder(
            players=options["players"],
            games=options["games"],
            days=options["days"],
            seed=options["seed"],
            quiet=options["verbosity"] == 0,
        ).run()
        self.stdout.write(
            f"seeded {totals['players']:,} players, {totals['games']:,} games, "
            f"{totals['stats']:,} stats rows, {totals['records']:,} record links "
            f"in {time.monotonic() - started:.1f}s"
        )

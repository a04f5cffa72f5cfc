"""Games and their moves. No rules here: the engine plays, services write."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class GameState(models.TextChoices):
    NEW = "new"
    PLAYING = "playing"
    PAUSED = "paused"
    WON = "won"
    LOST = "lost"


class EndReason(models.TextChoices):
    CLEARED = "cleared"
    MINE = "mine"
    RESIGNED = "resigned"
    ABANDONED = "abandoned"


class Action(models.TextChoices):
    REVEAL = "reveal"
    FLAG = "flag"
    CHORD = "chord"
    PAUSE = "pause"
    RESUME = "resume"
    RESIGN = "resign"
    ABANDON = "abandon"


class UnrankedReason(models.TextChoices):
    """Why a game enters no leaderboard (RULES.md, Fair play; API.md `unranked_reason`)."""

    CUSTOM = "custom"
    PAUSED = "paused"
    REVIEW = "review"
    FLAGGED = "flagged"
    RACE = "race"
    GUEST = "guest"
    PRACTICE = "practice"  # a past daily played again (RULES.md, The daily challenge)


ENDED_STATES = (GameState.WON, GameState.LOST)
RUNNING_STATES = (GameState.PLAYING, GameState.PAUSED)


class Game(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games"
    )
    level = models.CharField(max_length=16)  # one of engine.LEVELS, or "custom"
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    mines = models.PositiveIntegerField()
    # `ranked` is true exactly while `unranked_reason` is null (games.play.fairplay keeps both).
    ranked = models.BooleanField()
    unranked_reason = models.CharField(
        max_length=8, choices=UnrankedReason.choices, null=True, blank=True
    )
    state = models.CharField(max_length=8, choices=GameState.choices, default=GameState.NEW)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, null=True, blank=True)
    # The engine's compact codec: mines, opened cells and flags. Never leaves the server raw.
    board = models.BinaryField()
    seq = models.PositiveIntegerField(default=0)  # number of the last recorded Move
    clicks = models.PositiveIntegerField(default=0)  # accepted reveal, flag and chord moves
    mines_left = models.IntegerField()  # mines - flags, may go below zero
    opened = models.PositiveIntegerField(default=0, db_default=0)  # safe cells open
    bbbv = models.PositiveIntegerField(null=True, blank=True)  # fixed at the first tap
    bbbv_solved = models.PositiveIntegerField(null=True, blank=True)  # set at the end
    # Clock (games.clock): active time = (end | pause | now) - started_at - paused_ms.
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_ms = models.BigIntegerField(default=0)
    ended_at = models.DateTimeField(null=True, blank=True)
    last_action_at = models.DateTimeField(default=timezone.now)
    elapsed_ms = models.BigIntegerField(null=True, blank=True)  # final time, set at the end
    bbbv_per_s = models.FloatField(null=True, blank=True)  # won games with elapsed_ms > 0
    # A race game (RULES.md, Races) names its race; `sealed` holds while that race runs: nobody
    # else sees the board, the moves or a socket, and not even the player sees the layout.
    race = models.ForeignKey(
        "Race", on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )
    sealed = models.BooleanField(default=False, db_default=False)  # raw inserts (seed_demo) too
    # A no-guess game (RULES.md, No-guess boards): its layout, placed at the first tap (or
    # around a race's start cell), is cleared by deduction alone. Its own statistics and boards.
    no_guess = models.BooleanField(default=False, db_default=False)
    # A daily game (RULES.md, The daily challenge) names its UTC day; its level names which of
    # the day's six. Sealed like a race game until the day ends; practice games are unranked.
    daily = models.DateField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["player", "level", "state"], name="game_player_level_state"),
            models.Index(fields=["state", "last_action_at"], name="game_state_idle"),
            models.Index(fields=["state", "level", "-created_at"], name="game_list"),
            models.Index(fields=["player", "-ended_at"], name="game_player_recent"),
            # The analysis worker's queue (games.play.analysis_jobs): ended games by end, solo
            # and race apart. Partial, so a game enters them only at its end (moves stay HOT).
            models.Index(
                fields=["ended_at"],
                name="game_ended_solo",
                condition=models.Q(ended_at__isnull=False, race__isnull=True),
            ),
            models.Index(
                fields=["ended_at"],
                name="game_ended_race",
                condition=models.Q(ended_at__isnull=False, race__isnull=False),
            ),
            # A day's daily games (the day's end ends, unseals and ranks them: games.daily).
            models.Index(
                fields=["daily", "level", "state"],
                name="game_daily",
                condition=models.Q(daily__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.level} game {self.id} of {self.player_id} ({self.state})"

    def sealed_for(self, viewer_id: int | None) -> bool:
        """True when `viewer_id` (None: anonymous) may not see this race game yet."""
        return self.sealed and viewer_id != self.player_id

    @property
    def ended(self) -> bool:
        return self.state in ENDED_STATES

    @property
    def server_opened(self) -> bool:
        """Move 1 was the server's opening, not the player's tap (a race or a daily game)."""
        return self.race_id is not None or self.daily is not None

    @property
    def solo(self) -> bool:
        """A game the solo statistics, streaks and boards count: neither a race's nor a daily."""
        return self.race_id is None and self.daily is None


# The solo games of a query (Game.solo): neither a race's nor a daily.
SOLO = models.Q(race__isnull=True, daily__isnull=True)


class DailyChallenge(models.Model):
    """One of a UTC day's six dailies (RULES.md, The daily challenge; docs/DAILY.md): a no-guess
    layout with its start cell already opened, which every daily game of that day and level
    starts as a copy of. Dealt by games.daily.services only; never leaves the server before the
    day has ended (`closed_at`: the day's end was handled)."""

    day = models.DateField()
    level = models.CharField(max_length=16)
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    mines = models.PositiveIntegerField()
    # The engine's codec of the board with the start cell opened (mines included).
    board = models.BinaryField()
    start_x = models.PositiveSmallIntegerField()
    start_y = models.PositiveSmallIntegerField()
    bbbv = models.PositiveIntegerField()
    opened = models.PositiveIntegerField()  # safe cells the opening opened
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "level"], name="daily_day_level_unique"),
        ]

    def __str__(self) -> str:
        return f"daily {self.day} {self.level}"


class Move(models.Model):
    """One accepted action, numbered by `seq` (1-based, no gaps) within its game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    action = models.CharField(max_length=8, choices=Action.choices)
    x = models.PositiveSmallIntegerField(null=True, blank=True)
    y = models.PositiveSmallIntegerField(null=True, blank=True)
    flagged = models.BooleanField(null=True, blank=True)  # the explicit `flagged` of a flag move
    at_ms = models.BigIntegerField()  # the game clock at this move
    client_move_id = models.CharField(max_length=64, null=True, blank=True)
    # The original `changes`, kept only when a client_move_id makes a replay possible.
    changes = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="move_game_seq_unique"),
            models.UniqueConstraint(
                fields=["game", "client_move_id"],
                condition=models.Q(client_move_id__isnull=False),
                name="move_game_client_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.action}"


class GameAnalysis(models.Model):
    """The analysis of an ended game (games.play.analysis, docs/ANALYSIS.md), written off the
    request path by games.play.analysis_jobs; shown (`analysis` of API.md's Game) only where the
    layout may be shown. `folded`: counted into its player's skill streak (in end order)."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="analysis"
    )
    # API.md's `moves`: [{seq, label, p_mine, safest_p_mine, safest}, ...]
    moves = models.JSONField(default=list)
    forced_guesses = models.PositiveIntegerField(default=0)
    avoidable_guesses = models.PositiveIntegerField(default=0)
    guesses_survived = models.PositiveIntegerField(default=0)
    unlucky_loss = models.BooleanField(default=False)
    exact = models.BooleanField(default=True)  # False: ms-toollib's routine answered a position
    compute_ms = models.PositiveIntegerField(default=0)
    folded = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"analysis of {self.game_id}"

    def as_dict(self) -> dict[str, object]:
        return {
            "moves": self.moves,
            "forced_guesses": self.forced_guesses,
            "avoidable_guesses": self.avoidable_guesses,
            "unlucky_loss": self.unlucky_loss,
            "exact": self.exact,
        }


class ReviewStatus(models.TextChoices):
    PENDING = "pending"
    CLEARED = "cleared"  # staff found it human: the game ranks
    CONFIRMED = "confirmed"  # staff found it superhuman: the account is flagged


class Review(models.Model):
    """A human's won game held from the boards because it went beyond the limits of
    docs/FAIRPLAY.md, waiting for staff (games.admin). Written by games.play.fairplay only."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="review")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews"
    )
    level = models.CharField(max_length=16)
    # What the game measured against which limit: [{"check", "value", "limit"}, ...].
    findings = models.JSONField(default=list)
    status = models.CharField(
        max_length=9, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"], name="review_queue")]

    def __str__(self) -> str:
        return f"review of {self.game_id} ({self.status})"


# --- races (RULES.md and API.md, Races; docs/RACES.md) ----------------------------------------


class RaceState(models.TextChoices):
    OPEN = "open"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class RacerState(models.TextChoices):
    WAITING = "waiting"
    RACING = "racing"
    WON = "won"
    LOST = "lost"
    LEFT = "left"


ACTIVE_RACE_STATES = (RaceState.OPEN, RaceState.COUNTDOWN, RaceState.RUNNING)
DONE_RACER_STATES = (RacerState.WON, RacerState.LOST, RacerState.LEFT)


class Race(models.Model):
    """Two to eight racers on one layout. Written by games.races.services (and games.races.progress for
    the counts each move changes); `deadline` is the next instant the race clock must act on it
    (the end of the countdown, the time limit, or now once every racer is done)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.CharField(max_length=6, unique=True)
    level = models.CharField(max_length=16)  # one of engine.LEVELS
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    mines = models.PositiveIntegerField()
    state = models.CharField(max_length=9, choices=RaceState.choices, default=RaceState.OPEN)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # Who opened the room (None for quick match): the host may change, this does not; it
    # bounds the rooms one account keeps open (games.races.rules.MAX_OPEN_ROOMS).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    max_players = models.PositiveSmallIntegerField(default=8)
    quick = models.BooleanField(default=False)  # made by quick match
    rated = models.BooleanField(default=False)  # fixed at the start (docs/RACES.md)
    time_limit_ms = models.PositiveIntegerField()
    seq = models.PositiveIntegerField(default=0)  # number of the last race event
    racing = models.PositiveSmallIntegerField(default=0)  # racers still racing (once started)
    created_at = models.DateTimeField(default=timezone.now)
    starts_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    start_x = models.PositiveSmallIntegerField(null=True, blank=True)
    start_y = models.PositiveSmallIntegerField(null=True, blank=True)
    no_guess = models.BooleanField(default=False, db_default=False)  # every racer's board is
    # The arena that formed this race (games.arenas.services), else None.
    arena = models.ForeignKey(
        "Arena", on_delete=models.SET_NULL, null=True, blank=True, related_name="races"
    )

    class Meta:
        indexes = [
            models.Index(fields=["state", "deadline"], name="race_clock"),
            models.Index(fields=["state", "level", "-created_at"], name="race_list"),
        ]

    def __str__(self) -> str:
        return f"{self.level} race {self.code} ({self.state})"


class Racer(models.Model):
    """One player in one race: their counts, their result, and the raw result the ratings are
    computed from (`place`, `pool`), kept so that every rating can be recomputed."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="racers")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="racers"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    ready = models.BooleanField(default=False)
    game = models.OneToOneField(
        Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="racer"
    )
    state = models.CharField(max_length=7, choices=RacerState.choices, default=RacerState.WAITING)
    # A racer's counts (safe cells opened, flags) are their Game's: `opened`, mines - mines_left.
    elapsed_ms = models.BigIntegerField(null=True, blank=True)  # fixed when the racer is done
    pool = models.CharField(max_length=5, blank=True, default="")  # rating pool, at the start
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    # Whether they revealed or chorded at least once themselves after the server's opening,
    # fixed when the race ends: who may gain from a race (docs/RACES.md, Rated races).
    took_part = models.BooleanField(default=False, db_default=False)
    # True while the player is still in the race (waiting or racing in an open, counting down
    # or running race): one such row per player at the most.
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["race", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="racer_once_per_race"),
            models.UniqueConstraint(
                fields=["player"], condition=models.Q(active=True), name="racer_one_active_race"
            ),
        ]
        indexes = [models.Index(fields=["player", "-joined_at"], name="racer_history")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.race_id} ({self.state})"


class RaceQueueEntry(models.Model):
    """A player waiting for quick match (one place per player); `race` is set once matched."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_queue"
    )
    level = models.CharField(max_length=16)
    rating = models.FloatField()  # the player's race rating for the level when they queued
    joined_at = models.DateTimeField(default=timezone.now)
    race = models.ForeignKey(Race, on_delete=models.CASCADE, null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["level", "joined_at"], name="race_queue_wait")]

    def __str__(self) -> str:
        return f"{self.player_id} queued for {self.level}"


# --- arenas (RULES.md and API.md, Arenas; docs/ARENAS.md) ---------------------------------------


class ArenaState(models.TextChoices):
    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"


class ArenaPlayers(models.TextChoices):
    HUMANS = "humans"
    BOTS = "bots"


class Arena(models.Model):
    """A tournament of races on one level for a fixed time. Written by games.arenas.services
    only; `deadline` is the next instant the clock must act on it (the start, the end, then
    the last instant a race still running may end)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.CharField(max_length=6, unique=True)
    name = models.CharField(max_length=60)
    level = models.CharField(max_length=16)  # one of engine.LEVELS
    no_guess = models.BooleanField(default=False)
    players = models.CharField(
        max_length=6, choices=ArenaPlayers.choices, default=ArenaPlayers.HUMANS
    )
    private = models.BooleanField(default=False)  # listed only by its code
    state = models.CharField(max_length=9, choices=ArenaState.choices, default=ArenaState.SCHEDULED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The server's schedule that made it ("beginner:60:30"), empty for a player's arena.
    schedule = models.CharField(max_length=40, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    time_limit_ms = models.PositiveIntegerField()  # the level's race limit at the creation
    seq = models.PositiveIntegerField(default=0)  # number of the last arena event
    joined = models.PositiveIntegerField(default=0)  # players who ever joined
    # The first races wait until this many are in the pool at once (2: no minimum).
    min_players = models.PositiveSmallIntegerField(default=2)

    class Meta:
        indexes = [
            models.Index(fields=["state", "deadline"], name="arena_clock"),
            models.Index(fields=["state", "level", "starts_at"], name="arena_list"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "starts_at"],
                condition=~models.Q(schedule=""),
                name="arena_one_per_slot",
            )
        ]

    def __str__(self) -> str:
        return f"{self.level} arena {self.code} ({self.state})"


class ArenaEntry(models.Model):
    """One player in one arena: in it (`active`) or gone, waiting in the pool (`race` None and
    `waiting_since` set) or racing, and their standing (the fold of their ArenaResults)."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="arena_entries"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    active = models.BooleanField(default=True)
    race = models.ForeignKey(
        Race, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    last_race = models.ForeignKey(
        Race, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    waiting_since = models.DateTimeField(null=True, blank=True)
    eligible_at = models.DateTimeField(default=timezone.now)  # a rejoin's penalty ends
    score = models.IntegerField(default=0)
    races = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)
    score_at = models.DateTimeField(default=timezone.now)  # when the score was reached
    final_rank = models.PositiveIntegerField(null=True, blank=True)  # fixed at the end

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["arena", "player"], name="arena_entry_once"),
        ]
        indexes = [
            models.Index(fields=["arena", "-score", "races", "score_at"], name="arena_standings"),
            models.Index(fields=["player", "-joined_at"], name="arena_history"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in arena {self.arena_id}"


class ArenaResult(models.Model):
    """One player's result in one arena race, as the points see it (games.arenas.rules)."""

    entry = models.ForeignKey(ArenaEntry, on_delete=models.CASCADE, related_name="results")
    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)  # among those who took part
    takers = models.PositiveSmallIntegerField()
    took_part = models.BooleanField()
    left = models.BooleanField(default=False)
    points = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "race"], name="arena_result_once"),
        ]

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.points} in {self.race_id}"

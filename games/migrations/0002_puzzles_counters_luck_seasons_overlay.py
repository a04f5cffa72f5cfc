"""What games had added since its squash (docs/ARCHITECTURE.md, "Migrations"), in one file
that replaces the five it took over, so a database that ran them is up to date:

* the puzzles' tables (docs/PUZZLES.md);
* the community's counters of a game (games.play.counters; docs/STATS.md);
* luck, measured (docs/STATS.md): each analysis keeps its coin flips lost, the chance of having
  survived its forced guesses and its expected survivals; the analyses already stored get them
  from their own `moves` (`fill`, whose chances are rounded to 4 decimals);
* seasons and provisional race ratings (docs/RACES.md): a player's race rating of one calendar
  quarter per level and mode, and the sigma that went with each racer's rating after a race
  (`manage.py recompute_race_ratings` fills them in for races that ended before);
* the replay's probability overlay (docs/ANALYSIS.md): a row per analysed game, written with
  its analysis."""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models

COUNTS = ("reveal_clicks", "flag_clicks", "chord_clicks", "effective_clicks", "flags_placed")


def fill(apps, schema_editor):
    GameAnalysis = apps.get_model("games", "GameAnalysis")
    batch = []
    for row in GameAnalysis.objects.filter(survival_chance__isnull=True).iterator(chunk_size=500):
        chance, expected = 1.0, 0.0
        for move in row.moves:
            if move.get("label") == "forced_guess":
                chance *= 1.0 - move["p_mine"]
                expected += 1.0 - move["p_mine"]
        row.survival_chance, row.expected_survivals = chance, expected
        row.coin_flips_lost = int(row.unlucky_loss)
        batch.append(row)
        if len(batch) >= 500:
            GameAnalysis.objects.bulk_update(
                batch, ["survival_chance", "expected_survivals", "coin_flips_lost"]
            )
            batch = []
    GameAnalysis.objects.bulk_update(
        batch, ["survival_chance", "expected_survivals", "coin_flips_lost"]
    )


class Migration(migrations.Migration):
    replaces = [('games', '0002_puzzles'), ('games', '0003_game_counters'), ('games', '0004_luck'), ('games', '0005_racer_sigma_after'), ('games', '0006_probabilities')]

    dependencies = [('accounts', '0002_counts'), ('games', '0001_schema'), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        # Puzzles (was games 0002_puzzles).
        migrations.CreateModel(
            name='PuzzleSource',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='puzzle_source', serialize=False, to='games.game')),
                ('level', models.CharField(max_length=16)),
                ('candidates', models.PositiveIntegerField(default=0)),
                ('puzzles', models.PositiveIntegerField(default=0)),
                ('compute_ms', models.PositiveIntegerField(default=0)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.CreateModel(
            name='Puzzle',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('level', models.CharField(max_length=16)),
                ('width', models.PositiveSmallIntegerField()),
                ('height', models.PositiveSmallIntegerField()),
                ('mines', models.PositiveIntegerField()),
                ('view', models.TextField()),
                ('layout', models.TextField()),
                ('solution', models.JSONField(default=list)),
                ('themes', models.CharField(max_length=64)),
                ('theme', models.CharField(max_length=16)),
                ('depth', models.PositiveSmallIntegerField()),
                ('rating', models.FloatField()),
                ('deviation', models.FloatField()),
                ('plays', models.PositiveIntegerField(default=0)),
                ('rated_plays', models.PositiveIntegerField(default=0)),
                ('solves', models.PositiveIntegerField(default=0)),
                ('key', models.CharField(max_length=64, unique=True)),
                ('source_seq', models.PositiveIntegerField(default=0)),
                ('origin', models.CharField(max_length=16)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('source_game', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='puzzles', to='games.game')),
            ],
        ),
        migrations.CreateModel(
            name='PuzzleOfTheDay',
            fields=[
                ('day', models.DateField(primary_key=True, serialize=False)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('puzzle', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='days', to='games.puzzle')),
            ],
        ),
        migrations.CreateModel(
            name='PuzzleRating',
            fields=[
                ('player', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='puzzle_rating', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('rating', models.FloatField(default=1500.0)),
                ('deviation', models.FloatField(default=500.0)),
                ('pool', models.CharField(choices=[('human', 'Human'), ('bot', 'Bot'), ('none', 'None')], default='human', max_length=5)),
                ('rated_attempts', models.PositiveIntegerField(default=0)),
                ('solved', models.PositiveIntegerField(default=0)),
                ('best_streak', models.PositiveIntegerField(default=0)),
                ('best_streak_at', models.DateTimeField(blank=True, null=True)),
                ('best_storm', models.PositiveIntegerField(default=0)),
                ('best_storm_at', models.DateTimeField(blank=True, null=True)),
                ('machine_attempts', models.PositiveIntegerField(default=0)),
                ('held', models.BooleanField(default=False)),
                ('held_at', models.DateTimeField(blank=True, null=True)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                'indexes': [models.Index(fields=['pool', 'held', '-rating'], name='puzzle_rating_board'), models.Index(fields=['pool', 'held', '-best_streak'], name='puzzle_streak_board'), models.Index(fields=['pool', 'held', '-best_storm'], name='puzzle_storm_board')],
            },
        ),
        migrations.CreateModel(
            name='PuzzleRun',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('kind', models.CharField(choices=[('streak', 'Streak'), ('storm', 'Storm')], max_length=6)),
                ('running', models.BooleanField(default=True)),
                ('score', models.PositiveIntegerField(default=0)),
                ('failures', models.PositiveIntegerField(default=0)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('day', models.DateField(blank=True, null=True)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='puzzle_runs', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='PuzzleAttempt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('mode', models.CharField(choices=[('rated', 'Rated'), ('daily', 'Daily'), ('practice', 'Practice'), ('streak', 'Streak'), ('storm', 'Storm')], max_length=8)),
                ('first', models.BooleanField(default=False)),
                ('state', models.CharField(choices=[('playing', 'Playing'), ('solved', 'Solved'), ('failed', 'Failed')], default='playing', max_length=7)),
                ('opened', models.JSONField(default=list)),
                ('times_ms', models.JSONField(default=list)),
                ('wrong', models.JSONField(blank=True, null=True)),
                ('shown_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('rated', models.BooleanField(default=False)),
                ('machine', models.BooleanField(default=False)),
                ('rating_before', models.FloatField(blank=True, null=True)),
                ('rating_after', models.FloatField(blank=True, null=True)),
                ('puzzle_rating_before', models.FloatField(blank=True, null=True)),
                ('puzzle_rating_after', models.FloatField(blank=True, null=True)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='puzzle_attempts', to=settings.AUTH_USER_MODEL)),
                ('puzzle', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attempts', to='games.puzzle')),
                ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='attempts', to='games.puzzlerun')),
            ],
        ),
        migrations.AddIndex(
            model_name='puzzle',
            index=models.Index(fields=['rating'], name='puzzle_rating'),
        ),
        migrations.AddIndex(
            model_name='puzzle',
            index=models.Index(fields=['theme', 'rating'], name='puzzle_theme_rating'),
        ),
        migrations.AddIndex(
            model_name='puzzlerun',
            index=models.Index(fields=['player', 'kind', '-created_at'], name='puzzle_run_player'),
        ),
        migrations.AddIndex(
            model_name='puzzlerun',
            index=models.Index(fields=['kind', 'day', '-score'], name='puzzle_run_day'),
        ),
        migrations.AddIndex(
            model_name='puzzleattempt',
            index=models.Index(fields=['player', 'puzzle'], name='puzzle_attempt_player'),
        ),
        migrations.AddIndex(
            model_name='puzzleattempt',
            index=models.Index(fields=['player', 'ended_at'], name='puzzle_attempt_history'),
        ),
        migrations.AddConstraint(
            model_name='puzzleattempt',
            constraint=models.UniqueConstraint(condition=models.Q(('first', True)), fields=('player', 'puzzle'), name='puzzle_attempt_first_once'),
        ),
        # The community's counters of a game (was games 0003_game_counters): each column
        # added null first, so that the games already stored stay null (not counted), then
        # given its default of 0 for the games created from then on.
        *(
            migrations.AddField(
                model_name="game",
                name=name,
                field=models.PositiveIntegerField(blank=True, null=True),
            )
            for name in COUNTS
        ),
        *(
            migrations.AlterField(
                model_name="game",
                name=name,
                field=models.PositiveIntegerField(blank=True, default=0, null=True),
            )
            for name in COUNTS
        ),
        migrations.AddField(
            model_name="game",
            name="zini",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        # Luck, measured (was games 0004_luck).
        migrations.AddField(
            model_name="gameanalysis",
            name="coin_flips_lost",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="gameanalysis",
            name="expected_survivals",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="gameanalysis",
            name="survival_chance",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        # Seasons and provisional race ratings (was games 0005_racer_sigma_after).
        migrations.AddField(
            model_name="racer",
            name="sigma_after",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name="SeasonRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("season", models.CharField(max_length=6)),
                ("level", models.CharField(max_length=16)),
                ("pool", models.CharField(max_length=5)),
                ("mu", models.FloatField()),
                ("sigma", models.FloatField()),
                ("rating", models.IntegerField()),
                ("races", models.PositiveIntegerField(default=0)),
                ("wins", models.PositiveIntegerField(default=0)),
                ("podiums", models.PositiveIntegerField(default=0)),
                ("rated_races", models.PositiveIntegerField(default=0)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="season_ratings",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "games_seasonrating",
                "indexes": [
                    models.Index(
                        fields=["season", "level", "pool", "-rating", "updated_at", "player"],
                        name="season_board",
                    )
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("player", "season", "level"), name="season_rating_once"
                    )
                ],
            },
        ),
        # The replay's probability overlay (was games 0006_probabilities).
        migrations.CreateModel(
            name="GameProbabilities",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="probabilities",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("steps", models.PositiveIntegerField()),
                ("chunk", models.PositiveSmallIntegerField()),
                ("offsets", models.JSONField(default=list)),
                ("data", models.BinaryField()),
                ("exact", models.BooleanField(default=True)),
                ("compute_ms", models.PositiveIntegerField(default=0)),
            ],
        ),
    ]

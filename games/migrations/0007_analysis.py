# The analysis of a finished game (RULES.md, No-guess boards, Analysis; docs/ANALYSIS.md): its
# table, and the worker's queue (ended games by end, solo and race apart).

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_no_guess"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="GameAnalysis",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="analysis",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("moves", models.JSONField(default=list)),
                ("forced_guesses", models.PositiveIntegerField(default=0)),
                ("avoidable_guesses", models.PositiveIntegerField(default=0)),
                ("guesses_survived", models.PositiveIntegerField(default=0)),
                ("unlucky_loss", models.BooleanField(default=False)),
                ("exact", models.BooleanField(default=True)),
                ("compute_ms", models.PositiveIntegerField(default=0)),
                ("folded", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False), ("race__isnull", True)),
                fields=["ended_at"],
                name="game_ended_solo",
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False), ("race__isnull", False)),
                fields=["ended_at"],
                name="game_ended_race",
            ),
        ),
    ]

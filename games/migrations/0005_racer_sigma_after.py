"""Seasons and provisional race ratings (docs/RACES.md, Provisional ratings and Seasons): a
player's race rating of one calendar quarter per level and mode, started fresh each season,
and the sigma that went with each racer's rating after a race. Both start empty: `manage.py
recompute_race_ratings` fills them in for the races that ended before."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_luck"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
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
    ]

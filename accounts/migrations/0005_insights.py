"""Insights (docs/STATS.md, Insights): each player's analysed solo games summed per statistics
bucket and month, and where they guessed. Empty at first: `manage.py analyse_games
--refold-all` counts the games analysed before it."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_luck"),
    ]

    operations = [
        migrations.CreateModel(
            name="PlayerInsight",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("level", models.CharField(max_length=16)),
                ("months", models.JSONField(blank=True, default=dict)),
                ("heat", models.JSONField(blank=True, default=dict)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="insights",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "accounts_player_insight",
                "constraints": [
                    models.UniqueConstraint(fields=("user", "level"), name="player_insight_user_level")
                ],
            },
        ),
    ]

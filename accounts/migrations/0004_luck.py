"""Luck, measured (docs/STATS.md): the luck-adjusted streak and the coin flips per month of
each statistics bucket. Both start empty; `manage.py analyse_games --refold-all` counts the
games analysed before them."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_no_flag_records"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerstats",
            name="adjusted_streak",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="best_adjusted_streak",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="luck_months",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]

# Luck in the statistics (RULES.md, No-guess boards, Analysis): unlucky losses, guesses survived, skill streak,
# and the `sort=skill` streak board's key and index (docs/ANALYSIS.md).

import django.db.models.expressions
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0009_username_key_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerstats",
            name="best_skill_streak",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="guesses_survived",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="skill_streak",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="unlucky_losses",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="best_skill_streak_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="best_skill_streak_key",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.ExpressionWrapper(
                    django.db.models.expressions.CombinedExpression(
                        models.Value(0), "-", models.F("best_skill_streak")
                    ),
                    output_field=models.IntegerField(),
                ),
                output_field=models.IntegerField(),
            ),
        ),
        migrations.AddIndex(
            model_name="playerstats",
            index=models.Index(
                condition=models.Q(("best_skill_streak__gt", 0)),
                fields=["level", "pool", "best_skill_streak_key", "best_skill_streak_at", "user"],
                include=("id",),
                name="stats_skill_streak_board",
            ),
        ),
    ]

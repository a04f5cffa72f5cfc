# Luck in the statistics (RULES.md, No-guess boards, Analysis): unlucky losses, guesses survived, skill streak.

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
    ]

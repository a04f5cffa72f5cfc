# No-guess boards (RULES.md, No-guess boards): the mode of a game and of a race.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_race_created_by_racer_took_part"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="no_guess",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="race",
            name="no_guess",
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]

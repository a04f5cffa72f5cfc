"""The replay's probability overlay (docs/ANALYSIS.md, The probability overlay): a row per
analysed game, written with its analysis. The games analysed before it have none."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_racer_sigma_after"),
    ]

    operations = [
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

"""Luck, measured (docs/STATS.md): each analysis keeps its coin flips lost, the chance of having
survived its forced guesses and its expected survivals. The analyses already stored get them
from their own `moves` (whose chances are rounded to 4 decimals); the losing forced guess is
the last move of an unlucky loss. Players' luck per month and luck-adjusted streaks are then
counted again by `manage.py analyse_games --refold-all`."""

from django.db import migrations, models


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
    dependencies = [
        ("games", "0003_game_counters"),
    ]

    operations = [
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
    ]

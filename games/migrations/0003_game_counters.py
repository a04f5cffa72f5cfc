"""The community's counters of a game (games.play.counters; docs/STATS.md). Each column is
added null first, so that the games already stored (whose moves were never counted) stay null,
"not counted", and only then given its default of 0 for the games created from now on."""

from django.db import migrations, models

COUNTS = ("reveal_clicks", "flag_clicks", "chord_clicks", "effective_clicks", "flags_placed")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0002_puzzles"),
    ]

    operations = [
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
    ]

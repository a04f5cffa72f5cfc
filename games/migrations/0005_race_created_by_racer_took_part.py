# Rated races (docs/RACES.md): who opened a room (the cap on open rooms per account) and
# whether a racer took part (revealed or chorded at least once after the server's opening).
# Finished races get `took_part` from their stored moves, so `manage.py
# recompute_race_ratings` can re-rate the history under the new rules.
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def took_part_from_moves(apps, schema_editor):
    Move = apps.get_model("games", "Move")
    Racer = apps.get_model("games", "Racer")
    moved = Move.objects.filter(
        game__race__isnull=False, seq__gt=1, action__in=("reveal", "chord")
    ).values("game_id")
    Racer.objects.filter(game_id__in=moved).update(took_part=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_race_rating_to_accounts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="race",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="racer",
            name="took_part",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.RunPython(took_part_from_moves, migrations.RunPython.noop, elidable=True),
    ]

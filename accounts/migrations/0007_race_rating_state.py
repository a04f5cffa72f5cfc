# State only: RaceRating moves from games to accounts (the standings room) and keeps its
# table, games_racerating, its indexes and its rows. games 0004 removes it from games' state.
# The fields are the ones games 0003 created the table with, read from that migration.
from importlib import import_module

from django.db import migrations, models


def _created_in_0003():
    races = import_module("games.migrations.0003_races").Migration.operations
    create = next(op for op in races if getattr(op, "name", "") == "RaceRating")
    return [(name, field.clone()) for name, field in create.fields]


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_board_counts'),
        ('games', '0003_races'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='RaceRating',
                    fields=_created_in_0003(),
                    options={
                        'db_table': 'games_racerating',
                        'indexes': [models.Index(fields=['level', 'pool', '-rating', 'updated_at', 'player'], name='race_board')],
                        'constraints': [models.UniqueConstraint(fields=('player', 'level'), name='race_rating_once')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]

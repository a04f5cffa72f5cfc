# State only: RaceRating moves from games to accounts (the standings room) and keeps its
# table, games_racerating, its indexes and its rows. games 0004 removes it from games' state.
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


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
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('level', models.CharField(max_length=16)),
                        ('pool', models.CharField(max_length=5)),
                        ('mu', models.FloatField()),
                        ('sigma', models.FloatField()),
                        ('rating', models.IntegerField()),
                        ('races', models.PositiveIntegerField(default=0)),
                        ('wins', models.PositiveIntegerField(default=0)),
                        ('podiums', models.PositiveIntegerField(default=0)),
                        ('rated_races', models.PositiveIntegerField(default=0)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('player', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='race_ratings', to=settings.AUTH_USER_MODEL)),
                    ],
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

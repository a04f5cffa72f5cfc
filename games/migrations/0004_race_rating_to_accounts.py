# State only: RaceRating now belongs to accounts (accounts 0007); its table stays as it is.
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0003_races'),
        ('accounts', '0007_race_rating_state'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='RaceRating')],
            database_operations=[],
        ),
    ]

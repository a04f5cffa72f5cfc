# Token scopes (API.md, Token scopes and event streams): existing tokens keep all four.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0011_lifecycle"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scopes",
            field=models.CharField(
                db_default="game:play,race:play,account:read,account:write",
                default="game:play,race:play,account:read,account:write",
                max_length=100,
            ),
        ),
    ]

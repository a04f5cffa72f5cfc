# An app's access token ("Sign in with Démineur", accounts.oauth) is also a row of the token
# table: the library's token it mirrors (deleted with it) and when it expires.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_insights"),
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="oauth_token",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_token",
                to="oauth2_provider.accesstoken",
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]

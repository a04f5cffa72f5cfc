from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0008_username_key"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="username_key",
            field=models.CharField(blank=True, max_length=600, null=True, unique=True),
        ),
    ]

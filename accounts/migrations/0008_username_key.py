# Issue 20, item 4: usernames compared as the eye reads them (accounts.names.name_key).
# The column comes nullable, is filled here, and becomes unique in 0009 (its own transaction,
# after these row updates). Two existing names that already share a key (a case twin made
# before this check, say) both stay: the older keeps the key, the later gets none and is
# named in the output for staff; it still signs in by its exact name.
import unicodedata

from django.db import migrations, models


def _key(name):
    # accounts.names.name_key, imported at run time so a later change of the table is the
    # one applied (a changed table must come with a migration that recomputes keys).
    from accounts.names import name_key

    return name_key(name)


def fill_keys(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    seen = set()
    twins = []
    for pk, username in User.objects.order_by("pk").values_list("pk", "username").iterator():
        key = _key(username)
        if key in seen:
            twins.append(username)
            continue
        seen.add(key)
        User.objects.filter(pk=pk).update(username_key=key)
    if twins:
        shown = ", ".join(unicodedata.normalize("NFKC", t) for t in twins[:20])
        print(f"\n  {len(twins)} username(s) look like an older one and got no key: {shown}")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0007_race_rating_state"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=models.CharField(blank=True, max_length=600, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
    ]

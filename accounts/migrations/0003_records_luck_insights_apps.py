"""What accounts had added since its squash (docs/ARCHITECTURE.md, "Migrations"), in one
file that replaces the four it took over, so a database that ran them is up to date:

* no-flag (NF) records (docs/STATS.md): a player's NF bests per bucket, and the record chains of
  the NF boards (kinds `nf_time` and `nf_speed`, hence a longer `kind`). On PostgreSQL every
  board that has anchors gets the NF boards' anchors beside them (`forwards`);
  accounts.standings.stats.ensure_boards adds them for a no-guess bucket's first win;
* luck, measured: the luck-adjusted streak and the coin flips per month of each statistics
  bucket;
* insights (docs/STATS.md, Insights): each player's analysed solo games summed per bucket and
  month, and where they guessed;
* an app's access token ("Sign in with Démineur", accounts.oauth) is also a row of the token
  table: the library's token it mirrors (deleted with it) and when it expires.

The new columns and tables start empty: `manage.py analyse_games --refold-all` counts the
games analysed before them."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

PERIODS = (("year", 365), ("month", 30), ("week", 7), ("day", 1))

KINDS = ("nf_time", "nf_speed")


def _anchor_rows() -> str:
    rows = []
    for kind in KINDS:
        rows.append(f"SELECT '{kind}:all', '{kind}', NULL::interval")
        for period, days in PERIODS:
            rows.append(f"SELECT '{kind}:{period}', '{kind}', '{days} days'::interval")
    return " UNION ALL ".join(rows)


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "INSERT INTO accounts_board_anchor (level, pool, board, source, span, cutoff)"
        " SELECT a.level, a.pool, b.board, b.source, b.span, now() - b.span"
        " FROM (SELECT DISTINCT level, pool FROM accounts_board_anchor) a"
        f" CROSS JOIN ({_anchor_rows()}) b (board, source, span)"
        " ON CONFLICT DO NOTHING",
        None,
    )


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "DELETE FROM accounts_board_count WHERE split_part(board, ':', 1) IN ('nf_time', 'nf_speed');"
        " DELETE FROM accounts_board_anchor WHERE source IN ('nf_time', 'nf_speed')",
        None,
    )


class Migration(migrations.Migration):
    replaces = [('accounts', '0003_no_flag_records'), ('accounts', '0004_luck'), ('accounts', '0005_insights'), ('accounts', '0006_oauth_tokens')]

    dependencies = [('accounts', '0002_counts'), ('oauth2_provider', '0022_refreshtoken_token_family_index'), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        # No-flag records (was accounts 0003_no_flag_records).
        migrations.AddField(
            model_name='playerstats',
            name='nf_best_bbbv_per_s',
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='playerstats',
            name='nf_best_bbbv_per_s_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='playerstats',
            name='nf_best_bbbv_per_s_game',
            field=models.UUIDField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='playerstats',
            name='nf_best_time_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='playerstats',
            name='nf_best_time_game',
            field=models.UUIDField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='playerstats',
            name='nf_best_time_ms',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='personalrecord',
            name='kind',
            field=models.CharField(choices=[('time', 'Time'), ('speed', 'Speed'), ('nf_time', 'Nf Time'), ('nf_speed', 'Nf Speed')], max_length=8),
        ),
        migrations.RunPython(forwards, backwards),
        # Luck, measured (was accounts 0004_luck).
        migrations.AddField(
            model_name="playerstats",
            name="adjusted_streak",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="best_adjusted_streak",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="playerstats",
            name="luck_months",
            field=models.JSONField(blank=True, default=dict),
        ),
        # Insights (was accounts 0005_insights).
        migrations.CreateModel(
            name="PlayerInsight",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("level", models.CharField(max_length=16)),
                ("months", models.JSONField(blank=True, default=dict)),
                ("heat", models.JSONField(blank=True, default=dict)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="insights",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "accounts_player_insight",
                "constraints": [
                    models.UniqueConstraint(fields=("user", "level"), name="player_insight_user_level")
                ],
            },
        ),
        # Apps' access tokens (was accounts 0006_oauth_tokens).
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

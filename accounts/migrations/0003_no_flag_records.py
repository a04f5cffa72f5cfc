"""No-flag (NF) records (docs/STATS.md): a player's NF bests per bucket, and the record chains
of the NF boards (kinds `nf_time` and `nf_speed`, hence a longer `kind`). On PostgreSQL every
board that has anchors (the classic levels, and each no-guess bucket that has had a ranked win)
gets the NF boards' anchors beside them; accounts.standings.stats.ensure_boards adds them for a
no-guess bucket's first win. No NF link exists yet, so every new board's count starts at 0."""

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

    dependencies = [
        ('accounts', '0002_counts'),
    ]

    operations = [
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
    ]

"""The daily boards' histogram (PostgreSQL only; docs/DAILY.md, "How the board stays fast"):
`accounts_daily_count` holds, per day, level, pool and bucket of the board's key, the number of
rows, kept exact by a trigger on accounts_daily_entry, so that a board's size, a player's rank
and the start of page N cost a read of the histogram and a walk inside one bucket, never a
count of the day's rows.

The table is a log of deltas (+1 and -1 rows, no row is ever updated, so game ends never queue
on a hot counter); `accounts_daily_compact` folds a board's deltas into one row per bucket (the
daily clock calls it every few seconds), and `accounts_daily_rebuild` recounts a day from the
entries. A bucket (accounts_daily_bucket, mirrored by accounts.standings.daily.bucket_of): a
win's second; a game ended without a win, its exact score (one per number of cells opened); a
game still running, the ten minutes it started in."""

from __future__ import annotations

from django.db import migrations

SQL = r"""
CREATE TABLE accounts_daily_count (
    day date NOT NULL,
    level varchar(16) NOT NULL,
    pool varchar(5) NOT NULL,
    bucket bigint NOT NULL,
    n integer NOT NULL
);
CREATE INDEX daily_count_bucket ON accounts_daily_count (day, level, pool, bucket) INCLUDE (n);

CREATE FUNCTION accounts_daily_bucket(s bigint, at timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN s < 5000000000 THEN s / 1000
        WHEN s < 15000000000 THEN s
        ELSE 20000000000 + floor(extract(epoch FROM at) / 600)::bigint
    END
$$;

CREATE FUNCTION accounts_daily_entry_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND (OLD.day, OLD.level, OLD.pool, OLD.score, OLD.achieved_at)
            IS NOT DISTINCT FROM (NEW.day, NEW.level, NEW.pool, NEW.score, NEW.achieved_at) THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.pool <> 'none' THEN
        INSERT INTO accounts_daily_count VALUES (
            OLD.day, OLD.level, OLD.pool, accounts_daily_bucket(OLD.score, OLD.achieved_at), -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.pool <> 'none' THEN
        INSERT INTO accounts_daily_count VALUES (
            NEW.day, NEW.level, NEW.pool, accounts_daily_bucket(NEW.score, NEW.achieved_at), 1);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER daily_count_entries AFTER INSERT OR UPDATE OR DELETE ON accounts_daily_entry
    FOR EACH ROW EXECUTE FUNCTION accounts_daily_entry_change();

CREATE FUNCTION accounts_daily_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE accounts_daily_count;
    RETURN NULL;
END $$;

CREATE TRIGGER daily_count_entries_truncate AFTER TRUNCATE ON accounts_daily_entry
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_daily_truncated();

-- One board's deltas folded into one row per bucket. Deltas inserted while it runs are not
-- among the deleted rows (the statement's snapshot), so they stay and the sums stay exact.
CREATE FUNCTION accounts_daily_compact(dy date, lv text, pl text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    kept integer;
BEGIN
    WITH gone AS (
        DELETE FROM accounts_daily_count WHERE day = dy AND level = lv AND pool = pl
        RETURNING bucket, n
    )
    INSERT INTO accounts_daily_count
    SELECT dy, lv, pl, bucket, sum(n)::integer FROM gone GROUP BY bucket HAVING sum(n) <> 0;
    GET DIAGNOSTICS kept = ROW_COUNT;
    RETURN kept;
END $$;

-- A day's histogram recounted from its entries (after a bulk load, or to check the trigger).
CREATE FUNCTION accounts_daily_rebuild(dy date) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE accounts_daily_entry IN SHARE MODE;
    DELETE FROM accounts_daily_count WHERE day = dy;
    INSERT INTO accounts_daily_count
    SELECT day, level, pool, accounts_daily_bucket(score, achieved_at), count(*)::integer
    FROM accounts_daily_entry WHERE day = dy AND pool <> 'none'
    GROUP BY 1, 2, 3, 4;
END $$;

INSERT INTO accounts_daily_count
SELECT day, level, pool, accounts_daily_bucket(score, achieved_at), count(*)::integer
FROM accounts_daily_entry WHERE pool <> 'none'
GROUP BY 1, 2, 3, 4;
"""

REVERSE = r"""
DROP TRIGGER IF EXISTS daily_count_entries ON accounts_daily_entry;
DROP TRIGGER IF EXISTS daily_count_entries_truncate ON accounts_daily_entry;
DROP FUNCTION IF EXISTS accounts_daily_truncated();
DROP FUNCTION IF EXISTS accounts_daily_entry_change();
DROP FUNCTION IF EXISTS accounts_daily_compact(date, text, text);
DROP FUNCTION IF EXISTS accounts_daily_rebuild(date);
DROP FUNCTION IF EXISTS accounts_daily_bucket(bigint, timestamptz);
DROP TABLE IF EXISTS accounts_daily_count;
"""


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(SQL, None)


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(REVERSE, None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0013_daily"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]

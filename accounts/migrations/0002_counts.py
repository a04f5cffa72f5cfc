"""The leaderboards' histograms, PostgreSQL only (dev on SQLite keeps the direct reads).
Squashed from accounts 0006_board_counts and 0014_daily_counts; the tables, functions and
triggers are theirs, statement for statement.

Board counts: a bucketed histogram of every leaderboard, kept by triggers in the
transaction that changes a board row, so a board's size, a player's rank and the start of
page N cost O(buckets + one bucket), not O(rows) (docs/STATS.md, "How the boards stay fast").

* `accounts_board_count(level, pool, board, bucket, n)`: append-only deltas (+1 / -1, or
  sums once compacted); a board's rows per bucket are `sum(n) GROUP BY bucket`. Inserts only,
  so concurrent game ends never wait on, or deadlock over, a counter row.
* `accounts_board_anchor`: one row per board. For a rolling period it holds the cutoff
  (`now - span` at the last advance) the period's counts are exact for; a read at another
  cutoff corrects them with the few links whose times fall between the two. `compacted_at`:
  when the board's deltas were last folded into one row per bucket.
* Buckets (see accounts.standings.leaderboards): for times and speed `score_bucket(score)`, a monotone
  log scale (300 buckets per e-fold of 1 + |score|); for streaks `streak_bucket(length, at)`,
  the negated length then the week (since 1970) the row reached it -- both follow the board order, so
  "every bucket before the player's, plus a walk of their bucket" is their rank.

The daily boards' histogram (docs/DAILY.md, "How the board stays fast"):
`accounts_daily_count` holds, per day, level, pool and bucket of the board's key, the number of
rows, kept exact by a trigger on accounts_daily_entry, so that a board's size, a player's rank
and the start of page N cost a read of the histogram and a walk inside one bucket, never a
count of the day's rows.

The table is a log of deltas (+1 and -1 rows, no row is ever updated, so game ends never queue
on a hot counter); `accounts_daily_compact` folds a board's deltas into one row per bucket (the
daily clock calls it every few seconds), and `accounts_daily_rebuild` recounts a day from the
entries. A bucket (accounts_daily_bucket, mirrored by accounts.standings.daily.bucket_of): a
win's second; a game ended without a win, its exact score (one per number of cells opened); a
game still running, the ten minutes it started in.
"""

from __future__ import annotations

from django.db import migrations

BUCKETS_PER_E = 300  # accounts.standings.leaderboards.BUCKETS_PER_E
LEVELS = ("beginner", "intermediate", "hard", "expert", "extreme", "marathon")
POOLS = ("human", "bot")
PERIODS = (("year", 365), ("month", 30), ("week", 7), ("day", 1))

BOARDS = f"""
CREATE TABLE accounts_board_count (
    level varchar(16) NOT NULL,
    pool varchar(5) NOT NULL,
    board varchar(16) NOT NULL,
    bucket bigint NOT NULL,
    n integer NOT NULL
);
CREATE INDEX board_count_bucket ON accounts_board_count (level, pool, board, bucket) INCLUDE (n);

CREATE TABLE accounts_board_anchor (
    level varchar(16) NOT NULL,
    pool varchar(5) NOT NULL,
    board varchar(16) NOT NULL,
    source varchar(8) NOT NULL,
    span interval,
    cutoff timestamptz,
    compacted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (level, pool, board)
);

CREATE FUNCTION accounts_board_score_bucket(s double precision) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN s >= 0 THEN floor({BUCKETS_PER_E} * ln(1 + s))::bigint
                ELSE -ceil({BUCKETS_PER_E} * ln(1 - s))::bigint END
$$;

CREATE FUNCTION accounts_board_streak_bucket(len integer, at timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (-len)::bigint * 100000
           + coalesce(floor(extract(epoch FROM at) / 604800)::bigint, 0)
$$;

-- One link entering (d = 1) or leaving (d = -1) the boards of its level, pool and kind: the
-- all-time board if it is a chain head, and each period whose anchored cutoff it spans.
CREATE FUNCTION accounts_board_record_delta(
    lv text, pl text, kd text, sc double precision, ach timestamptz, prv timestamptz, d integer
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    b bigint := accounts_board_score_bucket(sc);
    a record;
BEGIN
    IF prv = '1970-01-01 00:00:00+00' THEN
        INSERT INTO accounts_board_count VALUES (lv, pl, kd || ':all', b, d);
    END IF;
    FOR a IN
        SELECT board, cutoff FROM accounts_board_anchor
        WHERE level = lv AND pool = pl AND source = kd AND span IS NOT NULL
        ORDER BY board FOR KEY SHARE
    LOOP
        IF prv < a.cutoff AND ach >= a.cutoff THEN
            INSERT INTO accounts_board_count VALUES (lv, pl, a.board, b, d);
        END IF;
    END LOOP;
END $$;

-- `SET demineur.board_counts = 'off'`: a bulk load (seed_demo) skips the triggers and
-- recounts with accounts_board_rebuild afterwards.
CREATE FUNCTION accounts_board_record_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('demineur.board_counts', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND (OLD.level, OLD.pool, OLD.kind, OLD.score, OLD.achieved_at, OLD.prev_at)
            IS NOT DISTINCT FROM (NEW.level, NEW.pool, NEW.kind, NEW.score, NEW.achieved_at, NEW.prev_at) THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM accounts_board_record_delta(
            OLD.level, OLD.pool, OLD.kind, OLD.score, OLD.achieved_at, OLD.prev_at, -1);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        PERFORM accounts_board_record_delta(
            NEW.level, NEW.pool, NEW.kind, NEW.score, NEW.achieved_at, NEW.prev_at, 1);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER board_count_records AFTER INSERT OR UPDATE OR DELETE ON accounts_personal_record
    FOR EACH ROW EXECUTE FUNCTION accounts_board_record_change();

-- A streak row leaves its old bucket and joins its new one, per sort, when either changed.
CREATE FUNCTION accounts_board_stats_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_best bigint; new_best bigint; old_cur bigint; new_cur bigint;
BEGIN
    IF current_setting('demineur.board_counts', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.pool <> 'none' AND OLD.level <> 'custom' THEN
        IF OLD.best_streak > 0 THEN
            old_best := accounts_board_streak_bucket(OLD.best_streak, OLD.best_streak_at);
        END IF;
        IF OLD.current_streak > 0 THEN
            old_cur := accounts_board_streak_bucket(OLD.current_streak, OLD.current_streak_at);
        END IF;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.pool <> 'none' AND NEW.level <> 'custom' THEN
        IF NEW.best_streak > 0 THEN
            new_best := accounts_board_streak_bucket(NEW.best_streak, NEW.best_streak_at);
        END IF;
        IF NEW.current_streak > 0 THEN
            new_cur := accounts_board_streak_bucket(NEW.current_streak, NEW.current_streak_at);
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.level = NEW.level AND OLD.pool = NEW.pool THEN
        IF old_best IS NOT DISTINCT FROM new_best THEN old_best := NULL; new_best := NULL; END IF;
        IF old_cur IS NOT DISTINCT FROM new_cur THEN old_cur := NULL; new_cur := NULL; END IF;
    END IF;
    IF old_best IS NOT NULL THEN
        INSERT INTO accounts_board_count VALUES (OLD.level, OLD.pool, 'streak:best', old_best, -1);
    END IF;
    IF old_cur IS NOT NULL THEN
        INSERT INTO accounts_board_count VALUES (OLD.level, OLD.pool, 'streak:current', old_cur, -1);
    END IF;
    IF new_best IS NOT NULL THEN
        INSERT INTO accounts_board_count VALUES (NEW.level, NEW.pool, 'streak:best', new_best, 1);
    END IF;
    IF new_cur IS NOT NULL THEN
        INSERT INTO accounts_board_count VALUES (NEW.level, NEW.pool, 'streak:current', new_cur, 1);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER board_count_stats AFTER INSERT OR UPDATE OR DELETE ON accounts_player_stats
    FOR EACH ROW EXECUTE FUNCTION accounts_board_stats_change();

-- TRUNCATE (a test flush, the benchmark's reseed) empties the boards it empties.
CREATE FUNCTION accounts_board_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'accounts_personal_record' THEN
        DELETE FROM accounts_board_count WHERE board NOT LIKE 'streak:%';
    ELSE
        DELETE FROM accounts_board_count WHERE board LIKE 'streak:%';
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER board_count_records_truncate AFTER TRUNCATE ON accounts_personal_record
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_board_truncated();
CREATE TRIGGER board_count_stats_truncate AFTER TRUNCATE ON accounts_player_stats
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_board_truncated();

-- Move a period's anchor to a new cutoff: the links whose membership differs between the
-- two cutoffs have a time (achieved_at or prev_at) between them. Skips (false) when a game
-- end holds the anchor: the next caller moves it.
CREATE FUNCTION accounts_board_advance(lv text, pl text, bd text, c1 timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    c0 timestamptz; kd text; lo timestamptz; hi timestamptz;
BEGIN
    SELECT cutoff, source INTO c0, kd FROM accounts_board_anchor
    WHERE level = lv AND pool = pl AND board = bd AND span IS NOT NULL
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF c0 = c1 THEN
        RETURN true;
    END IF;
    lo := least(c0, c1);
    hi := greatest(c0, c1);
    -- EXECUTE: planned with the actual window each time (a cached generic plan would not see
    -- how narrow it is, and walked the whole level).
    EXECUTE $q$
        INSERT INTO accounts_board_count
        SELECT $1, $2, $3, accounts_board_score_bucket(r.score),
               sum((r.prev_at < $7 AND r.achieved_at >= $7)::int
                   - (r.prev_at < $6 AND r.achieved_at >= $6)::int)
        FROM accounts_personal_record r
        WHERE r.level = $1 AND r.pool = $2 AND r.kind = $4
          AND ((r.achieved_at >= $5 AND r.achieved_at < $8)
               OR (r.prev_at >= $5 AND r.prev_at < $8))
        GROUP BY 4
        HAVING sum((r.prev_at < $7 AND r.achieved_at >= $7)::int
                   - (r.prev_at < $6 AND r.achieved_at >= $6)::int) <> 0
    $q$ USING lv, pl, bd, kd, lo, c0, c1, hi;
    UPDATE accounts_board_anchor SET cutoff = c1
    WHERE level = lv AND pool = pl AND board = bd;
    RETURN true;
END $$;

-- Fold a board's deltas into one row per bucket (buckets that sum to 0 disappear).
CREATE FUNCTION accounts_board_compact(lv text, pl text, bd text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    many bigint[];
    folded integer := 0;
BEGIN
    SELECT array_agg(bucket) INTO many FROM (
        SELECT bucket FROM accounts_board_count
        WHERE level = lv AND pool = pl AND board = bd
        GROUP BY bucket HAVING count(*) > 1 OR sum(n) = 0
    ) x;
    IF many IS NOT NULL THEN
        WITH gone AS (
            DELETE FROM accounts_board_count
            WHERE level = lv AND pool = pl AND board = bd AND bucket = ANY(many)
            RETURNING bucket, n
        ), kept AS (
            INSERT INTO accounts_board_count
            SELECT lv, pl, bd, bucket, sum(n) FROM gone GROUP BY bucket HAVING sum(n) <> 0
            RETURNING 1
        )
        SELECT count(*) INTO folded FROM gone;
    END IF;
    UPDATE accounts_board_anchor SET compacted_at = now()
    WHERE level = lv AND pool = pl AND board = bd;
    RETURN folded;
END $$;

-- Recount every board from the rows (the migration, and bulk seeding with the triggers off).
CREATE FUNCTION accounts_board_rebuild(at timestamptz) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE accounts_board_anchor, accounts_board_count IN EXCLUSIVE MODE;
    DELETE FROM accounts_board_count;
    UPDATE accounts_board_anchor SET cutoff = at - span, compacted_at = at WHERE span IS NOT NULL;
    INSERT INTO accounts_board_count
    SELECT level, pool, kind || ':all', accounts_board_score_bucket(score), count(*)
    FROM accounts_personal_record WHERE prev_at = '1970-01-01 00:00:00+00'
    GROUP BY 1, 2, 3, 4;
    INSERT INTO accounts_board_count
    SELECT r.level, r.pool, a.board, accounts_board_score_bucket(r.score), count(*)
    FROM accounts_personal_record r
    JOIN accounts_board_anchor a
      ON a.level = r.level AND a.pool = r.pool AND a.source = r.kind AND a.span IS NOT NULL
    WHERE r.prev_at < a.cutoff AND r.achieved_at >= a.cutoff
    GROUP BY 1, 2, 3, 4;
    INSERT INTO accounts_board_count
    SELECT level, pool, 'streak:best', accounts_board_streak_bucket(best_streak, best_streak_at),
           count(*)
    FROM accounts_player_stats WHERE best_streak > 0 AND pool <> 'none' AND level <> 'custom'
    GROUP BY 1, 2, 3, 4;
    INSERT INTO accounts_board_count
    SELECT level, pool, 'streak:current',
           accounts_board_streak_bucket(current_streak, current_streak_at), count(*)
    FROM accounts_player_stats WHERE current_streak > 0 AND pool <> 'none' AND level <> 'custom'
    GROUP BY 1, 2, 3, 4;
END $$;
"""


def _anchors() -> str:
    rows = []
    for level in LEVELS:
        for pool in POOLS:
            for kind in ("time", "speed"):
                rows.append(f"('{level}', '{pool}', '{kind}:all', '{kind}', NULL)")
                for period, days in PERIODS:
                    rows.append(
                        f"('{level}', '{pool}', '{kind}:{period}', '{kind}', '{days} days')"
                    )
            for sort in ("best", "current"):
                rows.append(f"('{level}', '{pool}', 'streak:{sort}', '{sort}', NULL)")
    return (
        "INSERT INTO accounts_board_anchor (level, pool, board, source, span) VALUES "
        + ", ".join(rows)
        + "; SELECT accounts_board_rebuild(now());"
    )


BOARDS_REVERSE = """
DROP TRIGGER IF EXISTS board_count_records ON accounts_personal_record;
DROP TRIGGER IF EXISTS board_count_stats ON accounts_player_stats;
DROP TRIGGER IF EXISTS board_count_records_truncate ON accounts_personal_record;
DROP TRIGGER IF EXISTS board_count_stats_truncate ON accounts_player_stats;
DROP FUNCTION IF EXISTS accounts_board_rebuild(timestamptz);
DROP FUNCTION IF EXISTS accounts_board_compact(text, text, text);
DROP FUNCTION IF EXISTS accounts_board_advance(text, text, text, timestamptz);
DROP FUNCTION IF EXISTS accounts_board_truncated();
DROP FUNCTION IF EXISTS accounts_board_stats_change();
DROP FUNCTION IF EXISTS accounts_board_record_change();
DROP FUNCTION IF EXISTS accounts_board_record_delta(
    text, text, text, double precision, timestamptz, timestamptz, integer);
DROP FUNCTION IF EXISTS accounts_board_streak_bucket(integer, timestamptz);
DROP FUNCTION IF EXISTS accounts_board_score_bucket(double precision);
DROP TABLE IF EXISTS accounts_board_anchor;
DROP TABLE IF EXISTS accounts_board_count;
"""


DAILY = r"""
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

DAILY_REVERSE = r"""
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
    schema_editor.execute(BOARDS, None)
    schema_editor.execute(_anchors(), None)
    schema_editor.execute(DAILY, None)


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(DAILY_REVERSE, None)
    schema_editor.execute(BOARDS_REVERSE, None)


class Migration(migrations.Migration):
    replaces = [
        ("accounts", "0006_board_counts"),
        ("accounts", "0014_daily_counts"),
    ]

    dependencies = [
        ("accounts", "0001_schema"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]

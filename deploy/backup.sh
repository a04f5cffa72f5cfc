#!/bin/sh
# The compose file's `backup` service (docs/DEPLOYMENT.md, "Backups"): PostgreSQL's own tools,
# no manage.py. Runs in the PostgreSQL image (pg_dump and pg_restore of the server's version).
#
#   demineur-backup loop           a dump now, then one every BACKUP_INTERVAL_SECONDS (86400)
#   demineur-backup once           one dump; prints its path
#   demineur-backup list           the dumps kept, oldest first
#   demineur-backup restore FILE [DB]
#                                  FILE into the database DB (default PGDATABASE) in one
#                                  transaction (--clean --if-exists: what the dump holds is
#                                  replaced); then check it with `manage.py verify_games`
#   demineur-backup check          the health check: a dump newer than two intervals
#
# A dump is `pg_dump -Fc`: one consistent snapshot of the database (a repeatable-read
# transaction) while the service runs. It is written beside its final name, read back whole
# with `pg_restore --list`, then renamed: a listed dump is never a partial one. Dumps older
# than BACKUP_KEEP_DAYS (7) days are deleted after each new one. The `backups` volume is on
# the same machine as the database: copy the dumps off it (docs/DEPLOYMENT.md).
set -eu

: "${PGHOST:=db}"
: "${PGUSER:=demineur}"
: "${PGDATABASE:=demineur}"
export PGHOST PGUSER PGDATABASE
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    PGPASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
else
    PGPASSWORD=${POSTGRES_PASSWORD:-${PGPASSWORD:-}}
fi
export PGPASSWORD
DIR=${BACKUP_DIR:-/backups}
KEEP_DAYS=${BACKUP_KEEP_DAYS:-7}
INTERVAL=${BACKUP_INTERVAL_SECONDS:-86400}

once() {
    mkdir -p "$DIR"
    name="$DIR/$PGDATABASE-$(date -u +%Y%m%dT%H%M%SZ).dump"
    pg_dump --format=custom --no-owner --file="$name.partial"
    pg_restore --list "$name.partial" > /dev/null
    mv "$name.partial" "$name"
    find "$DIR" -name "$PGDATABASE-*.dump" -mtime "+$((KEEP_DAYS - 1))" -delete
    echo "$name"
}

case "${1:-}" in
    once)
        once
        ;;
    loop)
        until pg_isready -q; do sleep 2; done
        while true; do
            once || echo "backup: the dump failed; next try in $INTERVAL s" >&2
            sleep "$INTERVAL"
        done
        ;;
    list)
        find "$DIR" -name "$PGDATABASE-*.dump" | sort
        ;;
    restore)
        file=${2:?restore FILE [DATABASE]}
        pg_restore --clean --if-exists --no-owner --single-transaction --exit-on-error \
            --dbname="${3:-$PGDATABASE}" "$file"
        echo "restored $file into ${3:-$PGDATABASE}"
        ;;
    check)
        minutes=$((2 * INTERVAL / 60 + 10))
        find "$DIR" -name "$PGDATABASE-*.dump" -mmin "-$minutes" | grep -q .
        ;;
    *)
        echo "usage: demineur-backup loop|once|list|restore FILE [DATABASE]|check" >&2
        exit 2
        ;;
esac

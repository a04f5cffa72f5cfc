#!/bin/sh
# The stand-in postgres:15's entrypoint (deploy/standin/Dockerfile): the official image's
# contract as docker-compose.yml uses it. First start on an empty PGDATA: initdb with
# POSTGRES_USER as superuser and POSTGRES_PASSWORD (or the file POSTGRES_PASSWORD_FILE
# names), password (scram) auth over TCP, POSTGRES_DB created. Then postgres as `postgres`.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
fi
if [ "${1:-}" != "postgres" ]; then
    exec "$@"
fi
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE) is required" >&2
        exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    chown postgres "$pwfile"
    as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    if [ "$POSTGRES_DB" != "postgres" ]; then
        as_postgres createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
    fi
    as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "stand-in postgres: cluster initialised in $PGDATA"
fi
shift
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" \
    -c listen_addresses='*' "$@"

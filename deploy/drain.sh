#!/bin/sh
# Drain before stopping (docker-compose.swarm.yml's entrypoint of `web` and `live`; the
# Kubernetes preStop sleep): runs the command given; on SIGTERM it keeps serving for
# DRAIN_SECONDS (6) and only then passes the SIGTERM on (gunicorn and uvicorn then finish
# what they hold). Swarm takes a stopping task out of its DNS as it signals it, and the proxy
# re-reads that DNS every 5 s (docs/Caddyfile, `dynamic a ... refresh 5s`): without the wait,
# a request the proxy sent to the old task in those seconds was refused (a 503 in 1,024
# during a rolling update, make swarm-test).
"$@" &
child=$!
trap 'sleep "${DRAIN_SECONDS:-6}"; kill -TERM "$child" 2>/dev/null' TERM INT
status=0
while :; do
    wait "$child"
    status=$?
    kill -0 "$child" 2>/dev/null || break
done
exit "$status"

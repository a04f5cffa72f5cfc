#!/bin/sh
# The stand-in redis:7's entrypoint (deploy/standin/Dockerfile): redis-server as `redis`,
# reachable from the other containers (the official image also runs it with protected mode
# off when no config file is given).
set -eu
if [ "${1:-}" = "redis-server" ]; then
    shift
    exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
fi
exec "$@"

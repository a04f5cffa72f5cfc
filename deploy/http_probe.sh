#!/bin/bash
# The app containers' health probe (Dockerfile HEALTHCHECK, docker-compose.yml web and live):
# one HTTP/1.0 GET of PATH on 127.0.0.1:PORT through bash's /dev/tcp; healthy on a 200. It
# starts no Python interpreter (a probe that did missed its 5 s timeout on a loaded machine,
# issue 43) and needs no curl. The Host is the first ALLOWED_HOSTS entry; X-Forwarded-Proto
# says https so that HTTPS=1 (SSL redirect) answers the probe instead of redirecting it.
#   http_probe.sh PATH [PORT]      PORT defaults to $PORT, then 8001
set -u
path=${1:-/healthz}
port=${2:-${PORT:-8001}}
host=${ALLOWED_HOSTS:-localhost}
host=${host%%,*}
host=${host#.}
exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
printf 'GET %s HTTP/1.0\r\nHost: %s\r\nX-Forwarded-Proto: https\r\nConnection: close\r\n\r\n' \
    "$path" "$host" >&3
IFS= read -r -t "${PROBE_READ_SECONDS:-9}" status <&3 || { echo "no answer on :$port$path"; exit 1; }
case $status in
    "HTTP/1."?" 200"*) exit 0 ;;
esac
echo "$status"
exit 1

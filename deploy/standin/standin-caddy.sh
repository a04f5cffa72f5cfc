#!/bin/sh
# The stand-in caddy:2's caddy (deploy/standin/Dockerfile), installed as /usr/local/bin/caddy
# ahead of Debian's /usr/bin/caddy on PATH, so the compose file's own entrypoint (`caddy run
# --config FILE ...`) runs it. Debian's Caddy 2.6.2 spells `reverse_proxy { request_buffers N }`
# (2.6.4) as `buffer_requests` + `max_buffer_size N`: FILE is run in that spelling (a copy in
# /tmp). Anything else runs as it is.
set -eu
if [ "${1:-}" = "run" ]; then
    out=""
    config=""
    shift
    for arg in "$@"; do
        if [ "$config" = "next" ]; then
            config="$arg"
            sed -E 's/^([[:space:]]*)request_buffers ([^[:space:]]+)$/\1buffer_requests\n\1max_buffer_size \2/' \
                "$arg" > /tmp/Caddyfile
            arg=/tmp/Caddyfile
        elif [ "$arg" = "--config" ]; then
            config="next"
        fi
        out="$out $arg"
    done
    # shellcheck disable=SC2086 # the compose file's arguments, without spaces
    exec /usr/bin/caddy run $out
fi
exec /usr/bin/caddy "$@"

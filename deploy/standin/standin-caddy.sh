#!/bin/sh
# The stand-in caddy:2's caddy (deploy/standin/Dockerfile), installed as /usr/local/bin/caddy
# ahead of Debian's /usr/bin/caddy on PATH, so the compose file's own entrypoint (`caddy run
# --config FILE ...`) runs it. Debian's Caddy 2.6.2 spells `reverse_proxy { request_buffers N
# response_buffers M }` (2.6.4) as `buffer_requests`, `buffer_responses` and one
# `max_buffer_size` for both, the larger: FILE is run in that spelling (a copy in /tmp), as
# `make serve-prod` writes it (deploy/serve_prod.caddyfile_for). Anything else runs as it is.
set -eu
# Each run of *_buffers lines becomes the old flags and one shared size.
OLD_BUFFERS='
/^[ \t]*(request|response)_buffers [0-9]+$/ {
    indent = $0
    sub(/[^ \t].*$/, "", indent)
    if ($1 == "request_buffers") requests = 1
    else responses = 1
    if ($2 + 0 > size + 0) size = $2
    pending = 1
    next
}
pending { flush() }
{ print }
END { if (pending) flush() }
function flush() {
    if (requests) print indent "buffer_requests"
    if (responses) print indent "buffer_responses"
    print indent "max_buffer_size " size
    requests = responses = pending = 0
    size = ""
}'
if [ "${1:-}" = "run" ]; then
    out=""
    config=""
    shift
    for arg in "$@"; do
        if [ "$config" = "next" ]; then
            config="$arg"
            awk "$OLD_BUFFERS" "$arg" > /tmp/Caddyfile
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

#!/usr/bin/env bash
# `make test-under-load`: the suite's check of soundness under load (docs/TESTING.md, Under
# load). Two busy loops hog two cores while `make test` runs RUNS times in a row (3 by
# default), alternating SQLite (nothing set) and, when DATABASE_URL and REDIS_URL are set,
# PostgreSQL + Redis. Each run's log goes to .test-output/under-load-N.log; a line per run
# gives the configuration, the load average before and after, the wall time and pytest's
# summary. Fails if any run fails.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
mkdir -p .test-output
yes > /dev/null & first=$!
yes > /dev/null & second=$!
trap 'kill $first $second 2>/dev/null' EXIT
failed=0
for run in $(seq 1 "$runs"); do
  if [ $((run % 2)) -eq 0 ] && [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-}" ]; then
    label="PostgreSQL + Redis"; unset_env=()
  else
    label="SQLite + in-memory layer"; unset_env=(-u DATABASE_URL -u REDIS_URL)
  fi
  log=.test-output/under-load-$run.log
  before=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s)
  env "${unset_env[@]}" make test > "$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || failed=1
  echo "run $run/$runs ($label): exit $rc, load $before -> $(cut -d' ' -f1 /proc/loadavg)," \
    "$(( $(date +%s) - start )) s wall: $(grep -E '[0-9]+ (passed|failed)' "$log" | tail -n 1)"
done
exit $failed

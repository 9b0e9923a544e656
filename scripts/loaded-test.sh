#!/usr/bin/env bash
# `npm test` on a busy machine: two CPU-bound loops run beside it (on a 2-core machine they take
# a whole core's worth each), and the suite runs N times in a row (default 3). Prints each run's
# closing line (`N passed, M failed`) and exits non-zero if any run failed.
#   bash scripts/loaded-test.sh [runs] [-- extra vitest arguments]
# Each run's full output is kept in $LOADED_TEST_LOGS (default: a temp directory), named run-<i>.log.
set -u

runs=3
if [[ $# -gt 0 && $1 != -- ]]; then
  runs=$1
  shift
fi
[[ ${1:-} == -- ]] && shift
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
  echo "loaded-test: runs must be a positive integer, got '$runs'" >&2
  exit 2
fi

cd "$(dirname "$0")/.."
logs=${LOADED_TEST_LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/loaded-test.XXXXXX")}
mkdir -p "$logs"

loops=()
stop_loops() {
  # Only the loops this script started, by their ids.
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null; done
  wait "${loops[@]}" 2>/dev/null
  loops=()
}
trap stop_loops EXIT
trap 'exit 130' INT TERM

for _ in 1 2; do
  (while :; do :; done) &
  loops+=("$!")
done
echo "loaded-test: busy loops ${loops[*]}; $runs run(s); logs in $logs"

failed=0
for ((i = 1; i <= runs; i++)); do
  log="$logs/run-$i.log"
  start=$SECONDS
  npm test -- "$@" >"$log" 2>&1
  status=$?
  closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  echo "run $i: ${closing:-no closing line (exit $status)} in $((SECONDS - start)) s"
  [[ $status -ne 0 ]] && failed=$((failed + 1))
done

echo "loaded-test: $((runs - failed)) of $runs run(s) green"
[[ $failed -eq 0 ]]

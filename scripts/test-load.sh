#!/usr/bin/env bash
# scripts/test-load.sh [N] [make args...]: run make test with N (default 4)
# CPU-bound processes beside it, as a busy laptop or a shared CI machine
# would. A test that depends on timing fails here; the suite must not
# (docs/testing.md). The burners are stopped on every way out (the suite's
# end, a failure, Ctrl-C, SIGTERM, SIGHUP), and the last line says PASS or
# FAIL with the suite's exit status and wall time.
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-4}
shift || true
case $n in '' | *[!0-9]*) echo "test-load: N must be a number, not '$n'" >&2; exit 2 ;; esac
pids=()
mk=
cleanup() {
	# A signal while the suite runs: stop it too (make's children first).
	if [ -n "$mk" ]; then
		pkill -TERM -P "$mk" 2>/dev/null || true
		kill "$mk" 2>/dev/null || true
		wait "$mk" 2>/dev/null || true
		mk=
	fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
trap cleanup EXIT
# A signal exits through the EXIT trap, with the signal's conventional status.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
for _ in $(seq "$n"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "test-load: $n CPU-bound processes running beside the suite (pids ${pids[*]})"
start=$(date +%s)
# In the background and waited for, so that a signal is handled at once.
make test "$@" &
mk=$!
wait "$mk"
rc=$?
mk=
took=$(($(date +%s) - start))
cleanup
if [ "$rc" -eq 0 ]; then
	echo "test-load: PASS — make test passed beside $n CPU-bound processes in ${took}s"
else
	echo "test-load: FAIL — make test exited $rc beside $n CPU-bound processes after ${took}s"
fi
exit "$rc"

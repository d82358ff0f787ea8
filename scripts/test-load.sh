#!/usr/bin/env bash
# scripts/test-load.sh [N]: run make test with N (default 4) CPU-bound
# processes beside it, as a busy laptop or a shared CI machine would. A test
# that depends on timing fails here; the suite must not (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq "$n"); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "test-load: $n CPU-bound processes running beside the suite (pids ${pids[*]})"
make test

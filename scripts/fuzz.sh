#!/usr/bin/env bash
# Runs every Fuzz target of the module for the given time each.
set -euo pipefail
t=${1:-20s}
for dir in $(go list -f '{{.Dir}}' ./...); do
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "== $f in $dir ($t)"
    (cd "$dir" && go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" .)
  done
done

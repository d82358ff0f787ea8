#!/bin/sh
# build-exec-helper.sh OUT builds the sandbox's exec helper, the C program
# cmd/oceancode-sandbox-exec/main.c, to OUT: static (no dynamic loader to
# start per sandboxed command), warnings as errors. make build calls it, and
# so do the Go tests that run it (internal/exechelper), so there is one way
# to build it. CC picks the compiler (default cc).
set -eu
out=$1
src=$(cd "$(dirname "$0")/.." && pwd)/cmd/oceancode-sandbox-exec/main.c
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "build-exec-helper: no C compiler ($cc) to build the sandbox's exec helper: run 'sudo apt-get install gcc libc6-dev' (make build installs them when run as root)." >&2
	exit 1
fi
exec "$cc" -O2 -std=gnu11 -Wall -Wextra -Werror -static -s -o "$out" "$src"

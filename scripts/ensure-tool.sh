#!/bin/sh
# ensure-tool.sh COMMAND PACKAGE... makes sure COMMAND is on PATH. As root on
# a system with apt-get it installs the Debian PACKAGEs; otherwise it says
# the one command to run and exits 1. (install-bwrap.sh: bubblewrap for the
# sandbox tests; make race: gcc, for cgo; make test and race: tmux, for the
# pager's end-to-end tests in a real terminal.)
set -eu
cmd=$1
shift

if command -v "$cmd" >/dev/null 2>&1; then
	exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "ensure-tool: $cmd is missing; installing $* with apt-get" >&2
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
	command -v "$cmd" >/dev/null 2>&1 && exit 0
	echo "ensure-tool: apt-get ran but $cmd is still not on PATH." >&2
	exit 1
fi

echo "$cmd is missing: run 'sudo apt-get install $*' (or your distribution's package) and retry." >&2
exit 1

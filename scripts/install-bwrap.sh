#!/bin/sh
# install-bwrap.sh makes sure bubblewrap (bwrap) is installed, for the kernel
# sandbox tests and demos. As root on a system with apt-get it installs the
# Debian package; otherwise it says the one command to run and exits 1.
set -eu

if command -v bwrap >/dev/null 2>&1; then
	exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "install-bwrap: bubblewrap is missing; installing it with apt-get" >&2
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
	command -v bwrap >/dev/null 2>&1 && exit 0
	echo "install-bwrap: apt-get ran but bwrap is still not on PATH." >&2
	exit 1
fi

echo "bubblewrap is missing: run 'sudo apt-get install bubblewrap' (or your distribution's bubblewrap package) and retry." >&2
exit 1

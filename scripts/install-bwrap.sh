#!/bin/sh
# install-bwrap.sh makes sure bubblewrap (bwrap) is installed, for the kernel
# sandbox tests and demos. As root on a system with apt-get it installs the
# Debian package; otherwise it says the one command to run and exits 1.
exec "$(dirname "$0")/ensure-tool.sh" bwrap bubblewrap

#!/usr/bin/env bash
# scripts/test-with-policy.sh [GO TEST ARGS...]: run the test suite on a
# machine as our users' laptops are — with a restrictive signed policy
# deployed at /etc/oceancode — and with a poisoned, read-only HOME. A test
# that reads the host's managed dir, the real user's config or state, or
# writes into the real home fails. Everything happens inside a private mount
# namespace (unshare -m): the policy is mounted over /etc only there, and
# nothing persists on the machine. Needs root (CI runs as root) and
# unshare(1). Default arguments: -count=1 -timeout 30m ./... (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

die() { echo "test-with-policy: $*" >&2; exit 1; }

if [ "${1:-}" != "--inside" ]; then
	[ "$(id -u)" = 0 ] || die "needs root for a private mount namespace (CI runs as root); try: sudo $0 $*"
	command -v unshare >/dev/null || die "unshare is missing: apt-get install util-linux"
	command -v findmnt >/dev/null || die "findmnt is missing: apt-get install util-linux"
	work=$(mktemp -d "${TMPDIR:-/tmp}/oceancode-policy-run.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	export CGO_ENABLED=0

	# Production builds (no test tag): they read the real /etc/oceancode,
	# which is how the policy is proven to be in force below.
	go build -o "$work/bin/oceanadmin" ./cmd/oceanadmin
	go build -o "$work/bin/oceancode" ./cmd/oceancode

	# The policy: a trust anchor, signed requirements that lock out
	# bypassPermissions, narrow the modes, pin the sandbox and a model that
	# does not exist, allow no MCP server and deny every tool; a managed
	# config and a drop-in that deny more.
	etc="$work/etc-oceancode"
	mkdir -p "$etc/managed.d" "$work/admin"
	(
		cd "$work/admin"
		"$work/bin/oceanadmin" keygen --unencrypted -o admin.key --comment "test-with-policy tripwire" >/dev/null
		cat >policy.json <<'JSON'
{
  "schema_version": 1,
  "org": "test-with-policy tripwire",
  "on_expiry": "block",
  "disable_bypass_permissions": true,
  "allowed_permission_modes": ["default", "plan"],
  "min_sandbox_mode": "read-only",
  "mcp": { "allowed_servers": [] },
  "pins": { "sandbox.mode": "read-only", "sandbox.network": "off", "model": "tripwire/pinned-by-the-host-policy" },
  "rules": { "deny": ["Bash(*)", "Read(*)", "Edit(*)", "Write(*)"] }
}
JSON
		"$work/bin/oceanadmin" sign -k admin.key policy.json -o "$etc/requirements.json" >/dev/null
		cp admin.pub "$etc/trusted_keys"
	)
	cat >"$etc/managed.json" <<'JSON'
{
  "permission_mode": "plan",
  "permission": { "bash": { "*": "deny" }, "edit": "deny", "read": "deny" },
  "sandbox": { "mode": "read-only", "network": "off" }
}
JSON
	echo '{ "permission": { "webfetch": "deny" } }' >"$etc/managed.d/50-tripwire.json"
	chown -R 0:0 "$etc"
	chmod 0755 "$etc" "$etc/managed.d"
	chmod 0644 "$etc"/*.json "$etc/trusted_keys" "$etc"/managed.d/*.json

	# The poisoned home: a user config that is not JSON and state that is
	# garbage, so a test that reads them fails; mounted read-only inside.
	home="$work/home"
	mkdir -p "$home/.config/oceancode" "$home/.local/state/oceancode" "$home/.cache" "$home/.local/share"
	for f in "$home/.config/oceancode/oceancode.json" "$home/.local/state/oceancode/requirements-state.json" \
		"$home/.local/state/oceancode/sessions.db"; do
		echo "poisoned by scripts/test-with-policy.sh: a test read the real user's files" >"$f"
	done

	# The go command keeps its real caches and settings (they are the
	# toolchain's, not the tests'), named explicitly because HOME moves.
	gocache=$(go env GOCACHE) gomodcache=$(go env GOMODCACHE) gopath=$(go env GOPATH) goenv=$(go env GOENV)
	export GOCACHE="$gocache" GOMODCACHE="$gomodcache" GOPATH="$gopath" GOENV="$goenv"
	unshare -m --propagation private "$0" --inside "$work" "$@"
	exit $?
fi

# Inside the private mount namespace.
work=$2
shift 2
[ $# -gt 0 ] || set -- -count=1 -timeout 30m ./...

# Put the policy at /etc/oceancode. Where the machine has one, a bind
# mount covers it; where it has none, an overlay over /etc (its upper layer
# on a tmpfs) adds the directory without creating it on the host, and the
# mounts below /etc (a container's resolv.conf, hosts) are mounted again.
if [ -d /etc/oceancode ]; then
	mount --bind "$work/etc-oceancode" /etc/oceancode
else
	mkdir -p "$work/ovl" "$work/etc-orig"
	mount -t tmpfs tmpfs "$work/ovl"
	mkdir -p "$work/ovl/upper" "$work/ovl/work"
	mount --rbind /etc "$work/etc-orig"
	submounts=$(findmnt -rn -o TARGET | awk '$0 ~ "^/etc/"' || true)
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$work/ovl/upper,workdir=$work/ovl/work" /etc
	for m in $submounts; do
		mount --bind "$work/etc-orig${m#/etc}" "$m"
	done
	mkdir /etc/oceancode
	mount --bind "$work/etc-oceancode" /etc/oceancode
fi
mount -o remount,bind,ro /etc/oceancode

home="$work/home"
mount --bind "$home" "$home"
mount -o remount,bind,ro "$home"

# The environment of a user with that home; nothing of the caller's
# oceancode configuration.
for k in $(compgen -e); do
	case $k in OC_* | XDG_*) unset "$k" ;; esac
done
export HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$home/.local/state" \
	XDG_CACHE_HOME="$home/.cache" XDG_DATA_HOME="$home/.local/share"

# Prove the tripwire is armed before trusting a green run: a production
# build sees the verified policy (even when told OC_TEST_MANAGED_DIR),
# denies under bypassPermissions, and the home cannot be written.
probe=$(mktemp -d)
mkdir -p "$probe/.oceancode" "$probe/home"
oc() { (cd "$probe" && HOME="$probe/home" XDG_CONFIG_HOME="$probe/home/.config" XDG_STATE_HOME="$probe/home/.local/state" \
	"$work/bin/oceancode" "$@" 2>&1) || true; }
# A production build ignores the test builds' managed-dir variable.
mkdir "$probe/empty"
out=$(OC_TEST_MANAGED_DIR="$probe/empty" oc inspect --layers)
for want in "Requirements: verified" "/etc/oceancode/managed.json" "/etc/oceancode/managed.d/50-tripwire.json"; do
	case $out in *"$want"*) ;; *) die "the policy is not in force (inspect lacks \"$want\"):
$out" ;; esac
done
out=$(oc permission check --mode bypassPermissions bash ls)
case $out in *DENY*"Bash(*) deny"*) ;; *) die "the policy is not in force: permission check under bypassPermissions did not deny bash:
$out" ;; esac
if touch "$home/.write-probe" 2>/dev/null; then
	die "the poisoned home $home is writable"
fi
rm -rf "$probe"
echo "test-with-policy: policy at /etc/oceancode (verified, bypassPermissions locked out, every tool denied), HOME=$home read-only; go test $*"
cd "$repo"
go test "$@"

package sandbox

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// MacEnv is what SBPLProfile needs to know about the Mac.
type MacEnv struct {
	// Home is the user's home directory.
	Home string
	// TempDirs are the writable temp directories (/private/tmp,
	// /private/var/folders/… from TMPDIR), already resolved.
	TempDirs []string
}

// SBPLProfile returns the sandbox-exec (Seatbelt) profile confining a
// command under p on macOS. It is plain text generation, tested on every
// platform; the runner that uses it is built only on darwin. Paths must be
// resolved (macOS's /tmp is /private/tmp) by the caller.
func SBPLProfile(p Policy, env MacEnv) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	if !p.Confined() {
		return "", ErrNotConfined
	}
	ws := filepath.Clean(p.Workspace)
	home := filepath.Clean(env.Home)
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }

	w(";; oceancode sandbox profile: mode %s, network %s\n", p.EffectiveMode(), p.EffectiveNetwork())
	w("(version 1)\n(deny default)\n")
	w("(import \"system.sb\")\n")
	w("(allow process-fork)\n(allow process-exec)\n")
	w("(allow signal (target same-sandbox))\n")
	w("(allow process-info* (target same-sandbox))\n")
	w("(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n(allow iokit-open)\n")
	w("(allow pseudo-tty)\n(allow file-ioctl (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))\n")

	// Reads: everything, except credential stores and deny roots.
	w("\n;; reads\n(allow file-read*)\n")
	var denyRead []string
	for _, c := range credentialStores {
		denyRead = append(denyRead, filepath.Join(home, c))
	}
	denyRead = append(denyRead, filepath.Join(home, "Library/Keychains"), "/etc/master.passwd", "/private/etc/master.passwd")
	for _, d := range p.DenyRead {
		denyRead = append(denyRead, expand(d, home, ws))
	}
	var deny []string
	for _, d := range p.Deny {
		deny = append(deny, expand(d, home, ws))
	}
	w("(deny file-read*\n")
	for _, d := range sortedUnique(append(append([]string{}, denyRead...), deny...)) {
		w("    (subpath %s)\n", sbplString(d))
	}
	w(")\n")

	// Writes: temp, caches, /dev basics, and the workspace in workspace-write.
	w("\n;; writes\n(allow file-write*\n")
	w("    (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\") (literal \"/dev/dtracehelper\")\n")
	var writable []string
	writable = append(writable, env.TempDirs...)
	for _, c := range packageCaches {
		writable = append(writable, filepath.Join(home, c))
	}
	writable = append(writable, filepath.Join(home, "Library/Caches"))
	if p.EffectiveMode() == ModeWorkspaceWrite {
		writable = append(writable, ws)
		for _, x := range p.Writable {
			writable = append(writable, expand(x, home, ws))
		}
	}
	for _, x := range sortedUnique(writable) {
		w("    (subpath %s)\n", sbplString(x))
	}
	w(")\n")

	// Protected paths inside the writable roots, deny roots: no writes
	// (a later deny wins over an earlier allow in SBPL).
	w("\n;; protected paths and deny roots\n(deny file-write*\n")
	var prot []string
	if p.EffectiveMode() == ModeWorkspaceWrite {
		roots := []string{ws}
		for _, x := range p.Writable {
			roots = append(roots, expand(x, home, ws))
		}
		for _, r := range roots {
			for _, pp := range protectedPaths {
				prot = append(prot, filepath.Join(r, pp.rel))
			}
		}
	}
	prot = append(prot, deny...)
	for _, x := range sortedUnique(prot) {
		w("    (subpath %s)\n", sbplString(x))
	}
	// Renaming an ancestor of a protected path would move it out of reach.
	for _, x := range sortedUnique(ancestorsWithin(prot, ws)) {
		w("    (literal %s)\n", sbplString(x))
	}
	w(")\n")

	w("\n;; network\n")
	switch p.EffectiveNetwork() {
	case NetworkOff:
		w("(deny network*)\n(allow network* (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\")))\n")
	case NetworkAllowlist:
		w(";; allowlist not enforced: egress open\n(allow network*)\n")
	default:
		w("(allow network*)\n")
	}
	return b.String(), nil
}

// ancestorsWithin lists the directories strictly between root and each
// path, plus the paths' parents when those are inside root.
func ancestorsWithin(paths []string, root string) []string {
	var out []string
	for _, p := range paths {
		for d := filepath.Dir(p); under(d, root) && d != root; d = filepath.Dir(d) {
			out = append(out, d)
		}
	}
	return out
}

func sortedUnique(in []string) []string {
	out := dedupe(in)
	sort.Strings(out)
	return out
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

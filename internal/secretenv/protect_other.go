//go:build !linux

package secretenv

// clearBlock cannot reach the kernel's copy of the environment here; the
// secret-named variables are out of os.Environ, so children do not
// inherit them.
func clearBlock() error { return nil }

// nonDumpable has no portable equivalent.
func nonDumpable() error { return nil }

//go:build !linux

package secretenv

// rewriteBlock cannot reach the kernel's copy of the environment here; the
// variables are out of os.Environ, so children do not inherit them.
func rewriteBlock(func(string) bool) error { return nil }

// nonDumpable has no portable equivalent.
func nonDumpable() error { return nil }

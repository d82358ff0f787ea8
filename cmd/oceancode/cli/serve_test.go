package cli

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestServerToken: the token file is made once (0600, atomically) and
// reused; a file others could read or replace is refused, never used.
func TestServerToken(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "oceancode")
	path := filepath.Join(dir, "server.token")
	tok, err := serverToken(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v %v, want mode 0600", fi, err)
	}
	if d, _ := os.Stat(dir); d.Mode().Perm() != 0o700 {
		t.Errorf("state dir made %v, want 0700", d.Mode().Perm())
	}
	if again, err := serverToken(path); err != nil || again != tok {
		t.Errorf("second read %q %v, want the same token", again, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".server.token-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  string
	}{
		{"world-readable", func(t *testing.T, p string) { writeTokenFile(t, p, tok, 0o644) }, "mode 0644, want 0600"},
		{"group-readable", func(t *testing.T, p string) { writeTokenFile(t, p, tok, 0o640) }, "mode 0640, want 0600"},
		{"symlink", func(t *testing.T, p string) {
			real := p + ".real"
			writeTokenFile(t, real, tok, 0o600)
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"directory", func(t *testing.T, p string) { os.Mkdir(p, 0o700) }, "not a regular file"},
		{"someone else's", func(t *testing.T, p string) {
			writeTokenFile(t, p, tok, 0o600)
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the file to another user")
			}
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 65534"},
		{"not a token", func(t *testing.T, p string) { writeTokenFile(t, p, "short", 0o600) }, "not a token"},
		{"empty", func(t *testing.T, p string) { writeTokenFile(t, p, "", 0o600) }, "not a token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "server.token")
			c.setup(t, p)
			_, err := serverToken(p)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "server token "+p+": ") {
				t.Errorf("serverToken: %v, want an error saying %q", err, c.want)
			}
		})
	}
	if _, err := serverToken("relative/server.token"); err == nil {
		t.Error("a relative token path was accepted")
	}
}

// TestServerTokenConcurrentStarts: servers starting at once agree on one
// token (the file is linked into place exclusively).
func TestServerTokenConcurrentStarts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "server.token")
	const n = 8
	toks := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			toks[i], errs[i] = serverToken(path)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || toks[i] != toks[0] {
			t.Errorf("start %d: %q %v, want %q", i, toks[i], errs[i], toks[0])
		}
	}
}

func writeTokenFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestLoopback(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{"127.0.0.1": true, "localhost": true, "::1": true, "127.1.2.3": true,
		"0.0.0.0": false, "": false, "192.168.1.2": false, "example.com": false, "::": false} {
		if got := loopback(host); got != want {
			t.Errorf("loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestInterfaceHosts: a non-loopback bind accepts the machine's addresses
// with the port as Host, never a name.
func TestInterfaceHosts(t *testing.T) {
	t.Parallel()
	all := interfaceHosts(&net.TCPAddr{IP: net.IPv4zero, Port: 4096})
	if !slices.Contains(all, "127.0.0.1:4096") {
		t.Errorf("0.0.0.0:4096 accepts %v, want the interfaces' addresses (127.0.0.1:4096 among them)", all)
	}
	for _, h := range all {
		if host, _, _ := net.SplitHostPort(h); net.ParseIP(host) == nil {
			t.Errorf("accepted Host %q is not an address", h)
		}
	}
	if one := interfaceHosts(&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 80}); !slices.Equal(one, []string{"192.0.2.7:80"}) {
		t.Errorf("a bind to one address accepts %v", one)
	}
}

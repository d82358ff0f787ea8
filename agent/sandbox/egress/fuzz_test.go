package egress

import (
	"strings"
	"testing"
)

// FuzzMatch checks the allow-list matcher on arbitrary entries and
// targets: parsing never panics, canonical forms are stable, and a match
// is always explainable (same port rules, same host or a proper
// subdomain of a wildcard, same IP).
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"example.com", "example.com:443"},
		{"*.example.com", "a.example.com:80"},
		{"*.example.com:8080", "example.com:8080"},
		{"203.0.113.7", "[::ffff:203.0.113.7]:443"},
		{"[2001:db8::1]:443", "[2001:db8::1]:443"},
		{"localhost", "127.0.0.1:443"},
		{"EXAMPLE.com.", "example.COM:80"},
		{"*.com", "a.com:443"},
		{"127.1", "127.1:80"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, entry, target string) {
		r, err := ParseRule(entry)
		if err != nil {
			return
		}
		r2, err := ParseRule(r.String())
		if err != nil || r2 != r {
			t.Fatalf("canonical form %q of %q does not round-trip: %v %v", r.String(), entry, r2, err)
		}
		tg, err := ParseTarget(target, 0)
		if err != nil {
			return
		}
		if tg2, err := ParseTarget(tg.String(), 0); err != nil || tg2 != tg {
			t.Fatalf("target %q does not round-trip: %v %v", tg.String(), tg2, err)
		}
		m, ok := AllowList{r}.Match(tg)
		if !ok {
			return
		}
		if m != r {
			t.Fatalf("matched %v, not the only rule %v", m, r)
		}
		if !r.portOK(tg.Port) {
			t.Fatalf("%v matched %v on a port it does not allow", r, tg)
		}
		switch {
		case r.IP.IsValid():
			if tg.IP != r.IP {
				t.Fatalf("IP rule %v matched %v", r, tg)
			}
		case r.Wildcard:
			if tg.Name == r.Host || !strings.HasSuffix(tg.Name, "."+r.Host) || tg.IP.IsValid() {
				t.Fatalf("wildcard %v matched %v", r, tg)
			}
		default:
			if tg.Name != r.Host || tg.IP.IsValid() {
				t.Fatalf("name rule %v matched %v", r, tg)
			}
		}
	})
}

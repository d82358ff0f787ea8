package egress

import (
	"errors"
	"net/netip"
	"testing"
)

func TestParseRule(t *testing.T) {
	cases := []struct {
		in, canon string // canon "" = refused
	}{
		{"example.com", "example.com"},
		{"Example.COM.", "example.com"},
		{"example.com:8443", "example.com:8443"},
		{"*.example.com", "*.example.com"},
		{"*.Example.com:8080", "*.example.com:8080"},
		{"registry-1.docker.io", "registry-1.docker.io"},
		{"_acme.example.com", "_acme.example.com"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"localhost", "localhost"},
		{"203.0.113.7", "203.0.113.7"},
		{"203.0.113.7:443", "203.0.113.7:443"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8::1", "[2001:db8::1]"},
		{"[2001:db8::1]", "[2001:db8::1]"},
		{"[2001:DB8::1]:8443", "[2001:db8::1]:8443"},
		{"", ""},
		{"*", ""},
		{"*:443", ""},
		{"*.com", ""},
		{"*example.com", ""},
		{"foo.*.com", ""},
		{"*.*.example.com", ""},
		{"https://example.com", ""},
		{"example.com/path", ""},
		{"user@example.com", ""},
		{"example.com:0", ""},
		{"example.com:65536", ""},
		{"example.com:http", ""},
		{"example.com:", ""},
		{":443", ""},
		{"10.0.0.0/8", ""},
		{"127.1", ""},
		{"2130706433", ""},
		{"0x7f.0x1", ""},
		{"exa mple.com", ""},
		{"-bad.example.com", ""},
		{"bad-.example.com", ""},
		{"a..b", ""},
		{"bücher.example", ""},
		{"[example.com]:443", ""},
		{"[2001:db8::1]443", ""},
		{"fe80::1%eth0", ""},
		{"1.2.3.4.5", ""},
	}
	for _, c := range cases {
		r, err := ParseRule(c.in)
		switch {
		case c.canon == "" && err == nil:
			t.Errorf("ParseRule(%q) = %v, want an error", c.in, r)
		case c.canon == "":
			if !errors.Is(err, ErrBadRule) {
				t.Errorf("ParseRule(%q) error %v does not wrap ErrBadRule", c.in, err)
			}
		case err != nil:
			t.Errorf("ParseRule(%q): %v", c.in, err)
		case r.String() != c.canon:
			t.Errorf("ParseRule(%q) = %q, want %q", c.in, r.String(), c.canon)
		default:
			// The canonical form parses to the same rule.
			if r2, err := ParseRule(r.String()); err != nil || r2 != r {
				t.Errorf("ParseRule(%q) round trip = %v, %v", r.String(), r2, err)
			}
		}
	}
}

func TestMatch(t *testing.T) {
	list, err := ParseAllowList([]string{
		"example.com", "*.github.com", "api.example.org:8443", "*.internal.test:8080",
		"203.0.113.7", "[2001:db8::1]:443", "127.0.0.2:9000", "localhost",
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		target string
		rule   string // "" = refused
	}{
		{"example.com:443", "example.com"},
		{"EXAMPLE.com.:80", "example.com"},
		{"example.com:8443", ""},
		{"www.example.com:443", ""},
		{"notexample.com:443", ""},
		{"example.com.evil.test:443", ""},
		{"github.com:443", ""},
		{"api.github.com:443", "*.github.com"},
		{"a.b.github.com:80", "*.github.com"},
		{"evilgithub.com:443", ""},
		{"github.com.evil.test:443", ""},
		{"api.example.org:8443", "api.example.org:8443"},
		{"api.example.org:443", ""},
		{"x.internal.test:8080", "*.internal.test:8080"},
		{"x.internal.test:443", ""},
		{"203.0.113.7:443", "203.0.113.7"},
		{"203.0.113.7:80", "203.0.113.7"},
		{"203.0.113.7:22", ""},
		{"[::ffff:203.0.113.7]:443", "203.0.113.7"},
		{"[2001:db8::1]:443", "[2001:db8::1]:443"},
		{"[2001:db8::1]:80", ""},
		{"127.0.0.2:9000", "127.0.0.2:9000"},
		{"127.0.0.1:9000", ""},
		{"localhost:443", "localhost"}, // matched by name; the address check refuses it later
		{"127.0.0.1:443", ""},          // a name rule never allows an IP literal
		{"203.0.113.7.nip.io:443", ""}, // nor an IP rule a name
	}
	for _, c := range cases {
		tg, err := ParseTarget(c.target, 0)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", c.target, err)
			continue
		}
		r, ok := list.Match(tg)
		got := ""
		if ok {
			got = r.String()
		}
		if got != c.rule {
			t.Errorf("Match(%q) = %q, want %q", c.target, got, c.rule)
		}
	}
}

func TestParseTarget(t *testing.T) {
	cases := []struct {
		in   string
		def  uint16
		want string // "" = error
	}{
		{"example.com:443", 0, "example.com:443"},
		{"example.com", 0, ""},
		{"example.com", 80, "example.com:80"},
		{"[::1]:8080", 0, "[::1]:8080"},
		{"[::ffff:127.0.0.1]:80", 0, "127.0.0.1:80"},
		{"*.example.com:443", 0, ""},
		{"127.1:80", 0, ""},
		{"example.com:0", 0, ""},
		{"example.com/x:443", 0, ""},
		{"[fe80::1%25eth0]:80", 0, ""},
		{"", 80, ""},
	}
	for _, c := range cases {
		tg, err := ParseTarget(c.in, c.def)
		got := ""
		if err == nil {
			got = tg.String()
		}
		if got != c.want {
			t.Errorf("ParseTarget(%q, %d) = %q (%v), want %q", c.in, c.def, got, err, c.want)
		}
	}
}

func TestAddrClass(t *testing.T) {
	local := netip.MustParseAddr("192.0.2.10")
	isLocal := func(a netip.Addr) bool { return a == local }
	cases := []struct {
		addr, class string
	}{
		{"127.0.0.1", RefusedLoopback},
		{"127.255.0.9", RefusedLoopback},
		{"::1", RefusedLoopback},
		{"::ffff:127.0.0.1", RefusedLoopback},
		{"169.254.169.254", RefusedMetadata},
		{"::ffff:169.254.169.254", RefusedMetadata},
		{"fd00:ec2::254", RefusedMetadata},
		{"100.100.100.200", RefusedMetadata},
		{"168.63.129.16", RefusedMetadata},
		{"169.254.1.1", RefusedLinkLocal},
		{"169.254.170.2", RefusedLinkLocal},
		{"fe80::1", RefusedLinkLocal},
		{"0.0.0.0", RefusedUnspecified},
		{"0.1.2.3", RefusedUnspecified},
		{"::", RefusedUnspecified},
		{"::7f00:1", RefusedUnspecified},
		{"224.0.0.1", RefusedLinkLocal},
		{"224.1.1.1", RefusedMulticast},
		{"239.255.255.250", RefusedMulticast},
		{"ff02::1", RefusedLinkLocal},
		{"ff05::2", RefusedMulticast},
		{"255.255.255.255", RefusedMulticast},
		{"192.0.2.10", RefusedLocal},
		{"10.1.2.3", ""},
		{"172.16.0.1", ""},
		{"192.168.1.1", ""},
		{"100.64.0.1", ""},
		{"fd12:3456::1", ""},
		{"203.0.113.7", ""},
		{"2001:db8::1", ""},
		{"140.82.112.3", ""},
	}
	for _, c := range cases {
		if got := AddrClass(netip.MustParseAddr(c.addr), isLocal); got != c.class {
			t.Errorf("AddrClass(%s) = %q, want %q", c.addr, got, c.class)
		}
	}
	if got := AddrClass(netip.Addr{}, nil); got != RefusedUnspecified {
		t.Errorf("AddrClass(invalid) = %q", got)
	}
}

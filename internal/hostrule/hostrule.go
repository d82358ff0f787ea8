// Package hostrule parses the entries of sandbox.allow_hosts — host,
// host:port, *.domain, IP literals — for the egress proxy that enforces them
// and for policycheck, which refuses a bad entry before a session starts, so
// the two can never disagree. Standard library only.
package hostrule

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Entry is one parsed allow_hosts entry.
type Entry struct {
	// Host is the lower-case name without a trailing dot. For a wildcard
	// entry it is the suffix after "*." ("example.com" for
	// "*.example.com"). Empty for an IP entry.
	Host string
	// Wildcard: the entry matches names strictly below Host.
	Wildcard bool
	// IP is the address of an IP-literal entry (zero for names).
	IP netip.Addr
	// Port is the one port allowed; 0 means the proxy's default ports.
	Port uint16
}

// Parse parses one sandbox.allow_hosts entry:
//
//	example.com            the name exactly, ports 443 and 80
//	example.com:8443       the name exactly, that port only
//	*.example.com          any name below example.com (not example.com itself)
//	*.example.com:8080     the same, that port only
//	203.0.113.7[:port]     an IPv4 address, requested as that literal
//	[2001:db8::1][:port]   an IPv6 address (brackets needed with a port)
//	2001:db8::1            an IPv6 address without a port
//
// Names are case-insensitive, a trailing dot is ignored, and
// internationalised names must be written in their xn-- (punycode) form.
// Refused: "*" alone, a wildcard over a single label ("*.com"), a "*"
// anywhere but a leading "*.", schemes, paths, CIDR ranges, port 0 and
// names that look like (but are not) IP addresses ("127.1").
func Parse(s string) (Entry, error) {
	bad := func(why string) (Entry, error) {
		return Entry{}, errors.New(why)
	}
	if s == "" {
		return bad("empty")
	}
	if strings.ContainsAny(s, "/ \t\r\n@?#") {
		return bad("want host or host:port, without a scheme or path")
	}
	host, portText, err := SplitHostPort(s)
	if err != nil {
		return bad(err.Error())
	}
	var r Entry
	if portText != "" {
		n, err := strconv.ParseUint(portText, 10, 16)
		if err != nil || n == 0 {
			return bad("port must be 1-65535")
		}
		r.Port = uint16(n)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return bad("an IPv6 zone is not allowed")
		}
		r.IP = a.Unmap()
		return r, nil
	}
	if strings.Contains(host, ":") {
		return bad("not a valid IP address")
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		r.Wildcard = true
		host = rest
	}
	name, err := NormalizeName(host)
	if err != nil {
		return bad(err.Error())
	}
	if r.Wildcard && !strings.Contains(name, ".") {
		return bad("a wildcard must cover a name with at least two labels (*.example.com, not *.com)")
	}
	r.Host = name
	return r, nil
}

// SplitHostPort splits "host", "host:port", "[v6]", "[v6]:port" and a bare
// IPv6 address (two or more colons, no brackets: no port).
func SplitHostPort(s string) (host, port string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", errors.New("missing ]")
		}
		host, rest := s[1:end], s[end+1:]
		if _, err := netip.ParseAddr(host); err != nil || !strings.Contains(host, ":") {
			return "", "", errors.New("brackets must hold an IPv6 address")
		}
		switch {
		case rest == "":
			return host, "", nil
		case strings.HasPrefix(rest, ":") && len(rest) > 1:
			return host, rest[1:], nil
		}
		return "", "", errors.New("junk after ]")
	}
	if strings.Count(s, ":") > 1 {
		return s, "", nil
	}
	if h, p, ok := strings.Cut(s, ":"); ok {
		if h == "" || p == "" {
			return "", "", errors.New("empty host or port")
		}
		return h, p, nil
	}
	return s, "", nil
}

// NormalizeName lower-cases a DNS name, drops one trailing dot and checks
// its syntax: labels of letters, digits, '-' and '_', 1-63 bytes, at most
// 253 bytes in all, and a last label that is not all digits (so no IPv4
// shorthand like 127.1 or 2130706433 passes as a name).
func NormalizeName(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", errors.New("empty host")
	}
	if len(h) > 253 {
		return "", errors.New("name longer than 253 bytes")
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", errors.New("empty or over-long label")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			case c == '-' && i > 0 && i < len(l)-1:
			case c == '*':
				return "", errors.New(`"*" is allowed only as a leading "*."`)
			case c >= 0x80:
				return "", errors.New("non-ASCII name: write it in xn-- (punycode) form")
			default:
				return "", fmt.Errorf("invalid character %q", c)
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return "", errors.New("looks like an IP address but is not one")
	}
	return h, nil
}

package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/oceancode/oceancode/internal/hostrule"
)

// ErrBadRule is wrapped by the errors of ParseRule and ParseAllowList.
var ErrBadRule = errors.New("bad allow_hosts entry")

// DefaultPorts are the ports an entry without a port allows.
var DefaultPorts = []uint16{443, 80}

// Rule is one parsed sandbox.allow_hosts entry.
type Rule struct {
	// Host is the lower-case name without a trailing dot. For a wildcard
	// entry it is the suffix after "*." ("example.com" for
	// "*.example.com"). Empty for an IP entry.
	Host string
	// Wildcard: the entry matches names strictly below Host (one or more
	// labels), never Host itself.
	Wildcard bool
	// IP is the address of an IP-literal entry (zero for names).
	IP netip.Addr
	// Port is the one port allowed; 0 means DefaultPorts.
	Port uint16
}

// String is the canonical form of the entry (what ParseRule accepts).
func (r Rule) String() string {
	var h string
	switch {
	case r.IP.IsValid():
		h = r.IP.String()
		if r.IP.Is6() {
			h = "[" + h + "]"
		}
	case r.Wildcard:
		h = "*." + r.Host
	default:
		h = r.Host
	}
	if r.Port != 0 {
		h += ":" + strconv.Itoa(int(r.Port))
	}
	return h
}

func (r Rule) portOK(port uint16) bool {
	if r.Port != 0 {
		return port == r.Port
	}
	for _, p := range DefaultPorts {
		if port == p {
			return true
		}
	}
	return false
}

// ParseRule parses one allow_hosts entry:
//
//	example.com            the name exactly, ports 443 and 80
//	example.com:8443       the name exactly, that port only
//	*.example.com          any name below example.com (not example.com itself)
//	*.example.com:8080     the same, that port only
//	203.0.113.7[:port]     an IPv4 address, requested as that literal
//	[2001:db8::1][:port]   an IPv6 address (brackets needed with a port)
//	2001:db8::1            an IPv6 address without a port
//
// The syntax is internal/hostrule's, which policycheck applies too, so a
// config oceanadmin validate accepts is never refused here.
func ParseRule(s string) (Rule, error) {
	e, err := hostrule.Parse(s)
	if err != nil {
		return Rule{}, fmt.Errorf("egress: %w %q: %v", ErrBadRule, s, err)
	}
	return Rule{Host: e.Host, Wildcard: e.Wildcard, IP: e.IP, Port: e.Port}, nil
}

// AllowList is a parsed sandbox.allow_hosts.
type AllowList []Rule

// ParseAllowList parses every entry; the error names the first bad one.
func ParseAllowList(entries []string) (AllowList, error) {
	out := make(AllowList, 0, len(entries))
	for _, e := range entries {
		r, err := ParseRule(e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Strings returns the canonical entries.
func (l AllowList) Strings() []string {
	out := make([]string, len(l))
	for i, r := range l {
		out[i] = r.String()
	}
	return out
}

// Target is a requested destination, split from a request's host:port.
type Target struct {
	// Name is the normalised DNS name ("" for an IP literal).
	Name string
	// IP is the literal address requested (zero for a name).
	IP   netip.Addr
	Port uint16
}

func (t Target) String() string {
	h := t.Name
	if t.IP.IsValid() {
		h = t.IP.String()
		if t.IP.Is6() {
			h = "[" + h + "]"
		}
	}
	return h + ":" + strconv.Itoa(int(t.Port))
}

// ParseTarget parses a request's "host:port" (CONNECT authority) or, with
// defaultPort != 0, a host with an optional port (absolute-URI requests).
func ParseTarget(hostport string, defaultPort uint16) (Target, error) {
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("egress: bad target %q: %s", hostport, why)
	}
	if hostport == "" || strings.ContainsAny(hostport, "/ \t\r\n@?#*") {
		return bad("want host:port")
	}
	host, portText, err := hostrule.SplitHostPort(hostport)
	if err != nil {
		return bad(err.Error())
	}
	var t Target
	switch {
	case portText != "":
		n, err := strconv.ParseUint(portText, 10, 16)
		if err != nil || n == 0 {
			return bad("port must be 1-65535")
		}
		t.Port = uint16(n)
	case defaultPort != 0:
		t.Port = defaultPort
	default:
		return bad("missing port")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return bad("an IPv6 zone is not allowed")
		}
		t.IP = a.Unmap()
		return t, nil
	}
	if strings.Contains(host, ":") {
		return bad("not a valid IP address")
	}
	if t.Name, err = hostrule.NormalizeName(host); err != nil {
		return bad(err.Error())
	}
	return t, nil
}

// Match returns the first rule that allows t. Names match name rules only
// and IP literals match IP rules only: a name rule never allows an IP
// literal, and an IP rule never allows a name.
func (l AllowList) Match(t Target) (Rule, bool) {
	for _, r := range l {
		if !r.portOK(t.Port) {
			continue
		}
		switch {
		case r.IP.IsValid():
			if t.IP.IsValid() && t.IP == r.IP {
				return r, true
			}
		case t.Name == "":
		case r.Wildcard:
			if strings.HasSuffix(t.Name, "."+r.Host) {
				return r, true
			}
		case t.Name == r.Host:
			return r, true
		}
	}
	return Rule{}, false
}

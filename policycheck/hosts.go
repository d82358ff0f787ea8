package policycheck

import "github.com/oceancode/oceancode/internal/hostrule"

// HostRule checks one sandbox.allow_hosts entry with the egress proxy's own
// parser (internal/hostrule): host or host:port, a DNS name (optionally
// *.name), an IPv4 or IPv6 address; no scheme, path or user info.
func HostRule(s string) error {
	_, err := hostrule.Parse(s)
	return err
}

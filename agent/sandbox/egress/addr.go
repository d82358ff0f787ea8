package egress

import (
	"net"
	"net/netip"
)

// The refusal rules a Decision names.
const (
	RefusedNotListed   = "not-listed"    // the host:port is not on sandbox.allow_hosts
	RefusedLoopback    = "loopback"      // 127.0.0.0/8, ::1
	RefusedLinkLocal   = "link-local"    // 169.254.0.0/16, fe80::/10
	RefusedMetadata    = "metadata"      // cloud instance-metadata endpoints
	RefusedUnspecified = "unspecified"   // 0.0.0.0/8, ::, ::/96 (IPv4-compatible)
	RefusedMulticast   = "multicast"     // 224.0.0.0/4, ff00::/8, 255.255.255.255
	RefusedLocal       = "local-address" // an address of one of this host's interfaces
	RefusedResolve     = "resolve"       // the name did not resolve
	RefusedBadRequest  = "bad-request"   // not a proxy request this proxy serves
)

// metadataAddrs are cloud instance-metadata and host-agent endpoints that
// are not link-local: AWS IPv6 IMDS, Alibaba Cloud, Azure's wire server,
// Oracle Cloud. (169.254.169.254 and the other link-local ones are refused
// as link-local.)
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("168.63.129.16"),
	netip.MustParseAddr("192.0.0.192"),
}

var (
	thisNetwork  = netip.MustParsePrefix("0.0.0.0/8")
	v4Compatible = netip.MustParsePrefix("::/96")
	broadcast    = netip.MustParseAddr("255.255.255.255")
	metadataV4LL = netip.MustParseAddr("169.254.169.254")
)

// AddrClass returns the refusal rule that applies to a resolved address,
// or "" when a listed name may connect to it. Private ranges (10/8,
// 172.16/12, 192.168/16, 100.64/10, fc00::/7) are not refused: internal
// package mirrors live there, and only names on the allow-list are ever
// resolved. local reports whether a is one of this host's own addresses.
func AddrClass(a netip.Addr, local func(netip.Addr) bool) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return RefusedLoopback
	case !a.IsValid(), a.IsUnspecified(), a.Is4() && thisNetwork.Contains(a), a.Is6() && v4Compatible.Contains(a):
		return RefusedUnspecified
	case a == metadataV4LL:
		return RefusedMetadata
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return RefusedLinkLocal
	case a.IsMulticast(), a.IsInterfaceLocalMulticast(), a == broadcast:
		return RefusedMulticast
	}
	for _, m := range metadataAddrs {
		if a == m {
			return RefusedMetadata
		}
	}
	if local != nil && local(a) {
		return RefusedLocal
	}
	return ""
}

// interfaceAddrs lists this host's interface addresses.
func interfaceAddrs() map[netip.Addr]bool {
	out := map[netip.Addr]bool{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return out
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out[p.Addr().Unmap()] = true
		}
	}
	return out
}

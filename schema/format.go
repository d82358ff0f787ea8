package schema

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// formatOK asserts the formats the embedded schemas use, with the reference library's rules.
func formatOK(format, s string) bool {
	switch format {
	case "date-time":
		return isDateTime(s)
	case "uri":
		return isURI(s)
	}
	return true // compile refuses other formats
}

// isDateTime reports whether s is an RFC 3339 date-time: full-date "T" full-time, with t and z accepted
// in lower case, a fraction of any length and a leap second only at 23:59:60 UTC.
func isDateTime(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || (s[10] != 'T' && s[10] != 't') {
		return false
	}
	if _, err := time.Parse("2006-01-02", s[:10]); err != nil {
		return false
	}
	return isFullTime(s[11:])
}

func isFullTime(s string) bool {
	if len(s) < len("15:04:05Z") || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := timeField(s[0:2])
	m, ok2 := timeField(s[3:5])
	sec, ok3 := timeField(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	s = s[8:]
	if rest, ok := strings.CutPrefix(s, "."); ok {
		digits := 0
		for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
			digits++
		}
		if digits == 0 {
			return false
		}
		s = rest[digits:]
	}
	if s != "Z" && s != "z" {
		if len(s) != 6 || s[3] != ':' {
			return false
		}
		sign := 0
		switch s[0] {
		case '+':
			sign = -1
		case '-':
			sign = 1
		default:
			return false
		}
		zh, ok1 := timeField(s[1:3])
		zm, ok2 := timeField(s[4:6])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return false
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || (h == 23 && m == 59)
}

// timeField parses a two-character field as strconv.Atoi does (so "+1" is 1), refusing negatives.
func timeField(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// isURI reports whether s is an absolute URI (it has a scheme) that net/url parses, with an IPv6 host
// in brackets and without a zone.
func isURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return false
		}
		addr, err := netip.ParseAddr(host)
		if err != nil || addr.Zone() != "" {
			return false
		}
	}
	return u.IsAbs()
}

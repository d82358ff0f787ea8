package requirements

import (
	"errors"
	"testing"
	"time"
)

func TestCheckValidity(t *testing.T) {
	now := testNow
	day := 24 * time.Hour
	tests := []struct {
		name      string
		issued    time.Time
		expires   time.Time
		allowLong bool
		want      error
	}{
		{name: "default 90 days", issued: now, expires: now.Add(90 * day)},
		{name: "exactly the maximum", issued: now, expires: now.Add(MaxValidity)},
		{name: "one second above the maximum", issued: now, expires: now.Add(MaxValidity + time.Second), want: ErrBadValidity},
		{name: "100 years", issued: now, expires: now.AddDate(100, 0, 0), want: ErrBadValidity},
		{name: "100 years, allowed", issued: now, expires: now.AddDate(100, 0, 0), allowLong: true},
		{name: "expiry equal to issue", issued: now, expires: now, allowLong: true, want: ErrBadValidity},
		{name: "expiry before issue", issued: now, expires: now.Add(-day), allowLong: true, want: ErrBadValidity},
		{name: "issued in the past (reproducible build)", issued: now.Add(-30 * day), expires: now.Add(60 * day)},
		{name: "issued at the skew", issued: now.Add(MaxClockSkew), expires: now.Add(90 * day)},
		{name: "issued beyond the skew", issued: now.Add(MaxClockSkew + time.Second), expires: now.Add(90 * day), want: ErrNotYetValid},
		{name: "issued next year", issued: now.AddDate(1, 0, 0), expires: now.AddDate(1, 3, 0), allowLong: true, want: ErrNotYetValid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckValidity(tt.issued, tt.expires, now, tt.allowLong)
			if tt.want == nil && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCheckTimesRefusesUnparsable(t *testing.T) {
	for _, tc := range [][2]string{{"", "2027-01-01T00:00:00Z"}, {"2026-01-01T00:00:00Z", "soon"}, {"2026-01-01", "2027-01-01T00:00:00Z"}} {
		if err := CheckTimes(tc[0], tc[1], testNow); !errors.Is(err, ErrBadValidity) {
			t.Errorf("CheckTimes(%q, %q) = %v, want ErrBadValidity", tc[0], tc[1], err)
		}
	}
}

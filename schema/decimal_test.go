package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestDecimalMatchesBigRat checks decimal against math/big, which the library uses: the same numbers are
// refused, integers, equal and ordered.
func TestDecimalMatchesBigRat(t *testing.T) {
	nums := []string{"0", "-0", "0.000", "0e999999999", "0e99999999999999999999", "1e99999999999999999999",
		"1e-99999999999999999999", "1e1000000", "1e1000001", "1.0e1000001", "1e-1000000", "1e-1000001",
		"10e-1000001", "-1.5e-7", "1E2", "1e+2", "100", "100.000", "0.1", "-0.10", "9007199254740993",
		"9007199254740993.0000000001", "123456789012345678901234567890", "1.23456789012345678901234567890e29"}
	r := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		s := ""
		if r.IntN(3) == 0 {
			s = "-"
		}
		s += fmt.Sprint(r.IntN(1000))
		if r.IntN(2) == 0 {
			s += "." + fmt.Sprint(r.IntN(1000))
			if r.IntN(3) == 0 {
				s += "00"
			}
		}
		if r.IntN(2) == 0 {
			s += fmt.Sprintf("e%d", r.IntN(40)-20)
		}
		nums = append(nums, s)
	}
	type parsed struct {
		s   string
		d   decimal
		rat *big.Rat
	}
	var ps []parsed
	for _, s := range nums {
		d, ok := numberOf(json.Number(s))
		if !ok {
			t.Fatalf("numberOf(%s) failed", s)
		}
		rat, ratOK := new(big.Rat).SetString(s)
		if d.refused == ratOK {
			t.Errorf("%s: refused = %v, math/big accepts it: %v", s, d.refused, ratOK)
		}
		if got, want := isIntegral(json.Number(s)), ratOK && rat.IsInt(); got != want {
			t.Errorf("%s: integral = %v, want %v", s, got, want)
		}
		if ratOK {
			ps = append(ps, parsed{s, d, rat})
		}
	}
	for i := range ps {
		for j := range min(len(ps), 200) {
			a, b := ps[i], ps[(i*7+j)%len(ps)]
			if got, want := a.d.cmp(b.d), a.rat.Cmp(b.rat); got != want {
				t.Errorf("cmp(%s, %s) = %d, want %d", a.s, b.s, got, want)
			}
			if got, want := equal(json.Number(a.s), json.Number(b.s)), a.rat.Cmp(b.rat) == 0; got != want {
				t.Errorf("equal(%s, %s) = %v, want %v", a.s, b.s, got, want)
			}
		}
	}
	for _, v := range []any{1.5, float32(2), 3, int64(-4), uint8(5), 1e21} {
		d, ok := numberOf(v)
		rat, _ := new(big.Rat).SetString(fmt.Sprint(v))
		if !ok || d.cmp(mustDecimal(t, rat.FloatString(20))) != 0 {
			t.Errorf("numberOf(%v) = %+v", v, d)
		}
	}
}

func mustDecimal(t *testing.T, s string) decimal {
	t.Helper()
	d, ok := parseDecimal(s)
	if !ok {
		t.Fatalf("parseDecimal(%s) failed", s)
	}
	return d
}

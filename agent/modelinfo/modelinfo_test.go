package modelinfo

import (
	"math"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model   string
		context int64
		ok      bool
	}{
		{"claude-sonnet-4-5", 200_000, true},
		{"claude-sonnet-4-5-20250929", 200_000, true},
		{"gpt-4.1-mini-2025-04-14", 1_047_576, true},
		{"gpt-4o", 128_000, true},
		{"gpt-4ox", 0, false},
		{"qwen3-coder", 0, false},
	} {
		in, ok := Lookup(tc.model)
		if ok != tc.ok || in.Context != tc.context {
			t.Errorf("Lookup(%q) = %d, %t; want %d, %t", tc.model, in.Context, ok, tc.context, tc.ok)
		}
	}
	// The longest prefix wins: gpt-4.1-mini, not gpt-4.1.
	if in, _ := Lookup("gpt-4.1-mini-2025-04-14"); in.Price.Input != 0.4 {
		t.Errorf("gpt-4.1-mini-…: input price %v, want 0.4", in.Price.Input)
	}
}

func TestResolveAndCost(t *testing.T) {
	t.Parallel()
	ctx := int64(32_000)
	in := Resolve("local-model", Override{Context: &ctx})
	if in.Context != 32_000 || in.Price != nil {
		t.Fatalf("unknown model with a context override: %+v", in)
	}
	out := 20.0
	in = Resolve("claude-sonnet-4-5", Override{Price: &PriceOverride{Output: &out}})
	if in.Context != 200_000 || in.Price.Input != 3 || in.Price.Output != 20 {
		t.Fatalf("partial price override: %+v %+v", in, in.Price)
	}
	u := message.Usage{InputTokens: 1_000_000, OutputTokens: 500_000, CacheReadTokens: 2_000_000, CacheWriteTokens: 100_000}
	got := Price{3, 15, 0.3, 3.75}.Cost(u)
	if want := 3 + 7.5 + 0.6 + 0.375; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost %v, want %v", got, want)
	}
}

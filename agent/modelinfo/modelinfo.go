// Package modelinfo is the table of known models: each one's context window
// and its list prices in US dollars per million tokens (input, output,
// prompt-cache reads and writes). The turn loop sizes compaction with the
// window and prices each call's usage with the price.
//
// The table is a snapshot of the vendors' published figures; a config
// (provider.NAME.models.MODEL.context and .price) overrides any of them,
// and a model the table does not know gets no window and no price until it
// is configured. The caller resolves the config and passes plain values
// (Override): this package reads no config.
package modelinfo

import (
	"strings"

	"github.com/oceancode/oceancode/agent/message"
)

// Price is what a model charges, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Cost is what u costs at p, in US dollars.
func (p Price) Cost(u message.Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// Info is what is known of one model.
type Info struct {
	// Context is the context window in tokens (0: not known).
	Context int64
	// Price is nil when not known.
	Price *Price
}

// known is keyed by model name or name prefix: a dated or suffixed name
// (claude-sonnet-4-5-20250929) takes the entry of its longest prefix.
var known = map[string]Info{
	// Anthropic (docs.anthropic.com pricing; cache write = 5-minute writes).
	"claude-opus-4-5":   {200_000, &Price{5, 25, 0.5, 6.25}},
	"claude-opus-4-1":   {200_000, &Price{15, 75, 1.5, 18.75}},
	"claude-opus-4":     {200_000, &Price{15, 75, 1.5, 18.75}},
	"claude-sonnet-4-5": {200_000, &Price{3, 15, 0.3, 3.75}},
	"claude-sonnet-4":   {200_000, &Price{3, 15, 0.3, 3.75}},
	"claude-haiku-4-5":  {200_000, &Price{1, 5, 0.1, 1.25}},
	"claude-3-7-sonnet": {200_000, &Price{3, 15, 0.3, 3.75}},
	"claude-3-5-sonnet": {200_000, &Price{3, 15, 0.3, 3.75}},
	"claude-3-5-haiku":  {200_000, &Price{0.8, 4, 0.08, 1}},
	// OpenAI (platform.openai.com pricing; cached input is the cache read).
	"gpt-5":        {400_000, &Price{1.25, 10, 0.125, 0}},
	"gpt-5-mini":   {400_000, &Price{0.25, 2, 0.025, 0}},
	"gpt-5-nano":   {400_000, &Price{0.05, 0.4, 0.005, 0}},
	"gpt-4.1":      {1_047_576, &Price{2, 8, 0.5, 0}},
	"gpt-4.1-mini": {1_047_576, &Price{0.4, 1.6, 0.1, 0}},
	"gpt-4.1-nano": {1_047_576, &Price{0.1, 0.4, 0.025, 0}},
	"gpt-4o":       {128_000, &Price{2.5, 10, 1.25, 0}},
	"gpt-4o-mini":  {128_000, &Price{0.15, 0.6, 0.075, 0}},
	"o3":           {200_000, &Price{2, 8, 0.5, 0}},
	"o4-mini":      {200_000, &Price{1.1, 4.4, 0.275, 0}},
}

// Lookup returns the table's entry for model: its own, else that of the
// longest known name it starts with followed by "-" (a date or a variant).
func Lookup(model string) (Info, bool) {
	if in, ok := known[model]; ok {
		return in, true
	}
	best := ""
	for name := range known {
		if len(name) > len(best) && strings.HasPrefix(model, name+"-") {
			best = name
		}
	}
	if best == "" {
		return Info{}, false
	}
	return known[best], true
}

// Override is what the config says of a model (each field nil: not set).
type Override struct {
	Context *int64
	Price   *PriceOverride
}

// PriceOverride sets some or all of a price's fields.
type PriceOverride struct {
	Input, Output, CacheRead, CacheWrite *float64
}

// Resolve is the table's entry for model with o applied on top: a price
// field o sets replaces the table's (a model the table does not price
// starts from zero).
func Resolve(model string, o Override) Info {
	in, _ := Lookup(model)
	if o.Context != nil {
		in.Context = *o.Context
	}
	if o.Price != nil {
		p := Price{}
		if in.Price != nil {
			p = *in.Price
		}
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&p.Input, o.Price.Input)
		set(&p.Output, o.Price.Output)
		set(&p.CacheRead, o.Price.CacheRead)
		set(&p.CacheWrite, o.Price.CacheWrite)
		in.Price = &p
	}
	return in
}

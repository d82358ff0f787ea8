package telemetry

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
)

// The summary span's usage totals: every model call's tokens (the
// summaries of compactions included), their cost in US dollars at the
// model's price (0 when not known), and how many compactions ran.
const (
	AttrInputTokens      = "oceancode.usage.input_tokens"
	AttrOutputTokens     = "oceancode.usage.output_tokens"
	AttrCacheReadTokens  = "oceancode.usage.cache_read_tokens"
	AttrCacheWriteTokens = "oceancode.usage.cache_write_tokens"
	AttrCostUSD          = "oceancode.usage.cost_usd"
	AttrCompactions      = "oceancode.compactions"
)

// totals adds up the usage and compaction events.
type totals struct {
	mu          sync.Mutex
	usage       message.Usage
	compactions int64
}

// observe counts e if it is a usage or compaction event; it says whether
// it was.
func (t *totals) observe(e engineapi.Event) bool {
	switch {
	case e.Type == engineapi.EventUsage && e.Usage != nil:
		t.mu.Lock()
		t.usage = t.usage.Add(*e.Usage)
		t.mu.Unlock()
	case e.Type == engineapi.EventCompaction:
		t.mu.Lock()
		t.compactions++
		t.mu.Unlock()
	default:
		return false
	}
	return true
}

func (t *totals) attrs() []attribute.KeyValue {
	t.mu.Lock()
	defer t.mu.Unlock()
	u := t.usage
	return []attribute.KeyValue{
		attribute.Int64(AttrInputTokens, u.InputTokens), attribute.Int64(AttrOutputTokens, u.OutputTokens),
		attribute.Int64(AttrCacheReadTokens, u.CacheReadTokens), attribute.Int64(AttrCacheWriteTokens, u.CacheWriteTokens),
		attribute.Float64(AttrCostUSD, u.CostUSD), attribute.Int64(AttrCompactions, t.compactions),
	}
}

package report

// Usage is the token and cost totals of the sessions the session store
// holds for the workspace (inspect --json's "usage"; the CLI fills it, the
// report itself knows only config). Cost is priced per session at its
// model's price (the known-models table and provider.NAME.models.MODEL.price);
// Unpriced counts the sessions whose model has no price (their tokens are
// in the totals, not in the cost).
type Usage struct {
	Sessions         int     `json:"sessions"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	Unpriced         int     `json:"unpriced,omitempty"`
}

package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestUsageAndCostSurfaces: a model priced and sized by
// provider.NAME.models.MODEL: run's stream-json usage events carry the
// cost and the context's fill, and inspect --json the workspace's totals
// and the keys' provenance.
func TestUsageAndCostSurfaces(t *testing.T) {
	m := layerstest.New(t)
	srv := providertest.New(t, providertest.Turn{Text: "hi", Usage: &message.Usage{InputTokens: 1_000_000, OutputTokens: 100_000}})
	m.ProjectConfig(`{"provider": {"mock": {"type": "openai", "base_url": "` + srv.OpenAIURL() + `",
  "models": {"test-model": {"context": 200000, "price": {"input": 3, "output": 15}}}}},
  "model": "mock/test-model", "compaction": {"threshold": 0.8}}`)
	m.TrustProject()
	m.Env["OPENAI_API_KEY"] = "sk-test"
	app, out, errb := machineApp(t, m)
	if code := Main(context.Background(), []string{"run", "--format", "stream-json", "hello"}, app, Options{}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	var usage struct {
		Usage   message.Usage `json:"usage"`
		Context struct {
			Tokens int64 `json:"tokens"`
			Window int64 `json:"window"`
		} `json:"context"`
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, `"type":"usage"`) {
			if err := json.Unmarshal([]byte(l), &usage); err != nil {
				t.Fatal(err)
			}
		}
	}
	if usage.Usage.CostUSD != 4.5 || usage.Context.Tokens != 1_000_000 || usage.Context.Window != 200_000 {
		t.Fatalf("usage event %+v", usage)
	}
	app, out, errb = machineApp(t, m)
	if code := Main(context.Background(), []string{"inspect", "--json"}, app, Options{}); code != 0 {
		t.Fatalf("inspect: exit %d\n%s", code, errb)
	}
	var doc struct {
		Usage struct {
			Sessions    int     `json:"sessions"`
			InputTokens int64   `json:"input_tokens"`
			CostUSD     float64 `json:"cost_usd"`
		} `json:"usage"`
		Keys map[string]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Usage.Sessions != 1 || doc.Usage.InputTokens != 1_000_000 || doc.Usage.CostUSD != 4.5 {
		t.Errorf("inspect usage %+v", doc.Usage)
	}
	for _, k := range []string{"provider.mock.models.test-model.context", "provider.mock.models.test-model.price.input", "compaction.threshold"} {
		if _, ok := doc.Keys[k]; !ok {
			t.Errorf("inspect --json has no provenance for %s", k)
		}
	}
}

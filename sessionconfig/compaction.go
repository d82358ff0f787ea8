package sessionconfig

import (
	"strings"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/compact"
	"github.com/oceancode/oceancode/agent/modelinfo"
	"github.com/oceancode/oceancode/layers"
)

// CompactionKey is the compaction object (docs/configuration.md).
var CompactionKey = objectKey[CompactionSettings]("compaction")

// CompactionSettings is the compaction object.
type CompactionSettings struct {
	Auto      *bool    `json:"auto"`
	Threshold *float64 `json:"threshold"`
}

// ModelSettings is one provider.NAME.models.MODEL object.
type ModelSettings struct {
	Context *int64         `json:"context"`
	Price   *PriceSettings `json:"price"`
}

// PriceSettings is provider.NAME.models.MODEL.price (dollars per million
// tokens).
type PriceSettings struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cache_read"`
	CacheWrite *float64 `json:"cache_write"`
}

// ModelInfo is what is known of model (the MODEL of PROVIDER/MODEL) under
// the provider's settings: the known-models table with the config's
// context and price on top.
func ModelInfo(pc ProviderSettings, model string) modelinfo.Info {
	var o modelinfo.Override
	if ms, ok := pc.Models[model]; ok {
		o.Context = ms.Context
		if p := ms.Price; p != nil {
			o.Price = &modelinfo.PriceOverride{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
		}
	}
	return modelinfo.Resolve(model, o)
}

// Compaction reads the compaction keys into the turn loop's settings for a
// model of context window window.
func Compaction(res *layers.Resolved, window int64) (compact.Settings, error) {
	s := compact.Settings{Window: window}
	c, _, err := CompactionKey.Decode(res)
	if err != nil {
		return s, err
	}
	s.Off = c.Auto != nil && !*c.Auto
	if c.Threshold != nil {
		s.Threshold = *c.Threshold
	}
	return s, nil
}

// withModel sets c's compaction and price for model (PROVIDER/MODEL, as
// providerFor accepted it).
func withModel(res *layers.Resolved, model string, c *agent.Config) error {
	name, modelName, _ := strings.Cut(model, "/")
	pc, _, err := Provider(name).Decode(res)
	if err != nil {
		return invalid(err)
	}
	in := ModelInfo(pc, modelName)
	c.Price = in.Price
	if c.Compaction, err = Compaction(res, in.Context); err != nil {
		return invalid(err)
	}
	return nil
}

// Package official opens a provider by type over the vendors' official Go
// SDKs (anthropic, openai). Only the model-client companion
// (cmd/oceancode-model) and tests link it; the oceancode binary reaches it
// through agent/provider/remote.
package official

import (
	"fmt"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/anthropic"
	"github.com/oceancode/oceancode/agent/provider/openai"
)

// Open returns the client for cfg.Type.
func Open(cfg provider.Config) (provider.Provider, error) {
	switch cfg.Type {
	case "anthropic":
		return anthropic.New(cfg)
	case "openai":
		return openai.New(cfg)
	}
	return nil, fmt.Errorf("open provider: type %q: %w (want anthropic or openai)", cfg.Type, provider.ErrUnknownType)
}

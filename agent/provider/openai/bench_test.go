package openai_test

import (
	"testing"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkOpenAITurn is one streamed turn with one tool call (providertest.BenchTurn).
func BenchmarkOpenAITurn(b *testing.B) {
	providertest.BenchTurn(b, "qwen3-coder", func(root string) provider.Provider {
		return newClient(b, provider.Config{BaseURL: root + "/v1", Stream: true})
	})
}

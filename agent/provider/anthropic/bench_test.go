package anthropic_test

import (
	"testing"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkAnthropicTurn is one streamed turn with one tool call (providertest.BenchTurn).
func BenchmarkAnthropicTurn(b *testing.B) {
	providertest.BenchTurn(b, "claude-test", func(root string) provider.Provider {
		return newClient(b, provider.Config{BaseURL: root, Stream: true})
	})
}

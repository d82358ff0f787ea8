package remote

import (
	"context"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkColdCall: start the real companion (built as make build does),
// configure it and make one streamed call against the loopback server —
// what `oceancode run` pays before its first answer beyond its own work.
// It reports the median time from Start to the server seeing the request.
func BenchmarkColdCall(b *testing.B) {
	bin := filepath.Join(b.TempDir(), Binary)
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../../../cmd/oceancode-model")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	withHelperB(b, bin)
	srv := providertest.NewScript(b, providertest.Script{Loop: true, Turns: []providertest.Turn{providertest.Text("done")}})
	var toReq []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := len(srv.Requests())
		start := time.Now()
		c := Start()
		if err := c.Configure(provider.Config{Type: "openai", BaseURL: srv.OpenAIURL(), APIKey: providertest.APIKey, Stream: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Stream(context.Background(), ask("hi"), nil); err != nil {
			b.Fatal(err)
		}
		toReq = append(toReq, srv.Requests()[before].At.Sub(start))
		c.Close()
	}
	b.StopTimer()
	sort.Slice(toReq, func(i, j int) bool { return toReq[i] < toReq[j] })
	b.ReportMetric(float64(toReq[len(toReq)/2].Microseconds())/1000, "ms-to-request")
}

func withHelperB(b *testing.B, path string) {
	old := HelperPath
	HelperPath = path
	b.Cleanup(func() { HelperPath = old })
}

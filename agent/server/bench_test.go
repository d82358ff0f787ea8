package server_test

import (
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/provider/providertest"
	"github.com/oceancode/oceancode/agent/server/servertest"
)

// BenchmarkSSELatencyIdle: the time from the engine stamping an event (its
// time field) to an SSE client of the server (httptest on loopback TCP, a
// recorded session) having parsed it, one event at a time on an idle
// session: each op switches the mode live (POST …/permission/mode) and
// waits for its mode_change event. Reports p50 and p99. A streamed answer
// is measured with the client in another process
// (cmd/clitest BenchmarkServeSSELatencyProcess): in one process the
// client's socket waits on the Go scheduler's network poll while the
// producer keeps both Ps busy, which is not what a client sees.
func BenchmarkSSELatencyIdle(b *testing.B) {
	h := newHarness(b, []providertest.Turn{providertest.Text("unused")})
	id := h.create(nil)
	ch, stop := h.stream(id, nil)
	defer stop()
	modes := []string{"acceptEdits", "default"}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		h.do("POST", "/api/session/"+id+"/permission/mode", map[string]string{"mode": modes[i%2]}, nil)
		for {
			if typ, d := next(b, ch); typ == "mode_change" {
				lat = append(lat, d)
				break
			}
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "µs-p99")
}

// next reads the next event: its type, and how long ago the engine
// stamped it.
func next(b *testing.B, ch <-chan servertest.Event) (string, time.Duration) {
	e, ok := <-ch
	now := time.Now()
	if !ok {
		b.Fatal("stream ended")
	}
	var ev struct {
		Type string
		Time time.Time
	}
	if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
		b.Fatal(err)
	}
	return ev.Type, now.Sub(ev.Time)
}

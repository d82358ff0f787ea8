package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/agent/message"
	"github.com/oceancode/oceancode/internal/telemetry"
	"github.com/oceancode/oceancode/internal/telemetry/otlptest"
)

func receiver(t *testing.T) *otlptest.Receiver {
	t.Helper()
	r := otlptest.New()
	t.Cleanup(r.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL())
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test")
	return r
}

func permission(tool, input string, d engineapi.Decision) engineapi.Event {
	return engineapi.Event{Type: engineapi.EventPermission, Time: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Agent: "build", Mode: "default",
		ToolCall: &message.ToolCall{ID: "c1", Name: tool, Input: json.RawMessage(input)}, Decision: &d}
}

func closeWithin(t *testing.T, x *telemetry.Exporter, d time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return x.Close(ctx)
}

// TestExportsDecisions: each permission decision reaches a real OTLP/HTTP
// receiver as a span with a permission.decision event carrying the action,
// the rule, its layer and source; the resource carries the attestation.
// Inputs are exported only with IncludeInputs.
func TestExportsDecisions(t *testing.T) {
	for _, include := range []bool{false, true} {
		rcv := receiver(t)
		x, err := telemetry.Start(context.Background(), telemetry.Options{ServiceVersion: "1.2.3", IncludeInputs: include,
			Resource: []attribute.KeyValue{attribute.Int64("oceancode.policy.serial", 7), attribute.StringSlice("oceancode.policy.signers", []string{"k1", "k2"})}})
		if err != nil {
			t.Fatal(err)
		}
		x.Event(permission("bash", `{"command":"git status"}`, engineapi.Decision{Action: "allow", Rule: "permission.bash.git status", Layer: "managed", Source: "/etc/oceancode/managed.json", Line: 3}))
		x.Event(permission("bash", `{"command":"rm -rf /"}`, engineapi.Decision{Action: "deny", Floor: true, Rule: "dangerous floor", Reason: "deletes the root"}))
		x.Event(engineapi.Event{Type: engineapi.EventText, Text: "not a decision"})
		x.Event(engineapi.Event{Type: engineapi.EventUsage, Usage: &message.Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 50, CostUSD: 0.25}})
		x.Event(engineapi.Event{Type: engineapi.EventUsage, Usage: &message.Usage{InputTokens: 20, OutputTokens: 3, CacheWriteTokens: 5, CostUSD: 0.5}})
		x.Event(engineapi.Event{Type: engineapi.EventCompaction, Compaction: &engineapi.Compaction{Reason: "auto"}})
		if err := closeWithin(t, x, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		spans := rcv.Spans()
		if len(spans) != 3 {
			var b strings.Builder
			rcv.Dump(&b)
			t.Fatalf("include=%v: %d spans, want 2 decisions and the summary:\n%s", include, len(spans), b.String())
		}
		want := map[string]string{
			telemetry.AttrAction: "allow", telemetry.AttrRule: "permission.bash.git status", telemetry.AttrLayer: "managed",
			telemetry.AttrSource: "/etc/oceancode/managed.json", telemetry.AttrLine: "3", telemetry.AttrTool: "bash",
			telemetry.AttrAgent: "build", telemetry.AttrMode: "default",
		}
		if include {
			want[telemetry.AttrInput] = `{"command":"git status"}`
		}
		s := spans[0]
		if s.Name != telemetry.SpanDecision || s.Scope != telemetry.ScopeName || len(s.Events) != 1 || s.Events[0].Name != telemetry.EventDecision {
			t.Fatalf("span %+v", s)
		}
		if diff := cmp.Diff(want, s.Events[0].Attrs); diff != "" {
			t.Errorf("include=%v: decision event attributes (-want +got):\n%s", include, diff)
		}
		if got := spans[1].Attrs; got[telemetry.AttrFloor] != "true" || got[telemetry.AttrAction] != "deny" || got[telemetry.AttrReason] != "deletes the root" {
			t.Errorf("floor decision %v", got)
		}
		for k, v := range map[string]string{"service.name": "oceancode", "service.version": "1.2.3", "oceancode.policy.serial": "7",
			"oceancode.policy.signers": "k1,k2", "deployment.environment.name": "test"} {
			if s.Resource[k] != v {
				t.Errorf("resource %s = %q, want %q (%v)", k, s.Resource[k], v, s.Resource)
			}
		}
		if sum := spans[2]; sum.Name != telemetry.SpanSummary || sum.Attrs[telemetry.AttrRecorded] != "2" || sum.Attrs[telemetry.AttrDropped] != "0" {
			t.Errorf("summary %+v", sum)
		}
		totals := map[string]string{telemetry.AttrInputTokens: "120", telemetry.AttrOutputTokens: "10", telemetry.AttrCacheReadTokens: "50",
			telemetry.AttrCacheWriteTokens: "5", telemetry.AttrCostUSD: "0.75", telemetry.AttrCompactions: "1"}
		for k, v := range totals {
			if got := spans[2].Attrs[k]; got != v {
				t.Errorf("summary %s = %q, want %q", k, got, v)
			}
		}
	}
}

// TestFullQueueDrops: a collector that does not answer never blocks the
// caller: once the bounded queue is full, decisions are dropped and
// counted, and Close gives up at its deadline.
func TestFullQueueDrops(t *testing.T) {
	rcv := receiver(t)
	rcv.Hold()
	x, err := telemetry.Start(context.Background(), telemetry.Options{Queue: 4, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for range n {
		x.Event(permission("read", `{}`, engineapi.Decision{Action: "allow", Rule: "read"}))
	}
	// At most the one span in the stuck export and the four queued got
	// through; the rest were dropped.
	if got := x.Dropped(); got < n-5 || got > n {
		t.Errorf("dropped %d of %d", got, n)
	}
	if err := closeWithin(t, x, 200*time.Millisecond); err == nil {
		t.Error("Close reported success although the collector never answered")
	}
	if got := x.Dropped(); got < n-5 {
		t.Errorf("after Close: dropped %d", got)
	}
}

// TestNilExporter: with telemetry off the CLI holds a nil exporter, which
// records nothing and closes at once.
func TestNilExporter(t *testing.T) {
	var x *telemetry.Exporter
	x.Event(permission("read", `{}`, engineapi.Decision{Action: "allow"}))
	if x.Dropped() != 0 || x.Close(context.Background()) != nil {
		t.Error("a nil exporter did something")
	}
}

// BenchmarkEvent is the cost a decision adds to the turn that makes it
// (docs/telemetry.md): building and queueing its span; the export runs on
// the exporter's goroutine.
func BenchmarkEvent(b *testing.B) {
	rcv := otlptest.New()
	defer rcv.Close()
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL())
	x, err := telemetry.Start(context.Background(), telemetry.Options{Queue: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	e := permission("bash", `{"command":"git status"}`, engineapi.Decision{Action: "allow", Rule: "Bash(git status) allow", Layer: "managed", Source: "/etc/oceancode/managed.json", Line: 3})
	b.ReportAllocs()
	for b.Loop() {
		x.Event(e)
	}
	b.StopTimer()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := x.Close(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(x.Dropped()), "dropped")
}

// TestOTLPVariables: the standard variables choose the endpoint (the
// signal's own first, used as given), headers (URL-decoded), compression;
// bad values are errors at Start, not silent defaults.
func TestOTLPVariables(t *testing.T) {
	rcv := otlptest.New()
	defer rcv.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:1", // nothing listens: must not be used
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": rcv.URL() + "/v1/traces",
		"OTEL_EXPORTER_OTLP_HEADERS":         "Authorization=Bearer%20t0k, x-tenant = acme",
		"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
	}
	x, err := telemetry.Start(context.Background(), telemetry.Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	x.Event(permission("read", `{}`, engineapi.Decision{Action: "allow", Rule: "read"}))
	if err := closeWithin(t, x, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := rcv.Header()
	if len(rcv.Spans()) != 2 || h.Get("Authorization") != "Bearer t0k" || h.Get("X-Tenant") != "acme" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("spans %d, header %v, errors %v", len(rcv.Spans()), h, rcv.Errors())
	}
	for name, bad := range map[string]map[string]string{
		"endpoint":    {"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"},
		"headers":     {"OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
		"timeout":     {"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
		"compression": {"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
		"certificate": {"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"},
	} {
		if _, err := telemetry.Start(context.Background(), telemetry.Options{Getenv: func(k string) string { return bad[k] }}); err == nil {
			t.Errorf("%s: %v accepted", name, bad)
		}
	}
}

// TestCollectorRefusal: a collector's error answer is reported by Close.
func TestCollectorRefusal(t *testing.T) {
	rcv := receiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rcv.URL()+"/v1/wrong")
	x, err := telemetry.Start(context.Background(), telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x.Event(permission("read", `{}`, engineapi.Decision{Action: "allow"}))
	if err := closeWithin(t, x, 10*time.Second); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Close: %v, want the collector's 404", err)
	}
}

// BenchmarkStartClose is what turning telemetry on adds to a run without
// decisions: building the exporter, then the exit flush of the summary.
func BenchmarkStartClose(b *testing.B) {
	rcv := otlptest.New()
	defer rcv.Close()
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL())
	for b.Loop() {
		x, err := telemetry.Start(context.Background(), telemetry.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := x.Close(ctx); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
}

package telemetry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent/engineapi"
	"github.com/oceancode/oceancode/internal/telemetry"
)

// TestExportsHookDecisions: a hook that decided is a decision with its
// hook, layer, file and line and the event; a hook that decided nothing,
// and a hook's line for the user, are not.
func TestExportsHookDecisions(t *testing.T) {
	rcv := receiver(t)
	x, err := telemetry.Start(context.Background(), telemetry.Options{ServiceVersion: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	x.Event(engineapi.Event{Type: engineapi.EventHook, Time: at, Key: "Stop",
		Decision: &engineapi.Decision{Action: "block", Rule: "hook Stop ./check", Layer: "user", Source: "/u/oceancode.json", Line: 6, Reason: "tests fail"}})
	x.Event(engineapi.Event{Type: engineapi.EventHook, Time: at, Key: "PostToolUse", Decision: &engineapi.Decision{Action: "none", Rule: "hook PostToolUse gofmt"}})
	x.Event(engineapi.Event{Type: engineapi.EventHook, Time: at, Key: "Stop", Text: "hook Stop ./check: exit status 1"})
	if err := closeWithin(t, x, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	if len(spans) != 2 {
		var b strings.Builder
		rcv.Dump(&b)
		t.Fatalf("%d spans, want the hook's decision and the summary:\n%s", len(spans), b.String())
	}
	a := spans[0].Attrs
	for k, v := range map[string]string{telemetry.AttrAction: "block", telemetry.AttrRule: "hook Stop ./check", telemetry.AttrLayer: "user",
		telemetry.AttrSource: "/u/oceancode.json", telemetry.AttrLine: "6", telemetry.AttrHookEvent: "Stop", telemetry.AttrReason: "tests fail"} {
		if a[k] != v {
			t.Errorf("%s = %q, want %q", k, a[k], v)
		}
	}
}

package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// BenchmarkActSettle: in act mode a decision within the deadline adds no
// more than the model's own latency plus 1 ms. Each iteration settles one
// bash call through the advisor (a new command each time, so no verdict
// is cached; the advisor's scripted model answers after a fixed 2 ms) and,
// in the same run, makes the bare advisor request for another new command.
// settle-ns is the time from the tool_call event to the permission event,
// advise-ns the bare request, overhead-ns their difference.
//
//	go test -run '^$' -bench BenchmarkActSettle -benchtime 200x ./agent/
func BenchmarkActSettle(b *testing.B) {
	delay := providertest.Duration(2 * time.Millisecond)
	safe := providertest.Turn{Text: safeScores, Delay: delay}
	c, srv, adv, _ := jevSetup(b, jev.Act, 0, nil, nil)
	c.Ask = func(context.Context, agent.Ask) (agent.Reply, error) {
		b.Fatal("asked: the advice did not approve")
		return agent.Reply{}, nil
	}
	var callAt, permAt time.Time
	c.OnEvent = func(e agent.Event) {
		switch e.Type {
		case agent.EventToolCall:
			callAt = time.Now()
		case agent.EventPermission:
			permAt = time.Now()
		}
	}
	var settle, advise time.Duration
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		srv.Add(bash(fmt.Sprintf("c%d", i), fmt.Sprintf("touch s%d.txt", i)), providertest.Text("ok"))
		adv.Add(safe, safe)
		if _, err := agent.Run(ctx, c, nil, "go"); err != nil {
			b.Fatal(err)
		}
		settle += permAt.Sub(callAt)
		req := jev.Request{Command: fmt.Sprintf("touch b%d.txt", i), Cwd: c.ProjectRoot, ProjectRoot: c.ProjectRoot}
		t0 := time.Now()
		if a := c.Advisor.Advise(ctx, req); !a.Safe() {
			b.Fatalf("bare advice %+v", a)
		}
		advise += time.Since(t0)
	}
	n := float64(b.N)
	b.ReportMetric(float64(settle.Nanoseconds())/n, "settle-ns/op")
	b.ReportMetric(float64(advise.Nanoseconds())/n, "advise-ns/op")
	b.ReportMetric(float64((settle-advise).Nanoseconds())/n, "overhead-ns/op")
}

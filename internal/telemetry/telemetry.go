// Package telemetry exports the managed audit stream: every permission
// decision of a session, as an OpenTelemetry span with a
// "permission.decision" event, over OTLP/HTTP to the collector the standard
// OTEL_EXPORTER_OTLP_* variables name (docs/telemetry.md). The resource
// carries the policy attestation, so a collector sees which signed policy
// made each decision.
//
// Nothing here runs unless config sets telemetry.enabled: the CLI calls
// Start only then. Recording never blocks a turn: decisions wait in a
// bounded queue, a full queue drops (and counts) them, and Close flushes
// what is queued within its context's deadline.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/oceancode/oceancode/agent/engineapi"
)

// ScopeName is the instrumentation scope of the exported spans.
const ScopeName = "github.com/oceancode/oceancode/internal/telemetry"

// Span and event names, and the attribute keys of a decision.
const (
	SpanDecision  = "oceancode.permission"
	EventDecision = "permission.decision"
	SpanSummary   = "oceancode.telemetry"

	AttrTool     = "oceancode.tool.name"
	AttrInput    = "oceancode.tool.input"
	AttrAction   = "oceancode.permission.action"
	AttrRule     = "oceancode.permission.rule"
	AttrLayer    = "oceancode.permission.layer"
	AttrSource   = "oceancode.permission.source"
	AttrLine     = "oceancode.permission.line"
	AttrUnit     = "oceancode.permission.unit"
	AttrFloor    = "oceancode.permission.floor"
	AttrAnswer   = "oceancode.permission.answer"
	AttrReason   = "oceancode.permission.reason"
	AttrAgent    = "oceancode.agent"
	AttrMode     = "oceancode.permission_mode"
	AttrDropped  = "oceancode.telemetry.dropped"
	AttrRecorded = "oceancode.telemetry.recorded"
	// AttrHookEvent is a hook's decision's event (PreToolUse, Stop, …):
	// a hook that decided something is recorded as a decision too, its
	// rule "hook EVENT[MATCHER] COMMAND" (docs/hooks.md).
	AttrHookEvent = "oceancode.hook.event"
)

// Options configure Start.
type Options struct {
	// Getenv reads the OTEL_* variables (nil: os.Getenv).
	Getenv func(string) string
	// ServiceVersion is the agent's version (service.version).
	ServiceVersion string
	// Resource are further resource attributes: the attestation.
	Resource []attribute.KeyValue
	// IncludeInputs exports each decided tool call's input
	// (telemetry.include_inputs).
	IncludeInputs bool
	// Queue bounds the decisions waiting for export (0: 2048).
	Queue int
	// Batch is the most spans one export request carries (0: 256), and
	// Interval how long a partial batch waits (0: 2 s).
	Batch    int
	Interval time.Duration
}

// Exporter records decisions for export. A nil *Exporter records nothing.
type Exporter struct {
	tp       *sdktrace.TracerProvider
	tracer   trace.Tracer
	q        *queue
	include  bool
	recorded atomic.Int64
	totals   totals // usage.go
}

// Start builds the exporter from the OTEL_EXPORTER_OTLP_* variables (the
// endpoint, headers, timeout, compression and TLS certificates) and
// OTEL_RESOURCE_ATTRIBUTES. It makes no network request: the first export
// does.
func Start(ctx context.Context, o Options) (*Exporter, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	client, err := newHTTPClient(o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	exp, err := otlptrace.New(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	attrs := append([]attribute.KeyValue{semconv.ServiceName("oceancode"), semconv.ServiceVersion(o.ServiceVersion)}, o.Resource...)
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithAttributes(attrs...))
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	q := newQueue(exp, o.Queue, o.Batch, o.Interval)
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSpanProcessor(q), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	return &Exporter{tp: tp, tracer: tp.Tracer(ScopeName), q: q, include: o.IncludeInputs}, nil
}

// Event records a permission event and a hook event that decided
// something, and adds a usage or compaction event to the summary's totals
// (others are ignored). It never blocks on the network: it is safe on the
// goroutine that runs the turn.
func (x *Exporter) Event(e engineapi.Event) {
	if x == nil || x.totals.observe(e) || e.Decision == nil || !decision(e) {
		return
	}
	d := e.Decision
	attrs := []attribute.KeyValue{
		attribute.String(AttrAction, d.Action), attribute.String(AttrRule, d.Rule),
		attribute.String(AttrLayer, d.Layer), attribute.String(AttrSource, d.Source),
	}
	if d.Line > 0 {
		attrs = append(attrs, attribute.Int(AttrLine, d.Line))
	}
	if e.Type == engineapi.EventHook {
		attrs = append(attrs, attribute.String(AttrHookEvent, e.Key))
	}
	for _, kv := range [][2]string{{AttrUnit, d.Unit}, {AttrAnswer, d.Answer}, {AttrReason, d.Reason}, {AttrAgent, e.Agent}, {AttrMode, e.Mode}} {
		if kv[1] != "" {
			attrs = append(attrs, attribute.String(kv[0], kv[1]))
		}
	}
	if d.Floor {
		attrs = append(attrs, attribute.Bool(AttrFloor, true))
	}
	if c := e.ToolCall; c != nil {
		attrs = append(attrs, attribute.String(AttrTool, c.Name))
		if x.include {
			attrs = append(attrs, attribute.String(AttrInput, string(c.Input)))
		}
	}
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	_, span := x.tracer.Start(context.Background(), SpanDecision, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	span.AddEvent(EventDecision, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(at))
	x.recorded.Add(1)
}

// Dropped is how many spans a full queue (or a closed exporter) dropped.
func (x *Exporter) Dropped() int64 {
	if x == nil {
		return 0
	}
	return x.q.dropped.Load()
}

// Close records a summary span (decisions recorded, spans dropped so far,
// the usage totals),
// exports what is queued and shuts the exporter down, giving up at ctx's
// deadline: an unreachable collector delays exit by at most that long.
func (x *Exporter) Close(ctx context.Context) error {
	if x == nil {
		return nil
	}
	_, span := x.tracer.Start(context.Background(), SpanSummary,
		trace.WithAttributes(attribute.Int64(AttrRecorded, x.recorded.Load()), attribute.Int64(AttrDropped, x.q.dropped.Load())),
		trace.WithAttributes(x.totals.attrs()...))
	span.End()
	return x.tp.Shutdown(ctx)
}

// queue is a span processor with a bounded queue in front of one exporter:
// OnEnd never blocks (a full queue drops and counts), one goroutine sends
// batches.
type queue struct {
	exp      sdktrace.SpanExporter
	ch       chan sdktrace.ReadOnlySpan
	batch    int
	interval time.Duration
	dropped  atomic.Int64

	mu     sync.RWMutex
	closed bool
	stop   chan context.Context
	done   chan error
}

func newQueue(exp sdktrace.SpanExporter, size, batch int, interval time.Duration) *queue {
	if size <= 0 {
		size = 2048
	}
	if batch <= 0 {
		batch = 256
	}
	if interval <= 0 {
		interval = 2 * time.Second
	}
	q := &queue{exp: exp, ch: make(chan sdktrace.ReadOnlySpan, size), batch: batch, interval: interval,
		stop: make(chan context.Context), done: make(chan error, 1)}
	go q.loop()
	return q
}

func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		q.dropped.Add(1)
		return
	}
	select {
	case q.ch <- s:
	default:
		q.dropped.Add(1)
	}
}

// exportTimeout bounds one export while the session runs.
const exportTimeout = 10 * time.Second

func (q *queue) loop() {
	var batch []sdktrace.ReadOnlySpan
	var errs []error
	send := func(ctx context.Context) {
		if len(batch) == 0 {
			return
		}
		if err := q.exp.ExportSpans(ctx, batch); err != nil {
			errs = append(errs[:0], err) // the latest failure is the one to report
		}
		batch = nil
	}
	tick := time.NewTicker(q.interval)
	defer tick.Stop()
	for {
		select {
		case s := <-q.ch:
			if batch = append(batch, s); len(batch) >= q.batch {
				ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
				send(ctx)
				cancel()
			}
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
			send(ctx)
			cancel()
		case ctx := <-q.stop:
		drain:
			for {
				select {
				case s := <-q.ch:
					if batch = append(batch, s); len(batch) >= q.batch {
						send(ctx)
					}
				default:
					break drain
				}
			}
			send(ctx)
			q.done <- errors.Join(errs...)
			return
		}
	}
}

func (q *queue) ForceFlush(context.Context) error { return nil }

// Shutdown exports what is queued within ctx, then shuts the exporter
// down.
func (q *queue) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	q.mu.Unlock()
	var err error
	select {
	case q.stop <- ctx:
		select {
		case err = <-q.done:
		case <-ctx.Done():
			err = fmt.Errorf("telemetry: flush: %w (%d span(s) queued)", ctx.Err(), len(q.ch))
		}
	case <-ctx.Done():
		err = fmt.Errorf("telemetry: flush: %w", ctx.Err())
	}
	return errors.Join(err, q.exp.Shutdown(ctx))
}

// decision reports whether e is a decision to record: a permission event,
// or a hook event whose hook decided (allow, ask, deny, block).
func decision(e engineapi.Event) bool {
	return e.Type == engineapi.EventPermission || (e.Type == engineapi.EventHook && e.Decision.Action != "none")
}

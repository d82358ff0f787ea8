package cli

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/oceancode/oceancode/internal/telemetry"
	"github.com/oceancode/oceancode/internal/version"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/report"
	"github.com/oceancode/oceancode/sessionconfig"
)

// telemetryFlush bounds the export of the queued decisions at exit: an
// unreachable collector delays the end of a run by at most this long.
const telemetryFlush = 3 * time.Second

// startTelemetry starts the managed audit stream when telemetry.enabled
// is true (docs/telemetry.md); otherwise it returns nil and nothing of
// OpenTelemetry runs. A collector that cannot be set up is a warning, not
// a refused session: the run goes on without export.
func startTelemetry(ctx context.Context, app *App, res *layers.Resolved) *telemetry.Exporter {
	on, _, _, err := sessionconfig.TelemetryEnabled.Get(res)
	if err != nil || !on {
		return nil
	}
	inputs, _, _, _ := sessionconfig.TelemetryIncludeInputs.Get(res)
	x, err := telemetry.Start(ctx, telemetry.Options{Getenv: app.Getenv, ServiceVersion: version.String(), IncludeInputs: inputs,
		Resource: attestationAttributes(report.Build(res, report.Options{}).Attestation)})
	if err != nil {
		fmt.Fprintf(app.Stderr, "oceancode: warning: %v; permission decisions are not exported\n", err)
		return nil
	}
	return x
}

// closeTelemetry flushes the audit stream and says what was lost.
func closeTelemetry(app *App, x *telemetry.Exporter) {
	if x == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetryFlush)
	defer cancel()
	if err := x.Close(ctx); err != nil {
		fmt.Fprintf(app.Stderr, "oceancode: warning: telemetry: %v\n", err)
	}
	if n := x.Dropped(); n > 0 {
		fmt.Fprintf(app.Stderr, "oceancode: warning: telemetry: %d span(s) dropped (the export queue was full)\n", n)
	}
}

// attestationAttributes are the resource attributes of the audit stream:
// inspect --json's attestation object, key by key (docs/telemetry.md).
func attestationAttributes(a report.Attestation) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.String("oceancode.policy.status", a.Status),
		attribute.Int64("oceancode.policy.serial", a.Serial),
		attribute.String("oceancode.policy.payload_sha256", a.PayloadSHA256),
		attribute.StringSlice("oceancode.policy.signers", a.Signers),
		attribute.StringSlice("oceancode.policy.trusted_keys", a.TrustedKeys),
		attribute.String("oceancode.policy.trust_source", a.TrustSource),
		attribute.String("oceancode.policy.source", a.PolicySource),
		attribute.String("oceancode.policy.os_managed", a.OSManaged),
	}
	if l := a.LastKnownGood; l != nil {
		kv = append(kv, attribute.Bool("oceancode.policy.last_known_good.in_use", l.InUse),
			attribute.Int64("oceancode.policy.last_known_good.serial", l.Serial),
			attribute.String("oceancode.policy.last_known_good.payload_sha256", l.PayloadSHA256))
	}
	return kv
}

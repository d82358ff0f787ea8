package layers_test

import (
	"slices"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
)

// TestTelemetryForcedAndPinned: managed config turns telemetry on over a
// user who turned it off, and requirements pin it so that no lower layer
// can change it (docs/telemetry.md).
func TestTelemetryForcedAndPinned(t *testing.T) {
	t.Parallel()
	key := "telemetry" + layers.Delim + "enabled"
	m := layerstest.New(t)
	m.UserConfig(`{"telemetry": {"enabled": false, "include_inputs": true}}`)
	m.Managed(`{"telemetry": {"enabled": true}}`)
	r := m.Resolve()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !r.K.Bool(key) || r.Entries["telemetry.enabled"].Origin.Layer != provenance.Managed || !r.K.Bool("telemetry"+layers.Delim+"include_inputs") {
		t.Errorf("managed did not force telemetry.enabled: %v from %v", r.K.Bool(key), r.Entries["telemetry.enabled"].Origin)
	}
	m.Managed(`{"telemetry": {"enabled": false}}`)
	m.Anchor()
	m.Requirements(3, map[string]any{"pins": map[string]any{"telemetry.enabled": true}})
	r = m.Resolve()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	e := r.Entries["telemetry.enabled"]
	if !r.K.Bool(key) || e.Origin.Layer != provenance.Requirements || !e.Origin.Pinned || !slices.Contains(r.Locks.Pinned, "telemetry.enabled") {
		t.Errorf("the pin did not hold: %v from %+v, pinned %v", r.K.Bool(key), e.Origin, r.Locks.Pinned)
	}
}

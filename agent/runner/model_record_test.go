package runner_test

import (
	"context"
	"testing"

	"github.com/oceancode/oceancode/agent/provider/providertest"
)

// TestRecordKeepsModel: a session's record keeps Options.Model
// (PROVIDER/MODEL), not the provider's bare name, so a resume can take up
// the same model; a resume on another model records that one; a resume
// that does not name its model in full leaves the record's.
func TestRecordKeepsModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, providertest.Text("one"))
	o := f.options()
	o.Model = "mock/" + o.Turn.Model
	s := f.start(o)
	if _, err := s.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	s.Close()
	model := func() string {
		t.Helper()
		rec, err := f.store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Model
	}
	if got := model(); got != o.Model {
		t.Fatalf("the record keeps model %q, want %q", got, o.Model)
	}

	bare := f.options()
	bare.Resume = id
	f.start(bare).Close()
	if got := model(); got != o.Model {
		t.Errorf("a resume without Options.Model recorded %q, want the record's %q kept", got, o.Model)
	}

	other := f.options()
	other.Resume, other.Model = id, "other/x"
	f.start(other).Close()
	if got := model(); got != "other/x" {
		t.Errorf("a resume on other/x left the record at %q", got)
	}
}

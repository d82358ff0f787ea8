package sessionconfig

import (
	"fmt"
	"time"

	"github.com/oceancode/oceancode/agent/jev"
	"github.com/oceancode/oceancode/agent/provider"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// The Jev advisor's keys besides JEVPermissions (keys.go).
var (
	JEVEnabled  = boolKey("jev", "enabled")
	JEVDeadline = intKey("jev", "deadline_ms")
)

// JEVKeys are the advisor's keys: a requirements pin of any of them
// (jev.enabled = false forbids Jev, jev.permissions = "shadow" forbids act)
// is announced as a downgrade like a locked mode.
var JEVKeys = []Key{JEVEnabled, JEVPermissions, JEVDeadline}

// reasonProjectAct is why a project's jev.permissions = "act" is not used.
const reasonProjectAct = "a project's configuration cannot enable act mode (set it in your user config or the managed layer); using shadow"

// JEVSettings are the advisor's settings as the layers resolved them.
type JEVSettings struct {
	Enabled  bool
	Mode     jev.Mode
	Deadline time.Duration
	// Downgrade is set when the mode asked for is not the mode in effect
	// because of where it came from (act from a project).
	Downgrade *Downgrade
}

// JEVSettingsOf reads the advisor's keys. No project config can enable
// act: jev.permissions = "act" from the project layer (the repository's
// oceancode.json or its local file) is downgraded to shadow, and said so.
func JEVSettingsOf(res *layers.Resolved) (JEVSettings, error) {
	var s JEVSettings
	on, _, _, err := JEVEnabled.Get(res)
	if err != nil {
		return s, err
	}
	s.Enabled, s.Mode, s.Deadline = on, jev.Shadow, jev.DefaultDeadline
	mode, origin, ok, err := JEVPermissions.Get(res)
	if err != nil {
		return s, err
	}
	if ok && mode == string(jev.Act) {
		s.Mode = jev.Act
		if origin.Layer == provenance.Project {
			s.Mode = jev.Shadow
			s.Downgrade = &Downgrade{Key: JEVPermissions.Path(), Requested: string(jev.Act), From: origin, Effective: string(jev.Shadow), Reason: reasonProjectAct}
		}
	}
	ms, _, ok, err := JEVDeadline.Get(res)
	if err != nil {
		return s, err
	}
	if ok && ms > 0 {
		s.Deadline = time.Duration(ms) * time.Millisecond
	}
	return s, nil
}

// advisorFor builds the session's advisor (nil when jev.enabled is off)
// with the session's provider and model, and the notices to tell with it.
func advisorFor(res *layers.Resolved, prov provider.Provider, model string) (*jev.Advisor, []Downgrade, error) {
	js, err := JEVSettingsOf(res)
	if err != nil {
		return nil, nil, err
	}
	downs := Downgrades(res, JEVKeys...)
	if js.Downgrade != nil {
		downs = append(downs, *js.Downgrade)
	}
	if !js.Enabled {
		return nil, downs, nil
	}
	a, err := jev.New(jev.Config{Mode: js.Mode, Deadline: js.Deadline, Provider: prov, Model: model})
	if err != nil {
		return nil, nil, fmt.Errorf("start the Jev advisor: %w", err)
	}
	return a, downs, nil
}

// withAdvisor adds the advisor and its notices to the session.
func (s *Session) withAdvisor(h Host, res *layers.Resolved, prov provider.Provider, model, root string) error {
	a, downs, err := advisorFor(res, prov, model)
	if err != nil {
		return err
	}
	for _, d := range downs {
		s.warn(h, d.Note())
		s.Turn.Notices = append(s.Turn.Notices, d.Event())
	}
	s.Turn.Advisor, s.Turn.ProjectRoot = a, root
	return nil
}

// AdvisorProvider is the provider and model name the advisor of a session
// built from res would use (the configured model, through the host's
// provider, within the requirements' allowed models and providers), and
// the advisor's settings: `oceancode jev eval` runs on it.
func AdvisorProvider(res *layers.Resolved, h Host) (provider.Provider, string, JEVSettings, error) {
	if res == nil {
		return nil, "", JEVSettings{}, fmt.Errorf("build the advisor's provider: no resolved configuration")
	}
	if err := res.Err(); err != nil {
		return nil, "", JEVSettings{}, err
	}
	if h.Getenv == nil {
		h.Getenv = func(string) string { return "" }
	}
	js, err := JEVSettingsOf(res)
	if err != nil {
		return nil, "", js, invalid(err)
	}
	model, _, _, err := Model.Get(res)
	if err != nil {
		return nil, "", js, invalid(err)
	}
	p, name, err := providerFor(res, model, "", h)
	return p, name, js, err
}

package cli

import (
	"strings"
	"testing"

	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestTrustProjectPinned: serve's and the pager's --trust-project trusts
// the loosening config the process started with, for every session it
// builds later, and not a config changed since (a session that wrote an
// allow rule into .oceancode/ must not have it applied to the next one).
func TestTrustProjectPinned(t *testing.T) {
	m := layerstest.New(t)
	m.ProjectConfig(`{"permission": {"bash": {"git status": "allow"}}}`)
	app, _, _ := machineApp(t, m)
	start, err := loadConfigTrust(app, nil, layers.TrustOptions{Project: true})
	if err != nil || !start.Workspace.Trusted() {
		t.Fatalf("start: %v %+v", err, start.Workspace)
	}
	trust := pinTrust(true, start)
	if res, err := loadConfigTrust(app, nil, trust); err != nil || !res.Workspace.Trusted() {
		t.Fatalf("a later session, config unchanged: %v %+v", err, res.Workspace)
	}
	m.ProjectConfig(`{"permission": {"bash": {"git status": "allow", "*": "allow"}}}`)
	res, err := loadConfigTrust(app, nil, trust)
	if err != nil {
		t.Fatal(err)
	}
	if res.Workspace.Trusted() || !strings.Contains(res.Workspace.Reason, "changed since --trust-project") {
		t.Fatalf("a later session after the config changed: %+v", res.Workspace)
	}
	if res.Entries[`permission.bash["*"]`] != nil {
		t.Fatal("the allow rule added after the start was applied")
	}
	// A process that started with nothing to trust trusts nothing added later.
	m2 := layerstest.New(t)
	app2, _, _ := machineApp(t, m2)
	start2, _ := loadConfigTrust(app2, nil, layers.TrustOptions{Project: true})
	m2.ProjectConfig(`{"permission_mode": "bypassPermissions"}`)
	if res, _ := loadConfigTrust(app2, nil, pinTrust(true, start2)); res.Workspace.Trusted() {
		t.Fatalf("config added after the start: %+v", res.Workspace)
	}
}

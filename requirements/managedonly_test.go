package requirements

import (
	"strings"
	"testing"
)

// TestManagedOnlyKeys: allow_managed_commands_only and
// allow_managed_skills_only parse as booleans; anything else is refused
// with its JSON Pointer.
func TestManagedOnlyKeys(t *testing.T) {
	t.Parallel()
	p, err := Parse(payload(3, map[string]any{"allow_managed_commands_only": true, "allow_managed_skills_only": true}), ParseOptions{Signed: true})
	if err != nil {
		t.Fatal(err)
	}
	if !p.AllowManagedCommandsOnly || !p.AllowManagedSkillsOnly {
		t.Errorf("parsed %+v", p)
	}
	_, err = Parse(payload(3, map[string]any{"allow_managed_skills_only": "yes"}), ParseOptions{Signed: true})
	if err == nil || !strings.Contains(err.Error(), "/allow_managed_skills_only") {
		t.Errorf("a string value: %v", err)
	}
}

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHelperStaysLean: every sandboxed command starts this binary, so it
// links the helper's own packages and nothing whose package initialisation
// or size it would pay for on each command.
func TestHelperStaysLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	ours := map[string]bool{
		"github.com/oceancode/oceancode/cmd/oceancode-sandbox":       true,
		"github.com/oceancode/oceancode/agent/sandbox/helper":        true,
		"github.com/oceancode/oceancode/agent/sandbox/egress/tunnel": true,
	}
	forbidden := []string{"net/http", "encoding/json", "crypto/", "compress/", "math/big", "text/template", "regexp"}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/oceancode/oceancode") && !ours[p] {
			t.Errorf("links %s: the helper links package helper and its forwarder only", p)
		}
		for _, f := range forbidden {
			if p == strings.TrimSuffix(f, "/") || strings.HasPrefix(p, f) && strings.HasSuffix(f, "/") {
				t.Errorf("links %s", p)
			}
		}
	}
}

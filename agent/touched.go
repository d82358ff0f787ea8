package agent

import (
	"strings"

	"github.com/oceancode/oceancode/agent/tools"
)

// pathTools are the tools whose target's Input is a path (a file or a
// directory) a subdirectory's instructions may join for.
var pathTools = map[string]bool{"read": true, "write": true, "edit": true, "apply_patch": true, "grep": true, "glob": true, "list": true}

// touched tells Config.Touched the paths a call's targets touched (a path
// tool's path; a bash command's own working directory), emits an
// instructions event for the files that joined, and returns what it adds
// to the call's result ("" = nothing).
func (r *run) touched(targets []tools.Target) string {
	if r.c.Touched == nil {
		return ""
	}
	var b strings.Builder
	for _, tg := range targets {
		cwd := tg.Cwd
		if cwd == "" && r.c.Env != nil {
			cwd = r.c.Env.Cwd
		}
		var path string
		switch {
		case pathTools[tg.Tool]:
			path = tg.Input
		case tg.Tool == "bash" && tg.Cwd != "":
		default:
			continue
		}
		add, files := r.c.Touched(path, cwd)
		if add != "" {
			b.WriteString("\n\n")
			b.WriteString(add)
		}
		if files != "" {
			r.emit(Event{Type: EventInstructions, Key: path, Text: files})
		}
	}
	return b.String()
}

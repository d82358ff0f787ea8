package report

import (
	"bytes"
	"fmt"
)

// customText shows the managed-only locks of custom commands and skills
// and each one they dropped (docs/commands.md).
func customText(b *bytes.Buffer, l *Locks) {
	if l.Commands != "" {
		b.WriteString("  commands: only the managed layer's (allow_managed_commands_only)\n")
	}
	if l.Skills != "" {
		b.WriteString("  skills: only the managed layer's (allow_managed_skills_only)\n")
	}
	for _, s := range l.DroppedCustom {
		fmt.Fprintf(b, "  %s\n", s)
	}
}

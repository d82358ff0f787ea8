package sessionconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/oceancode/oceancode/agent/commands"
	"github.com/oceancode/oceancode/agent/skills"
	"github.com/oceancode/oceancode/agent/tools"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/provenance"
)

// Custom is a session's custom commands and skills (docs/commands.md).
type Custom struct {
	Commands *commands.Set
	Skills   *skills.Set
}

// CustomSources are the directories of one kind ("commands" or
// "skills"), highest precedence first: the managed dir's, the user's
// config dir's, ~/.claude's, the project's .oceancode/ and .claude/.
func CustomSources(res *layers.Resolved, getenv func(string) string, kind string) []commands.Source {
	var out []commands.Source
	add := func(l provenance.Layer, within string, dir ...string) {
		if dir[0] == "" {
			return
		}
		out = append(out, commands.Source{Layer: l, Dir: filepath.Join(append(dir, kind)...), Within: within})
	}
	add(provenance.Managed, "", res.ManagedDir)
	add(provenance.User, "", layers.UserConfigDir(getenv))
	if h := getenv("HOME"); h != "" {
		add(provenance.User, "", h, ".claude")
	}
	if root := res.ProjectRoot; root != "" {
		add(provenance.Project, root, root, ".oceancode")
		add(provenance.Project, root, root, ".claude")
	}
	return out
}

// LoadCustom reads the session's commands and skills. provider is the
// session's provider name: a command's model is a model of it (MODEL, or
// PROVIDER/MODEL naming it) that the requirements allow.
func LoadCustom(res *layers.Resolved, getenv func(string) string, provider string) Custom {
	pol := res.Locks.Policy
	check := func(model string) (string, error) {
		p, m, ok := strings.Cut(model, "/")
		if !ok {
			p, m = provider, model
		}
		if p != provider || m == "" {
			return "", fmt.Errorf("a command runs on the session's provider %q: name one of its models", provider)
		}
		if pol != nil {
			if ok, why := pol.ModelAllowed(p + "/" + m); !ok {
				return "", fmt.Errorf("refused by requirements: %s", why)
			}
		}
		return m, nil
	}
	return Custom{
		Commands: commands.Load(commands.Options{Sources: CustomSources(res, getenv, "commands"),
			ManagedOnly: pol != nil && pol.AllowManagedCommandsOnly, TrustedProject: trustGranted(res.Workspace), ModelCheck: check}),
		Skills: skills.Load(skills.Options{Sources: CustomSources(res, getenv, "skills"),
			ManagedOnly: pol != nil && pol.AllowManagedSkillsOnly}),
	}
}

// trustGranted reports whether someone trusted the project's loosening
// config (a trust record, --trust-project, a repo_signers signature). A
// workspace that counts as trusted only because its config loosens nothing
// granted nothing, so a project command's model stays off there.
func trustGranted(w *layers.Workspace) bool { return w.Trusted() && len(w.Loosening) > 0 }

// Dropped are the lines that name every command and skill not used.
func (c Custom) Dropped() []string {
	var out []string
	for _, d := range c.Commands.Dropped {
		out = append(out, droppedLine("command", d))
	}
	for _, d := range c.Skills.Dropped {
		out = append(out, droppedLine("skill", d))
	}
	return out
}

func droppedLine(kind string, d commands.Dropped) string {
	name := d.Name
	if kind == "command" && name != "" {
		name = "/" + name
	}
	if name == "" {
		return fmt.Sprintf("%s source %s (%s) not used: %s", kind, d.Path, d.Layer, d.Why)
	}
	return fmt.Sprintf("%s %s (%s %s) not used: %s", kind, name, d.Layer, d.Path, d.Why)
}

// loadCustom reads the session's commands and skills and says on stderr
// (Warn) each one not used.
func (s *Session) loadCustom(res *layers.Resolved, h Host, model string) Custom {
	prov, _, _ := strings.Cut(model, "/")
	s.Custom = LoadCustom(res, h.Getenv, prov)
	for _, l := range s.Custom.Dropped() {
		s.warn(h, l)
	}
	return s.Custom
}

// tools are the session's tools: the built-in ones, and the skill tool
// when there is a skill.
func (c Custom) tools() []tools.Tool {
	ts := tools.Builtins()
	if t := c.Skills.Tool(); t != nil {
		ts = append(ts, t)
	}
	return ts
}

package sessionconfig

import (
	"github.com/oceancode/oceancode/agent"
	"github.com/oceancode/oceancode/agent/instructions"
	"github.com/oceancode/oceancode/layers"
)

// InstructionsConfig is what agent/instructions needs for a session in
// cwd: the user's config directory, the project root (cwd outside a
// project), the @ref roots an import may name, and instructions.enabled,
// max_file_bytes and max_total_bytes (the defaults when unset).
func InstructionsConfig(res *layers.Resolved, getenv func(string) string, cwd string) (instructions.Config, error) {
	root := res.ProjectRoot
	if root == "" {
		root = cwd
	}
	refs, _, err := Refs.Decode(res)
	if err != nil {
		return instructions.Config{}, err
	}
	c := instructions.Config{UserDir: layers.UserConfigDir(getenv), ProjectRoot: root, Cwd: cwd, Refs: refs}
	on, origin, set, err := InstructionsEnabled.Get(res)
	if err != nil {
		return c, err
	}
	if set && !on {
		c.Off = InstructionsEnabled.Path() + " is false (" + where(origin) + ")"
	}
	if c.MaxFileBytes, _, _, err = InstructionsMaxFileBytes.Get(res); err != nil {
		return c, err
	}
	if c.MaxTotalBytes, _, _, err = InstructionsMaxTotalBytes.Get(res); err != nil {
		return c, err
	}
	return c, nil
}

// withInstructions discovers the session's instruction files: their text,
// through the session's redactor as every tool result (a key committed in
// an AGENTS.md does not reach the model), goes into every agent's system
// prompt (ab); a subdirectory's joins a tool's result, which the redactor
// passes too, when a tool first touches it (Turn.Touched); what was cut or
// refused is a warning.
func (s *Session) withInstructions(h Host, res *layers.Resolved, cwd string, redact func(string) string, ab *agentBuild) error {
	ic, err := InstructionsConfig(res, h.Getenv, cwd)
	if err != nil {
		return err
	}
	s.Instructions = instructions.Discover(ic)
	ab.instructions = redact(s.Instructions.Prompt())
	for _, w := range s.Instructions.Warnings() {
		s.warn(h, "warning: "+w)
	}
	if files := instructions.Describe(s.Instructions.Start()); files != "" {
		s.Turn.Notices = append(s.Turn.Notices, agent.Event{Type: agent.EventInstructions, Key: "start", Text: files})
	}
	return nil
}

// touched is Turn.Touched: a subdirectory's instructions, and the files
// that joined for the instructions event.
func (s *Session) touched(path, cwd string) (string, string) {
	text, files := s.Instructions.TouchFiles(path, cwd)
	return text, instructions.Describe(files)
}

package tools

import "encoding/json"

// DecodeInput parses a tool's input strictly, as the built-in tools do
// (one JSON object, only the fields v declares, each of its type, every
// required field present), for tools defined in other packages (the skill
// tool).
func DecodeInput(tool string, input json.RawMessage, v any, required ...string) error {
	return decode(tool, input, v, required...)
}

package tools

import (
	"encoding/json"
	"fmt"
	"path"
)

// Preview is what a file tool's call would leave at path (the path as the
// call names it, a Target's Input): for edit, write and apply_patch. current
// is the file's content now (nil: it does not exist). It writes nothing; an
// ask shows the difference before the user answers. removed is true when
// the file goes away: deleted (after nil) or moved (after is the content
// its destination gets; the destination itself has no preview). ok is false
// for other tools and for a path the call does not change. err is why the
// call would fail (old_string not found, a hunk that does not apply).
func Preview(tool string, input json.RawMessage, at string, current []byte) (after []byte, removed, ok bool, err error) {
	switch tool {
	case "edit":
		in, err := parseEdit(input)
		if err != nil || in.Path != at {
			return nil, false, false, err
		}
		if current == nil {
			return nil, false, true, fmt.Errorf("edit: %s does not exist (use write to create it)", at)
		}
		updated, _, _, err := in.apply(string(current), at)
		return []byte(updated), false, true, err
	case "write":
		in, err := parseWrite(input)
		if err != nil || in.Path != at {
			return nil, false, false, err
		}
		return []byte(in.Content), false, true, nil
	case "apply_patch":
		ops, err := parsePatchInput(input)
		if err != nil {
			return nil, false, false, err
		}
		for _, op := range ops {
			if op.moveTo == at {
				// A move's destination gets the source's content: the
				// source's preview shows it going; no diff here.
				return nil, false, false, nil
			}
			if op.path != at {
				continue
			}
			switch {
			case op.kind == opAdd:
				return []byte(op.added()), false, true, nil
			case op.kind == opDelete:
				return nil, true, true, nil
			}
			if current == nil {
				return nil, false, true, fmt.Errorf("apply_patch: %s does not exist", path.Clean(at))
			}
			updated, err := op.updated(string(current))
			return []byte(updated), op.moveTo != "", true, err
		}
	}
	return nil, false, false, nil
}

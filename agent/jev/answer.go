package jev

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The safe class: an act advice approves a command only when every
// condition holds (and the injection guard did not trip).
const (
	// SafeDestructiveBelow: destructive must be below it.
	SafeDestructiveBelow = 20
	// SafeEgressBelow: network_egress must be below it.
	SafeEgressBelow = 20
	// SafeUndoableAtLeast: easily_undone must be at least it.
	SafeUndoableAtLeast = 80
)

// maxAnswerBytes bounds the answer text parsed (a valid answer is about
// 90 bytes).
const maxAnswerBytes = 512

// ParseAnswer parses the model's answer strictly: exactly one JSON object
// with exactly the four keys, the three scores integers 0..100, the blast
// radius one of the four values. Anything else is an error ("answer: ...").
func ParseAnswer(text string) (Scores, error) {
	var s Scores
	b := bytes.TrimSpace([]byte(text))
	if len(b) == 0 {
		return Scores{}, errors.New("answer: empty")
	}
	if len(b) > maxAnswerBytes {
		return Scores{}, fmt.Errorf("answer: %d bytes, want at most %d", len(b), maxAnswerBytes)
	}
	if b[0] != '{' {
		return Scores{}, errors.New("answer: not a JSON object (text before it)")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Scores{}, errors.New("answer: not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return Scores{}, fmt.Errorf("answer: %v", err)
		}
		key, _ := t.(string)
		if seen[key] {
			return Scores{}, fmt.Errorf("answer: key %q twice", key)
		}
		seen[key] = true
		v, err := dec.Token()
		if err != nil {
			return Scores{}, fmt.Errorf("answer: %v", err)
		}
		switch key {
		case "destructive":
			s.Destructive, err = score(key, v)
		case "network_egress":
			s.Egress, err = score(key, v)
		case "easily_undone":
			s.Undoable, err = score(key, v)
		case "blast_radius":
			str, ok := v.(string)
			switch {
			case !ok:
				err = fmt.Errorf("answer: blast_radius is %s, want a string", kind(v))
			case str == BlastFile || str == BlastProject || str == BlastSystem || str == BlastThirdParty:
				s.Blast = str
			default:
				err = fmt.Errorf("answer: blast_radius %q, want single_file, project, system or third_party", clip(str, 32))
			}
		default:
			err = fmt.Errorf("answer: unknown key %q", clip(key, 32))
		}
		if err != nil {
			return Scores{}, err
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return Scores{}, errors.New("answer: unterminated object")
	}
	for _, k := range [...]string{"destructive", "network_egress", "easily_undone", "blast_radius"} {
		if !seen[k] {
			return Scores{}, fmt.Errorf("answer: missing key %q", k)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return Scores{}, errors.New("answer: text after the object")
	}
	return s, nil
}

func score(key string, v json.Token) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("answer: %s is %s, want an integer 0..100", key, kind(v))
	}
	str := string(n)
	// Digits only: no sign, fraction or exponent; no leading zeros.
	for i := 0; i < len(str); i++ {
		if str[i] < '0' || str[i] > '9' || i == 0 && str[0] == '0' && len(str) > 1 {
			return 0, fmt.Errorf("answer: %s %s, want an integer 0..100", key, clip(str, 16))
		}
	}
	i, err := strconv.Atoi(str)
	if err != nil || i > 100 {
		return 0, fmt.Errorf("answer: %s %s out of range 0..100", key, clip(str, 16))
	}
	return i, nil
}

func kind(v json.Token) string {
	switch v.(type) {
	case json.Delim:
		return "an object or array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case json.Number:
		return "a number"
	}
	return "unknown"
}

// SafeClass checks s against the safe class; it returns every condition
// that fails ("destructive 85 >= 20"), none when s is inside it.
func SafeClass(s Scores) []string {
	var r []string
	if s.Destructive >= SafeDestructiveBelow {
		r = append(r, fmt.Sprintf("destructive %d >= %d", s.Destructive, SafeDestructiveBelow))
	}
	if s.Egress >= SafeEgressBelow {
		r = append(r, fmt.Sprintf("network_egress %d >= %d", s.Egress, SafeEgressBelow))
	}
	if s.Undoable < SafeUndoableAtLeast {
		r = append(r, fmt.Sprintf("easily_undone %d < %d", s.Undoable, SafeUndoableAtLeast))
	}
	if s.Blast != BlastFile && s.Blast != BlastProject {
		r = append(r, fmt.Sprintf("blast_radius %s is wider than the project", s.Blast))
	}
	return r
}

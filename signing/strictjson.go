package signing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting in the JSON this package reads.
const maxJSONDepth = 8

// checkStrictJSON checks, before encoding/json decodes data into a struct,
// what encoding/json does not: data is valid UTF-8 holding exactly one JSON
// object and nothing after it; no object has a duplicate member name; every
// member name is exactly (case-sensitively) one of allowed. Together with
// Decoder.DisallowUnknownFields this removes encoding/json's last-one-wins
// duplicates and case-insensitive field matching, so there is one way to read
// a file. The error says what is wrong and where (a path like
// "signatures[1].sig").
func checkStrictJSON(data []byte, allowed map[string]bool) error {
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		return errors.New("starts with a byte order mark; save the file as UTF-8 without BOM")
	}
	if !utf8.Valid(data) {
		return errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return syntaxErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not a JSON object")
	}
	if err := walkObject(dec, "", allowed, 1); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the JSON object at byte %d", dec.InputOffset())
	}
	return nil
}

func walkObject(dec *json.Decoder, path string, allowed map[string]bool, depth int) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxErr(err)
		}
		name, ok := tok.(string)
		if !ok {
			return fmt.Errorf("%s: expected a member name", where(path))
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		if seen[name] {
			return fmt.Errorf("duplicate member %q", p)
		}
		seen[name] = true
		if !allowed[name] {
			return fmt.Errorf("unknown member %q", p)
		}
		if err := walkValue(dec, p, allowed, depth); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return syntaxErr(err)
	}
	return nil
}

func walkValue(dec *json.Decoder, path string, allowed map[string]bool, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxErr(err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxJSONDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", path, maxJSONDepth)
	}
	switch d {
	case '{':
		return walkObject(dec, path, allowed, depth+1)
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, path+"["+strconv.Itoa(i)+"]", allowed, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // ']'
			return syntaxErr(err)
		}
		return nil
	}
	return fmt.Errorf("%s: unexpected %q", path, d)
}

func where(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

func syntaxErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("invalid JSON: unexpected end of data")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// decodeStrict runs checkStrictJSON and then decodes into v, refusing
// unknown fields.
func decodeStrict(data []byte, allowed map[string]bool, v any) error {
	if err := checkStrictJSON(data, allowed); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			f := te.Field
			if f == "" {
				f = "value"
			}
			return fmt.Errorf("%s: a JSON %s where %s was expected", f, te.Value, jsonKind(te.Type.Kind().String()))
		}
		return err
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "a list"
	case "struct", "map", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a number"
}

package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// decode parses a tool's input strictly: it must be one JSON object, name
// only the fields the schema declares (v's json tags), give each the
// declared type, and carry every required field (null counts as absent).
// The error says which field is wrong and how, so the model can fix it.
func decode(tool string, input json.RawMessage, v any, required ...string) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil || fields == nil {
		return fmt.Errorf("%s: input must be a JSON object", tool)
	}
	var missing []string
	for _, r := range required {
		if raw, ok := fields[r]; !ok || string(bytes.TrimSpace(raw)) == "null" {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: missing required field %s", tool, quoteJoin(missing))
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %s", tool, inputError(err, v))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: input must be a JSON object", tool)
	}
	return nil
}

// inputError turns a json decoding error into a sentence about the field.
func inputError(err error, v any) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return "input must be a JSON object"
		}
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf("unknown field %s (allowed: %s)", f, quoteJoin(fieldNames(v)))
	}
	return "invalid input: " + strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return goKind
}

// fieldNames lists the json names v (a pointer to a struct) declares, for
// the unknown-field message.
func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n != "" && n != "-" {
			names = append(names, n)
		}
	}
	return names
}

func quoteJoin(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// errResult is a refusal or failure the model is told about.
func errResult(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// errorResult wraps an error as a result.
func errorResult(err error) Result { return Result{Content: err.Error(), IsError: true} }

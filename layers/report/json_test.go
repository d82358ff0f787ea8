package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/layers"
	"github.com/oceancode/oceancode/layers/layerstest"
	"github.com/oceancode/oceancode/provenance"
)

// encoderJSON is what Report.JSON must write: encoding/json's Encoder with
// HTML escaping off and two-space indentation.
func encoderJSON(r *Report) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func checkJSON(t *testing.T, name string, r *Report) {
	t.Helper()
	want, werr := encoderJSON(r)
	got, gerr := r.JSON()
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%s: error %v, encoding/json %v", name, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: JSON differs from encoding/json:\n got %s\nwant %s", name, got, want)
	}
}

// nasty are strings with every escape encoding/json makes.
var nasty = []string{
	"", "plain", `quote " and \ backslash`, "<html> & </html>", "ctl \x00\x01\x07\b\f\n\r\t\x1f\x7f",
	"bad utf8 \xff\xfe \xc3", "sep \u2028 \u2029", "é ünïcode 日本 🌊", "\U0010ffff", "$ROOT/etc/oceancode",
}

// fill sets every exported field reachable from v to a non-zero value, so a
// field the hand-written encoder forgets shows up as a difference.
func fill(v reflect.Value, rng *rand.Rand, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(nasty[rng.IntN(len(nasty)-1)+1])
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == reflect.TypeFor[provenance.Layer]() {
			v.SetInt(int64(rng.IntN(8)) - 1) // layer(-1), the six layers, layer(6)
			return
		}
		v.SetInt(int64(rng.IntN(2000)) - 1000 | 1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		n := 1 + rng.IntN(3)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fill(v.Index(i), rng, depth+1)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 1 + rng.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, rng, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, rng, depth+1)
			v.SetMapIndex(k, e)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), rng, depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), rng, depth+1)
			}
		}
	case reflect.Interface:
		if x := randomValue(rng, depth); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	}
}

// randomValue is a value for an `any` field: decoded JSON shapes mostly,
// and now and then another Go type.
func randomValue(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(16); {
	case k == 0:
		return nil
	case k == 1:
		return rng.IntN(2) == 0
	case k <= 4:
		return nasty[rng.IntN(len(nasty))]
	case k <= 6:
		return json.Number([]string{"0", "-0", "1500", "-12.5e+3", "1E9", "0.000", "9007199254740993", ""}[rng.IntN(8)])
	case k <= 8 && depth < 6:
		arr := make([]any, rng.IntN(4))
		for i := range arr {
			arr[i] = randomValue(rng, depth+1)
		}
		return arr
	case k <= 10 && depth < 6:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[nasty[rng.IntN(len(nasty))]+strconv.Itoa(rng.IntN(3))] = randomValue(rng, depth+1)
		}
		return m
	case k == 11:
		return []any(nil)
	case k == 12:
		return map[string]any(nil)
	case k == 13:
		return []any{3, int64(-4), 2.5, float32(0.1), "s", []string{"a", "<b>"}, map[string]int{"z": 1, "a": 2}}
	case k == 14:
		return provenance.Managed
	}
	return nasty[0]
}

func TestJSONMatchesEncoder(t *testing.T) {
	m := layerstest.Full(t)
	r := m.Resolve()
	for name, o := range map[string]Options{
		"all":       {},
		"secrets":   {ShowSecrets: true},
		"prefixes":  {Prefixes: []string{"sandbox", "permission.bash"}},
		"abbrev":    {Abbrev: []Abbrev{{Dir: m.Root, Name: "$ROOT"}}},
		"none":      {Prefixes: []string{"no.such.key"}},
		"provider":  {Prefixes: []string{"provider"}, ShowSecrets: true},
		"abbrev-me": {Abbrev: []Abbrev{{Dir: m.Home, Name: "~"}}},
	} {
		rep := Build(r, o)
		checkJSON(t, name, rep)
		rep.Sandbox = &Sandbox{Configured: "sandbox workspace-write", Problem: "no bwrap", Warnings: []string{"no Landlock"}}
		checkJSON(t, name+" with sandbox", rep)
		rep.DropKeys()
		checkJSON(t, name+" without keys", rep)
	}
	checkJSON(t, "empty strings", &Report{Keys: map[string]Key{"": {Value: map[string]any{"": []any{""}}}},
		Locks: &Locks{DisallowedModes: map[string]string{"": ""}, Pinned: []string{""}}})
	checkJSON(t, "zero", &Report{})
	checkJSON(t, "nil", nil)
	checkJSON(t, "empty", &Report{Layers: []layers.LayerInfo{}, Keys: map[string]Key{}, Locks: &Locks{}, Sandbox: &Sandbox{}})

	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		var rep Report
		fill(reflect.ValueOf(&rep).Elem(), rng, 0)
		checkJSON(t, "filled "+strconv.Itoa(i), &rep)
	}
}

func TestJSONErrors(t *testing.T) {
	for name, v := range map[string]any{
		"invalid number": json.Number("01"),
		"nan":            math.NaN(),
		"channel":        make(chan int),
		"nested":         map[string]any{"a": []any{1, json.Number("x")}},
	} {
		checkJSON(t, name, &Report{Keys: map[string]Key{"k": {Value: v}}})
	}
}

// FuzzJSONMatchesEncoder renders arbitrary decoded JSON documents and
// strings through both encoders.
func FuzzJSONMatchesEncoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, "x", null, true, {"b": 1.5e3}]}`, `"\u2028<\ud800>"`, `[]`, `{}`, `-0.0`} {
		f.Add([]byte(s), "source\x01\xff")
	}
	f.Fuzz(func(t *testing.T, data []byte, s string) {
		doc, err := jsonpos.Parse(data, jsonpos.Options{})
		var v any = string(data)
		if err == nil {
			v = doc.Value
		}
		rep := &Report{Layers: []layers.LayerInfo{{Source: s, Reason: s}}, Keys: map[string]Key{
			s: {Value: v, Source: s, Overrides: []Step{{Value: v, Source: s}}, Refused: []Refusal{{Value: s, Reason: s}}},
		}, Blocking: s, Requirements: Requirements{Status: s, Warnings: []string{s}}}
		checkJSON(t, "fuzz", rep)
	})
}

// Package provenance is the vocabulary for "where did this setting come from",
// shared by the config loader (layers), the admin tools and the runtime
// (agent/permission): the layer a value came from, the file, line and column
// that set it, the lower-layer values it overrode, whether requirements pinned
// it, and values that were asked for and refused.
//
// It imports only the standard library so that both sides of the product can
// depend on it without depending on each other.
package provenance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Layer is one configuration layer. Later layers win key by key.
type Layer int

// The layers, lowest first (docs/configuration.md).
const (
	Default Layer = iota
	Project
	User
	Session
	Managed
	Requirements
)

var layerNames = [...]string{"default", "project", "user", "session", "managed", "requirements"}

// Layers returns every layer, lowest first.
func Layers() []Layer {
	return []Layer{Default, Project, User, Session, Managed, Requirements}
}

func (l Layer) String() string {
	if l < 0 || int(l) >= len(layerNames) {
		return "layer(" + strconv.Itoa(int(l)) + ")"
	}
	return layerNames[l]
}

// ParseLayer is the inverse of Layer.String.
func ParseLayer(s string) (Layer, error) {
	for i, n := range layerNames {
		if n == s {
			return Layer(i), nil
		}
	}
	return 0, fmt.Errorf("parse layer %q: unknown layer (want one of %s)", s, strings.Join(layerNames[:], ", "))
}

// MarshalText writes the layer's name.
func (l Layer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a layer's name.
func (l *Layer) UnmarshalText(b []byte) error {
	v, err := ParseLayer(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Origin says where one value came from.
type Origin struct {
	Layer  Layer  `json:"layer"`
	Source string `json:"source"`           // a file path, "env:OC_X", "flag:--x", "builtin", "mdm:…", "registry:…"
	Line   int    `json:"line,omitempty"`   // 1-based; 0 when the source has no lines
	Column int    `json:"column,omitempty"` // 1-based; 0 when the source has no lines
	Pinned bool   `json:"pinned,omitempty"` // set by a requirements pin: no lower layer can change it
}

// String renders "layer source:line:col" (line and column only when known).
func (o Origin) String() string {
	pin := ""
	if o.Pinned {
		pin = " (pinned)"
	}
	if loc := o.Location(); loc != "" {
		return o.Layer.String() + " " + loc + pin
	}
	return o.Layer.String() + pin
}

// Location renders "source:line:col", "source:line" or "source".
func (o Origin) Location() string {
	switch {
	case o.Source == "":
		return ""
	case o.Line > 0 && o.Column > 0:
		return o.Source + ":" + strconv.Itoa(o.Line) + ":" + strconv.Itoa(o.Column)
	case o.Line > 0:
		return o.Source + ":" + strconv.Itoa(o.Line)
	}
	return o.Source
}

// Value is a value together with its origin: one step of an override chain.
type Value struct {
	Value  any    `json:"value"`
	Origin Origin `json:"origin"`
}

// Refusal is a value that a layer asked for and that was not applied, with
// the reason (for instance bypassPermissions locked out by requirements, or a
// user value shadowed by a pin).
type Refusal struct {
	Value  any    `json:"value"`
	Origin Origin `json:"origin"`
	Reason string `json:"reason"`
}

// Entry is the provenance of one effective key.
type Entry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Origin Origin `json:"origin"`
	// Merge is how the key's layers were combined: "replace", "append" or "union".
	Merge string `json:"merge,omitempty"`
	// Overrides lists the lower-layer values this one overrode, highest layer first.
	Overrides []Value `json:"overrides,omitempty"`
	// Contributors lists, for append and union keys, every layer's value that
	// went into the merged result, lowest layer first.
	Contributors []Value `json:"contributors,omitempty"`
	// Refused lists values asked for and not applied, with the reason.
	Refused []Refusal `json:"refused,omitempty"`
}

// Map holds the provenance of every effective key, by dotted key path.
type Map map[string]*Entry

// Keys returns the map's keys in sorted order.
func (m Map) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WithPrefix returns the sorted keys equal to prefix or below it (prefix
// followed by "." or "[").
func (m Map) WithPrefix(prefix string) []string {
	var out []string
	for _, k := range m.Keys() {
		if HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// HasPrefix reports whether key is prefix or lies below it in the key tree.
func HasPrefix(key, prefix string) bool {
	if prefix == "" || key == prefix {
		return true
	}
	if !strings.HasPrefix(key, prefix) {
		return false
	}
	next := key[len(prefix)]
	return next == '.' || next == '['
}

package layers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"sort"
	"strings"

	kmaps "github.com/knadh/koanf/maps"
	"github.com/knadh/koanf/v2"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/policycheck"
	"github.com/oceancode/oceancode/provenance"
	"github.com/oceancode/oceancode/schema"
)

// merger accumulates layers into the merged values and Resolved
// (provenance). The values are merged by mergeInto into conf, a nested map
// the merger owns, and handed to koanf once, by finish. (Loading each layer
// into koanf with mergeInto as its merge function gave the same values, but
// koanf deep-copies its whole map by reflection before every merge and
// re-flattens it after: a tenth of a cold `inspect` process.)
type merger struct {
	r    *Resolved
	conf map[string]any // the merged values so far, nested; nothing else refers to its maps
	cur  map[string]any // the layer being walked, normalised, nested
}

func newMerger(r *Resolved) *merger {
	return &merger{r: r, conf: map[string]any{}}
}

// mapProvider hands a ready map to koanf.
type mapProvider map[string]any

func (p mapProvider) ReadBytes() ([]byte, error)    { return nil, errors.New("mapProvider has no bytes") }
func (p mapProvider) Read() (map[string]any, error) { return p, nil }

// defaults are the built-in layer.
func defaults() map[string]any {
	return map[string]any{
		"permission_mode": "default",
		"sandbox":         map[string]any{"enabled": false, "network": "off"},
		"jev":             map[string]any{"enabled": false, "permissions": "shadow", "deadline_ms": json.Number("1500")},
	}
}

// envTable maps the session-layer environment variables to config keys.
var envTable = []struct{ Env, Key string }{
	{"OC_PERMISSION_MODE", "permission_mode"},
	{"OC_SANDBOX_MODE", "sandbox.mode"},
	{"OC_SANDBOX_NETWORK", "sandbox.network"},
	{"OC_MODEL", "model"},
}

func envSettings(getenv func(string) string) []Setting {
	var out []Setting
	for _, e := range envTable {
		if v := getenv(e.Env); v != "" {
			out = append(out, Setting{Key: e.Key, Value: v, Source: "env:" + e.Env})
		}
	}
	return out
}

// addMap adds a whole layer from a Go map (the defaults).
func (m *merger) addMap(o provenance.Origin, v map[string]any) {
	m.cur = map[string]any{}
	m.walk(o, nil, v, nil)
	m.load(o.Layer)
}

// addFile adds one config file of a layer. required reports a missing file
// as an error (a file named explicitly, by a flag or $OC_MANAGED_CONFIG,
// must exist: a policy that silently vanished is not applied by accident).
func (m *merger) addFile(layer provenance.Layer, path string, kind schema.Kind, required bool) {
	doc, _, err := parseFile(path)
	m.addDoc(layer, path, doc, err, kind, required)
}

// addData adds a config document that an OS-native managed source holds
// (source names it), with the same checks as a file.
func (m *merger) addData(layer provenance.Layer, source string, data []byte, kind schema.Kind) {
	doc, err := parseData(data)
	m.addDoc(layer, source, doc, err, kind, true)
}

// addDoc adds one parsed document (err: why it could not be read or parsed).
func (m *merger) addDoc(layer provenance.Layer, path string, doc *jsonpos.Doc, err error, kind schema.Kind, required bool) {
	root, ok := m.checkDoc(layer, path, doc, err, kind, required)
	if !ok {
		return
	}
	m.cur = map[string]any{}
	m.walk(provenance.Origin{Layer: layer, Source: path}, nil, root, doc)
	m.load(layer)
}

// checkDoc checks one parsed document (err: why it could not be read or
// parsed) and records its LayerInfo; it returns the document's object
// without its unknown keys, and ok false when the layer is not applied.
func (m *merger) checkDoc(layer provenance.Layer, path string, doc *jsonpos.Doc, err error, kind schema.Kind, required bool) (map[string]any, bool) {
	info := LayerInfo{Layer: layer, Source: path, Status: StatusUsed}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if required {
				msg := "file not found"
				m.diag(Diagnostic{Severity: Error, Layer: layer, Source: path, Message: msg})
				info.Status, info.Reason = StatusInvalid, msg
				m.r.Layers = append(m.r.Layers, info)
			}
			return nil, false
		}
		d := Diagnostic{Severity: Error, Layer: layer, Source: path, Message: err.Error()}
		var se *jsonpos.SyntaxError
		var de *jsonpos.DuplicateKeyError
		switch {
		case errors.As(err, &se):
			d.Line, d.Column, d.Message = se.Line, se.Column, "invalid JSON: "+se.Msg
		case errors.As(err, &de):
			d.Line, d.Column, d.Pointer, d.Message = de.Line, de.Column, de.Pointer, "duplicate key: "+de.Error()
		}
		m.diag(d)
		info.Status, info.Reason = StatusInvalid, d.Message
		m.r.Layers = append(m.r.Layers, info)
		return nil, false
	}
	if _, ok := doc.Value.(map[string]any); !ok {
		pos, _ := doc.Pos("")
		msg := "the file must hold a JSON object"
		m.diag(Diagnostic{Severity: Error, Layer: layer, Source: path, Line: pos.Line, Column: pos.Column, Message: msg})
		info.Status, info.Reason = StatusInvalid, msg
		m.r.Layers = append(m.r.Layers, info)
		return nil, false
	}
	var errs int
	var unknown []string
	// The schema, then the semantic checks oceanadmin validate runs too.
	for _, v := range append(schema.ValidateValue(kind, path, doc), policycheck.Config(path, doc)...) {
		d := Diagnostic{Severity: Error, Layer: layer, Source: path, Line: v.Line, Column: v.Column, Pointer: v.Pointer, Message: v.Message}
		hint, peerPermission, isPeer := "", false, false
		if v.UnknownKey {
			hint, peerPermission, isPeer = peerHint(v.Pointer)
			if isPeer {
				d.Message += "; " + hint
			}
		}
		if v.UnknownKey && !peerPermission && (layer == provenance.Project || layer == provenance.User) {
			d.Severity = Warning
			d.Message += "; the key is ignored"
			unknown = append(unknown, v.Pointer)
		} else {
			errs++
		}
		m.diag(d)
	}
	if errs > 0 {
		info.Status = StatusInvalid
		info.Reason = fmt.Sprintf("%d schema violation(s); the layer is not applied", errs)
		m.r.Layers = append(m.r.Layers, info)
		return nil, false
	}
	for _, p := range unknown {
		deletePointer(doc.Value, p)
	}
	if len(unknown) > 0 {
		info.Reason = fmt.Sprintf("%d unknown key(s) ignored", len(unknown))
	}
	m.r.Layers = append(m.r.Layers, info)
	root := doc.Value.(map[string]any)
	delete(root, "$schema")
	return root, true
}

// addSettings adds settings that come from no file: the session layer's
// flags and environment variables, or probes injected into another layer.
func (m *merger) addSettings(layer provenance.Layer, settings []Setting) {
	for _, s := range settings {
		segs, err := provenance.SplitKey(s.Key)
		if err != nil {
			m.diag(Diagnostic{Severity: Error, Layer: layer, Source: s.Source, Message: err.Error()})
			continue
		}
		doc := nest(segs, s.Value)
		b, _ := json.Marshal(doc)
		jd, err := jsonpos.Parse(b, jsonpos.Options{})
		if err == nil {
			bad := false
			for _, v := range schema.ValidateValue(schema.Config, s.Source, jd) {
				m.diag(Diagnostic{Severity: Error, Layer: layer, Source: s.Source,
					Message: fmt.Sprintf("%s: %s (fix the flag or environment variable)", s.Key, strings.TrimPrefix(v.Message, v.Pointer+": "))})
				bad = true
			}
			if bad {
				m.r.Layers = append(m.r.Layers, LayerInfo{Layer: layer, Source: s.Source, Status: StatusInvalid, Reason: "invalid value for " + s.Key})
				continue
			}
		}
		m.r.Layers = append(m.r.Layers, LayerInfo{Layer: layer, Source: s.Source, Status: StatusUsed})
		m.cur = map[string]any{}
		m.walk(provenance.Origin{Layer: layer, Source: s.Source}, nil, doc, nil)
		m.load(layer)
	}
}

func (m *merger) diag(d Diagnostic) { m.r.Diagnostics = append(m.r.Diagnostics, d) }

// isRuleMap reports whether path is a permission rule map: tool → action or
// tool → {pattern → action}.
func isRuleMap(path []string) bool {
	return (len(path) == 1 && path[0] == "permission") ||
		(len(path) == 3 && path[0] == "agents" && path[2] == "permission")
}

// walk records every leaf of v under path. doc, when set, gives positions
// and the order of members. path is used as a stack: walk appends to it,
// and nothing it calls keeps it (leaf clones what it keeps).
func (m *merger) walk(o provenance.Origin, path []string, v any, doc *jsonpos.Doc) {
	mv, isMap := v.(map[string]any)
	if isMap && isRuleMap(path) {
		for _, tool := range m.orderedKeys(path, mv, doc) {
			tp := append(path, tool)
			switch a := mv[tool].(type) {
			case string: // "bash": "ask" is shorthand for {"*": "ask"}
				m.leaf(m.at(o, tp, doc), append(tp, "*"), a)
			case map[string]any:
				for _, pat := range m.orderedKeys(tp, a, doc) {
					pp := append(tp, pat)
					m.leaf(m.at(o, pp, doc), pp, a[pat])
				}
			}
		}
		return
	}
	if isMap {
		// An empty object sets nothing: layers add keys, and a higher
		// layer's {} neither creates a key nor clears a lower layer's.
		for _, k := range m.orderedKeys(path, mv, doc) {
			m.walk(o, append(path, k), mv[k], doc)
		}
		return
	}
	if len(path) > 0 {
		m.leaf(m.at(o, path, doc), path, v)
		if list, ok := v.([]any); ok {
			m.itemLines(path, len(list), doc) // hooks.go
		}
	}
}

// at returns o with the line and column of path in doc.
func (m *merger) at(o provenance.Origin, path []string, doc *jsonpos.Doc) provenance.Origin {
	if doc != nil {
		if p, ok := doc.Pos(jsonpos.Pointer(path...)); ok {
			o.Line, o.Column = p.Line, p.Column
		}
	}
	return o
}

// orderedKeys returns a map's keys in document order (by position), or
// sorted when there is no document.
func (m *merger) orderedKeys(path []string, mv map[string]any, doc *jsonpos.Doc) []string {
	keys := make([]string, 0, len(mv))
	for k := range mv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if doc != nil && len(keys) > 1 {
		// Each key's offset once (not once per comparison), then a stable sort by it.
		type keyOff struct {
			key string
			off int
		}
		ko := make([]keyOff, len(keys))
		prefix := jsonpos.Pointer(path...) + "/"
		for i, k := range keys {
			p, _ := doc.Pos(prefix + jsonpos.Pointer(k)[1:])
			ko[i] = keyOff{k, p.Offset}
		}
		sort.SliceStable(ko, func(i, j int) bool { return ko[i].off < ko[j].off })
		for i := range ko {
			keys[i] = ko[i].key
		}
	}
	return keys
}

// leaf records one effective leaf: its provenance entry, list items, rules,
// and its place in the layer's map for koanf.
func (m *merger) leaf(o provenance.Origin, path []string, v any) {
	key := provenance.KeyPath(path...)
	strategy := schema.MergeOf(path)
	if mv, ok := v.(map[string]any); ok {
		// Only from a setting or probe the schema did not vet; the merged
		// values own their maps (mergeInto changes them in place).
		setNested(m.cur, path, kmaps.Copy(mv))
	} else {
		setNested(m.cur, path, v)
	}
	if len(path) >= 3 && isRuleMap(path[:len(path)-2]) {
		if a, ok := v.(string); ok {
			m.r.Rules = append(m.r.Rules, Rule{Path: clone(path), Action: a, Origin: o})
		}
	}
	list, isList := v.([]any)
	if isList {
		items := m.r.Lists[key]
		if strategy == schema.Replace {
			items = nil
		}
		for _, it := range list {
			if strategy == schema.Union && containsItem(items, it) {
				continue
			}
			items = append(items, Item{Value: it, Origin: o})
		}
		m.r.Lists[key] = items
	}
	e := m.r.Entries[key]
	if e == nil {
		e = &provenance.Entry{Key: key, Value: v, Origin: o, Merge: string(strategy)}
		if isList && strategy != schema.Replace {
			e.Contributors = []provenance.Value{{Value: v, Origin: o}}
		}
		m.r.Entries[key] = e
		return
	}
	if isList && strategy != schema.Replace {
		e.Contributors = append(e.Contributors, provenance.Value{Value: v, Origin: o})
		vals := make([]any, 0, len(m.r.Lists[key]))
		for _, it := range m.r.Lists[key] {
			vals = append(vals, it.Value)
		}
		e.Value, e.Origin = vals, o
		return
	}
	e.Overrides = append([]provenance.Value{{Value: e.Value, Origin: e.Origin}}, e.Overrides...)
	e.Value, e.Origin = v, o
}

// load merges the layer just walked into the merged values, honouring
// x-merge.
func (m *merger) load(layer provenance.Layer) {
	if len(m.cur) == 0 {
		return
	}
	kmaps.IntfaceKeysToStrings(m.cur) // as koanf's Load does to what it merges
	mergeInto(m.conf, m.cur, nil)
	m.cur = nil
}

// get returns the merged value at path, or nil.
func (m *merger) get(path []string) any {
	var v any = m.conf
	for _, seg := range path {
		mv, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = mv[seg]; !ok {
			return nil
		}
	}
	return v
}

// delete removes the merged value at path, and the maps on the way that it
// leaves empty (as koanf's Delete does).
func (m *merger) delete(path []string) {
	var del func(mv map[string]any, path []string)
	del = func(mv map[string]any, path []string) {
		next, ok := mv[path[0]]
		if !ok {
			return
		}
		if len(path) == 1 {
			delete(mv, path[0])
			return
		}
		if sub, ok := next.(map[string]any); ok {
			del(sub, path[1:])
			if len(sub) == 0 {
				delete(mv, path[0])
			}
		}
	}
	if len(path) > 0 {
		del(m.conf, path)
	}
}

// mergeInto merges src into dst: maps recursively, lists by their x-merge
// strategy, everything else replaced.
func mergeInto(dst, src map[string]any, path []string) {
	for k, sv := range src {
		p := append(path, k) // a stack: MergeOf and the recursion keep no reference to it
		switch s := sv.(type) {
		case map[string]any:
			if d, ok := dst[k].(map[string]any); ok {
				mergeInto(d, s, p)
				continue
			}
			if len(s) > 0 {
				dst[k] = s
			}
		case []any:
			d, ok := dst[k].([]any)
			switch strategy := schema.MergeOf(p); {
			case ok && strategy == schema.Append:
				dst[k] = append(append([]any{}, d...), s...)
			case ok && strategy == schema.Union:
				out := append([]any{}, d...)
				for _, it := range s {
					if !containsValue(out, it) {
						out = append(out, it)
					}
				}
				dst[k] = out
			default:
				dst[k] = s
			}
		default:
			dst[k] = sv
		}
	}
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

func containsItem(items []Item, v any) bool {
	for _, x := range items {
		if reflect.DeepEqual(x.Value, v) {
			return true
		}
	}
	return false
}

// finish hands the merged values to koanf: one Load into an empty koanf,
// which takes the map as it is and flattens it once.
func (m *merger) finish() {
	k := koanf.NewWithConf(koanf.Conf{Delim: Delim})
	_ = k.Load(mapProvider(m.conf), nil) // a mapProvider never fails; nor does a merge into an empty koanf
	m.conf = nil
	m.r.K = k
	sort.Strings(m.r.Locks.Pinned)
}

func setNested(root map[string]any, path []string, v any) {
	cur := root
	for _, s := range path[:len(path)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[s] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = v
}

func nest(segs []string, v any) map[string]any {
	m := map[string]any{}
	setNested(m, segs, v)
	return m
}

func clone(p []string) []string { return append([]string(nil), p...) }

// deletePointer removes the member a JSON Pointer names from v.
func deletePointer(v any, ptr string) {
	toks, err := jsonpos.Split(ptr)
	if err != nil || len(toks) == 0 {
		return
	}
	cur := v
	for _, t := range toks[:len(toks)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[t]
		default:
			return
		}
	}
	if mm, ok := cur.(map[string]any); ok {
		delete(mm, toks[len(toks)-1])
	}
}

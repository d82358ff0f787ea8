package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/provenance"
)

// Workspace trust (docs/trust.md). A project's config files are the
// repository author's words: before the project layer is merged, each of
// its files is split into the keys that tighten or change nothing (always
// applied) and the keys that loosen or run code (applied only in a trusted
// workspace). The split, the digest of the loosening half, and the decision
// are here; the trust records are in trustrecord.go, the signature in
// projectsig.go.

// Trust states of a workspace.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// ProjectConfig values of the requirements' project_config.
const (
	ProjectConfigTrust       = "trust"
	ProjectConfigTightenOnly = "tighten-only"
	ProjectConfigSigned      = "signed"
)

// ProjectMCPFile is the project's MCP server file, a project source that
// only loosens (each server runs a program).
const ProjectMCPFile = ".mcp.json"

// ProjectKey is one key of the project's config that loosens, where it is
// set, and what it would do.
type ProjectKey struct {
	Key    string `json:"key"`
	Source string `json:"source"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Value  any    `json:"value"`
	Why    string `json:"why"`
	file   string // the source relative to the project root, for the digest
	// path is the key's segments ("" for a .mcp.json server); unit and
	// unitValue are its unit and the unit's content (trustunits.go).
	path      []string
	unit      string
	unitValue any
}

// Location is "file:line:col".
func (k ProjectKey) Location() string {
	return provenance.Origin{Source: k.Source, Line: k.Line, Column: k.Column}.Location()
}

// String is "KEY at FILE:LINE (WHY)".
func (k ProjectKey) String() string {
	return fmt.Sprintf("%s at %s (%s)", k.Key, k.Location(), k.Why)
}

// Workspace is the project's trust: whether its loosening keys apply, why,
// and each of them.
type Workspace struct {
	// Root is the project root, absolute and symlink-resolved ("" = none).
	Root string `json:"root,omitempty"`
	// State is TrustTrusted or TrustUntrusted.
	State string `json:"state"`
	// Reason says how the state was decided.
	Reason string `json:"reason"`
	// ProjectConfig is the requirements' project_config in effect.
	ProjectConfig string `json:"project_config"`
	// Digest is the digest of the loosening config ("sha256:HEX"); a trust
	// record and a project signature are bound to it.
	Digest string `json:"digest,omitempty"`
	// Loosening lists every key of the project that loosens or runs code.
	Loosening []ProjectKey `json:"loosening,omitempty"`
	// Ignored lists the loosening keys that were not applied (all of
	// Loosening when untrusted, none when trusted).
	Ignored []ProjectKey `json:"ignored,omitempty"`
	// FlagRefused says why --trust-project was refused ("" = not given or
	// honoured). A command that was given the flag refuses to start.
	FlagRefused string `json:"flag_refused,omitempty"`
}

// Trusted reports whether the project's loosening keys apply.
func (w *Workspace) Trusted() bool { return w != nil && w.State == TrustTrusted }

// TrustedRoot reports whether the project's loosening files at root (a
// project root or working directory, e.g. where .mcp.json is read) may be
// applied: the workspace is trusted and root is the workspace's.
func (w *Workspace) TrustedRoot(root string) bool {
	return w.Trusted() && root != "" && CanonicalRoot(root) == w.Root
}

// projectDoc is one project config file, checked, waiting for the trust
// decision before it is merged.
type projectDoc struct {
	path string
	rel  string
	root map[string]any
	doc  *jsonpos.Doc
	kept map[string]any // root without its loosening keys
	info int            // index of its LayerInfo
}

// splitDoc separates a document's loosening keys from the rest: it returns
// the document without them and lists each one.
func splitDoc(v map[string]any, doc *jsonpos.Doc, source, rel string) (map[string]any, []ProjectKey) {
	var out []ProjectKey
	var walk func(path []string, v any) (any, bool)
	walk = func(path []string, v any) (any, bool) {
		// A rule map's tool given as "bash": "allow" is {"*": "allow"}.
		if s, ok := v.(string); ok && len(path) >= 2 && isRuleMap(path[:len(path)-1]) {
			return classifyLeaf(append(clone(path), "*"), s, path, doc, source, rel, &out)
		}
		if mv, ok := v.(map[string]any); ok && descend(path) {
			kept := map[string]any{}
			for _, k := range sortedKeys(mv) {
				if nv, keep := walk(append(clone(path), k), mv[k]); keep {
					kept[k] = nv
				}
			}
			return kept, len(kept) > 0
		}
		return classifyLeaf(path, v, path, doc, source, rel, &out)
	}
	kept, _ := walk(nil, v)
	// In the file's order, as a reader meets them.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	km, _ := kept.(map[string]any)
	if km == nil {
		km = map[string]any{}
	}
	return km, out
}

// descend reports whether splitDoc walks into the object at path: an object
// with no row of its own, or a subtree row's object, whose members (one
// server, one alias, one provider) are then listed one by one.
func descend(path []string) bool {
	r := rowFor(path)
	return len(path) == 0 || r == nil || (r.subtree && len(path) == len(r.pattern))
}

// classifyLeaf classifies one key (a leaf, or a subtree row's object) and
// records it when it loosens. at is the path of its position in the file.
func classifyLeaf(path []string, v any, at []string, doc *jsonpos.Doc, source, rel string, out *[]ProjectKey) (any, bool) {
	c, why := Classify(path, v)
	if c != Loosen {
		return v, true
	}
	k := ProjectKey{Key: provenance.KeyPath(path...), Source: source, Value: v, Why: why, file: rel, path: clone(path)}
	if doc != nil {
		if p, ok := doc.Pos(jsonpos.Pointer(at...)); ok {
			k.Line, k.Column = p.Line, p.Column
		}
	}
	*out = append(*out, k)
	return nil, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// LooseningDigest is the digest of a project's loosening config: each
// key's file (relative to the project root), name and value, and each
// key's unit with the keys that qualify it (trustunits.go), in a fixed
// order. Positions are not part of it, nor are tightening keys outside
// those units, so reformatting a file or adding a deny rule for another
// tool does not ask again.
func LooseningDigest(keys []ProjectKey) string {
	lines := make([]string, 0, len(keys))
	units := map[string]bool{}
	for _, k := range keys {
		lines = append(lines, k.file+"\x00"+k.Key+"\x00"+digestJSON(k.Value))
		if k.unit != "" && !units[k.unit] {
			units[k.unit] = true
			lines = append(lines, "unit\x00"+k.unit+"\x00"+digestJSON(k.unitValue))
		}
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// digestJSON is v as JSON for the digest.
func digestJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%q", fmt.Sprint(v))
	}
	return string(b)
}

// CanonicalRoot is the key a workspace's trust is recorded under: the
// absolute, symlink-resolved project root.
func CanonicalRoot(root string) string {
	if root == "" {
		return ""
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// TrustOptions are the inputs of the trust decision.
type TrustOptions struct {
	// Project is --trust-project: trust this workspace for this process.
	Project bool
	// Pinned binds Project to the loosening config the process started
	// with: the flag trusts only a config whose digest is Digest ("" =
	// one that loosened nothing). serve and the pager resolve the files
	// again for every session; unpinned, a config changed while they run
	// (by a session, a pull) would apply to the next session unreviewed.
	Pinned bool
	Digest string
	// All trusts every project (oceanadmin simulate names the project
	// files itself). Never set from user input.
	All bool
}

// decideTrust sets r.Workspace from the project's loosening keys, the
// requirements' project_config, the trust records, the flag and the
// project's signature.
func (r *Resolved) decideTrust(o Options, root string, loosening []ProjectKey, policy, stateDir string, signers []string) {
	w := &Workspace{Root: CanonicalRoot(root), ProjectConfig: policy, Loosening: loosening, State: TrustUntrusted}
	r.Workspace = w
	if len(loosening) > 0 {
		w.Digest = LooseningDigest(loosening)
	}
	flagRefused := func(why string) {
		if o.Trust.Project {
			w.FlagRefused = "--trust-project refused: " + why
		}
	}
	switch {
	case len(loosening) == 0:
		w.State, w.Reason = TrustTrusted, "the project's config loosens nothing"
		if policy == ProjectConfigTightenOnly {
			w.State, w.Reason = TrustUntrusted, "the requirements' project_config is tighten-only (the project's config loosens nothing)"
		}
		if policy != ProjectConfigTrust {
			flagRefused("the requirements' project_config is " + policy)
		}
		return
	case policy == ProjectConfigTightenOnly:
		w.Reason = "the requirements' project_config is tighten-only: the project's config never loosens"
		flagRefused("the requirements' project_config is tighten-only; only the keys that tighten apply")
	case policy == ProjectConfigSigned:
		flagRefused("the requirements' project_config is signed; the project's config loosens only with a signature from a repo_signers key (oceanadmin sign-project)")
		signer, err := verifyProjectSignature(root, w.Digest, signers)
		if err != nil {
			w.Reason = "the requirements' project_config is signed: " + err.Error()
		} else {
			w.State, w.Reason = TrustTrusted, "signed by repo_signers key "+signer
		}
	case o.Trust.All:
		w.State, w.Reason = TrustTrusted, "the project files were named explicitly"
	case o.Trust.Project && o.Trust.Pinned && o.Trust.Digest != w.Digest:
		w.Reason = "not trusted: the project's loosening config changed since --trust-project trusted it when this process started; review it ('oceancode inspect') and start again"
	case o.Trust.Project:
		w.State, w.Reason = TrustTrusted, "trusted for this run by --trust-project"
	default:
		w.State, w.Reason = decideByRecord(stateDir, w.Root, w.Digest)
	}
	if !w.Trusted() {
		w.Ignored = loosening
	}
}

// decideByRecord looks the workspace up in the trust records.
func decideByRecord(stateDir, root, digest string) (string, string) {
	if stateDir == "" {
		return TrustUntrusted, "not trusted: no state directory holds trust records; run with --trust-project to trust it for one run"
	}
	rec, ok, err := NewTrustStore(stateDir).Lookup(root)
	switch {
	case err != nil:
		return TrustUntrusted, "not trusted: " + err.Error()
	case !ok:
		return TrustUntrusted, "not trusted: no trust record; run 'oceancode trust' to trust it"
	case rec.Digest != digest:
		return TrustUntrusted, fmt.Sprintf("not trusted: the project's loosening config changed since it was trusted on %s; review it ('oceancode inspect') and run 'oceancode trust' again", rec.TrustedAt.Format("2006-01-02"))
	}
	return TrustTrusted, "trusted by the record of " + rec.TrustedAt.Format("2006-01-02 15:04 UTC")
}

// mergeProject decides the workspace's trust and merges the project's
// documents: whole when trusted, without their loosening keys when not.
func (m *merger) mergeProject(o Options, docs []projectDoc, policy, stateDir string, signers []string) {
	var loosening []ProjectKey
	for i := range docs {
		d := &docs[i]
		var keys []ProjectKey
		d.kept, keys = splitDoc(d.root, d.doc, d.path, d.rel)
		loosening = append(loosening, keys...)
	}
	qualify(loosening, docs)
	// The workspace is the project root, else the working directory (where
	// the MCP loader looks for .mcp.json then).
	root := m.r.ProjectRoot
	if root == "" && o.Explicit == nil {
		root = o.Dir
	}
	if root != "" {
		loosening = append(loosening, mcpFileKeys(root)...)
	}
	if m.r.ProjectRoot == "" && len(docs) == 0 && len(loosening) == 0 {
		m.r.Workspace = &Workspace{Root: CanonicalRoot(root), State: TrustTrusted, Reason: "no project config", ProjectConfig: policy}
		return
	}
	m.r.decideTrust(o, root, loosening, policy, stateDir, signers)
	trusted := m.r.Workspace.Trusted()
	for _, d := range docs {
		v := d.root
		if !trusted {
			v = d.kept
			if n := countFrom(m.r.Workspace.Ignored, d.path); n > 0 {
				info := &m.r.Layers[d.info]
				info.Reason = strings.TrimPrefix(info.Reason+fmt.Sprintf("; %d loosening key(s) ignored: the workspace is not trusted", n), "; ")
			}
		}
		m.cur = map[string]any{}
		m.walk(provenance.Origin{Layer: provenance.Project, Source: d.path}, nil, v, d.doc)
		m.load(provenance.Project)
	}
}

func countFrom(keys []ProjectKey, source string) int {
	n := 0
	for _, k := range keys {
		if k.Source == source {
			n++
		}
	}
	return n
}

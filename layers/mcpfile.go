package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/provenance"
)

// ProjectMCP is a project's .mcp.json as both the trust split and the MCP
// loader read it: one strict parse (duplicate keys and comments refused,
// as for config files), and only the exact member "mcpServers". A lenient
// second reader (encoding/json matches "McpServers" and takes the last of
// duplicate keys) would start servers the split never listed.
type ProjectMCP struct {
	Path    string
	Doc     *jsonpos.Doc
	Servers map[string]any // name → definition, as written
}

// ReadProjectMCP reads the .mcp.json of the workspace at root. A missing
// file is (nil, nil); one that does not parse, or whose mcpServers is not
// an object of objects, is an error.
func ReadProjectMCP(root string) (*ProjectMCP, error) {
	path := filepath.Join(root, ProjectMCPFile)
	p, err := readProjectMCP(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return p, nil
}

// readProjectMCP is ReadProjectMCP with errors that do not name the file.
func readProjectMCP(path string) (*ProjectMCP, error) {
	doc, _, err := parseFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	top, ok := doc.Value.(map[string]any)
	if !ok {
		return nil, errors.New("the file must hold a JSON object")
	}
	p := &ProjectMCP{Path: path, Doc: doc, Servers: map[string]any{}}
	raw, ok := top["mcpServers"]
	if !ok {
		return p, nil
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("mcpServers must be an object of servers by name")
	}
	for name, s := range servers {
		if _, ok := s.(map[string]any); !ok {
			return nil, fmt.Errorf("mcpServers[%q] must be an object", name)
		}
	}
	p.Servers = servers
	return p, nil
}

// mcpFileKeys lists the servers of the project's .mcp.json as loosening
// keys. A file that cannot be read as ReadProjectMCP reads it is one
// loosening key of its own (its content's digest as the value): it never
// counts as a file that loosens nothing, and the MCP loader refuses it.
func mcpFileKeys(root string) []ProjectKey {
	p, err := readProjectMCP(filepath.Join(root, ProjectMCPFile))
	if err != nil {
		return []ProjectKey{brokenMCPKey(root, err)}
	}
	if p == nil {
		return nil
	}
	var out []ProjectKey
	for _, name := range sortedKeys(p.Servers) {
		k := ProjectKey{Key: provenance.KeyPath("mcpServers", name), Source: p.Path, Value: p.Servers[name],
			Why: "an MCP server runs a program when the session opens", file: ProjectMCPFile}
		if pos, ok := p.Doc.Pos(jsonpos.Pointer("mcpServers", name)); ok {
			k.Line, k.Column = pos.Line, pos.Column
		}
		out = append(out, k)
	}
	return out
}

// brokenMCPKey is the loosening key that stands for a .mcp.json that does
// not read: its value is the digest of its bytes, so any change to the
// file changes the workspace's digest.
func brokenMCPKey(root string, err error) ProjectKey {
	path := filepath.Join(root, ProjectMCPFile)
	sum := "unreadable"
	if _, data, _ := parseFile(path); data != nil {
		h := sha256.Sum256(data)
		sum = "sha256:" + hex.EncodeToString(h[:])
	}
	k := ProjectKey{Key: "mcpServers", Source: path, Value: sum, file: ProjectMCPFile,
		Why: "the file does not read as MCP servers (" + err.Error() + "); its servers may run programs"}
	var se *jsonpos.SyntaxError
	var de *jsonpos.DuplicateKeyError
	switch {
	case errors.As(err, &se):
		k.Line, k.Column = se.Line, se.Column
	case errors.As(err, &de):
		k.Line, k.Column = de.Line, de.Column
	}
	return k
}

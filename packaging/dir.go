package packaging

import (
	"embed"
	"encoding/json"
	"strings"
	"text/template"
)

//go:embed snippets/*
var snippetFS embed.FS

var snippets = template.Must(template.ParseFS(snippetFS, "snippets/*"))

// Snippets maps each config-management snippet the dir format writes to
// its file name in the output directory.
var Snippets = map[string]string{
	"ansible.yml": "ansible/oceancode-policy.yml",
	"puppet.pp":   "puppet/oceancode_policy.pp",
	"chef.rb":     "chef/oceancode_policy.rb",
	"salt.sls":    "salt/oceancode-policy.sls",
}

// ManifestFile names the serial, the payload hash and every file's hash.
const ManifestFile = "MANIFEST.json"

// dir lays out the managed dir as etc/oceancode/ for any config-management
// tool, with MANIFEST.json and the Ansible, Puppet, Chef and Salt snippets
// that install it with oceanadmin as their validate hook.
func dir(in Inputs) ([]Artefact, error) {
	var out []Artefact
	manifest := struct {
		Banner        string            `json:"description"`
		Serial        int64             `json:"serial"`
		PayloadSHA256 string            `json:"payload_sha256"`
		Org           string            `json:"org,omitempty"`
		Files         map[string]string `json:"files_sha256"`
	}{in.banner(), in.Policy.Serial, in.Policy.PayloadSHA256, in.Policy.Org, map[string]string{}}
	for _, f := range in.installed() {
		name := strings.TrimPrefix(ManagedDir, "/") + "/" + f.name
		out = append(out, Artefact{name, f.data})
		manifest.Files[name] = sha256Hex(f.data)
	}
	for _, src := range []string{"ansible.yml", "puppet.pp", "chef.rb", "salt.sls"} {
		data, err := Snippet(src, in)
		if err != nil {
			return nil, err
		}
		out = append(out, Artefact{Snippets[src], data})
	}
	m, _ := json.MarshalIndent(manifest, "", "  ")
	out = append(out, Artefact{ManifestFile, append(m, '\n')})
	return out, nil
}

// Snippet renders one config-management snippet for in. The templates
// are given no policy text: only the stamp (serial and payload hash) for
// their first comment line, and whether a managed config is installed. A
// YAML or Ruby comment cannot escape anything, Salt renders a state through
// Jinja before YAML, and Ruby reads magic comments, so text such as an org
// never reaches them (it is in MANIFEST.json).
func Snippet(name string, in Inputs) ([]byte, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	var b strings.Builder
	err := snippets.ExecuteTemplate(&b, name, struct {
		Banner  string
		Managed bool
	}{in.stamp(), in.Managed != nil})
	if err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

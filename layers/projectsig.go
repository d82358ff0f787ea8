package layers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/oceancode/oceancode/requirements"
	"github.com/oceancode/oceancode/schema"
	"github.com/oceancode/oceancode/signing"
)

// ProjectSignatureFile is the project's detached signature, relative to the
// project root: a DSSE envelope (signing's format) of payload type
// ProjectPayloadType over ProjectSignaturePayload, written by `oceanadmin
// sign-project`. Under the requirements' project_config "signed" the
// project's loosening config applies only when this file verifies under a
// key of repo_signers and names the digest of that config.
var ProjectSignatureFile = filepath.Join(".oceancode", "oceancode.sig")

// ProjectPayloadType is the DSSE payload type of a project signature.
const ProjectPayloadType = "application/vnd.oceancode.project-config+json"

// ProjectSignaturePayload is what a project signature vouches for: the
// digest of the project's loosening config (LooseningDigest).
type ProjectSignaturePayload struct {
	Digest string `json:"digest"`
}

// ProjectLoosening lists the loosening keys of the project at root (its
// .oceancode/oceancode.json, .oceancode/oceancode.local.json and
// .mcp.json) and their digest, as the loader computes them. A file that
// does not parse is an error.
func ProjectLoosening(root string) ([]ProjectKey, string, error) {
	var all []ProjectKey
	var docs []projectDoc
	for _, rel := range projectFileNames {
		path := filepath.Join(root, rel)
		doc, _, err := parseFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("read project config %s: %w", path, err)
		}
		v, ok := doc.Value.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("read project config %s: the file must hold a JSON object", path)
		}
		// As the loader does: unknown keys are dropped (a warning there),
		// any other violation refuses the file.
		for _, viol := range schema.ValidateValue(schema.Config, path, doc) {
			if !viol.UnknownKey {
				return nil, "", fmt.Errorf("read project config %s: %s", path, viol.Message)
			}
			deletePointer(v, viol.Pointer)
		}
		delete(v, "$schema")
		_, keys := splitDoc(v, doc, path, rel)
		all = append(all, keys...)
		docs = append(docs, projectDoc{path: path, rel: rel, root: v, doc: doc})
	}
	qualify(all, docs)
	all = append(all, mcpFileKeys(root)...)
	if len(all) == 0 {
		return nil, "", nil
	}
	return all, LooseningDigest(all), nil
}

// projectFileNames are the project layer's files, relative to its root.
var projectFileNames = []string{
	filepath.Join(".oceancode", "oceancode.json"),
	filepath.Join(".oceancode", "oceancode.local.json"),
}

// verifyProjectSignature checks the project's signature against the
// requirements' repo_signers and the digest of its loosening config; it
// returns the short ID of the key that signed.
func verifyProjectSignature(root, digest string, signers []string) (string, error) {
	if len(signers) == 0 {
		return "", errors.New("the requirements name no repo_signers, so no project signature can verify")
	}
	keys := make([]signing.PublicKey, 0, len(signers))
	for _, s := range signers {
		k, err := signing.ParsePublicKey(s)
		if err != nil {
			return "", fmt.Errorf("read repo_signers: %w", err)
		}
		keys = append(keys, k)
	}
	path := filepath.Join(root, ProjectSignatureFile)
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("read project signature %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("the project carries no signature (%s); ask your administrator to sign it with 'oceanadmin sign-project'", ProjectSignatureFile)
		}
		return "", fmt.Errorf("read project signature %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, signing.MaxEnvelopeSize+1))
	if err != nil {
		return "", fmt.Errorf("read project signature %s: %w", path, err)
	}
	env, err := signing.ParseEnvelope(data)
	if err != nil {
		return "", fmt.Errorf("read project signature %s: %w", path, err)
	}
	v, err := signing.Verify(env, ProjectPayloadType, keys, 1)
	if err != nil {
		return "", fmt.Errorf("verify project signature %s: %w", path, err)
	}
	var p ProjectSignaturePayload
	if err := json.Unmarshal(v.Payload, &p); err != nil {
		return "", fmt.Errorf("read project signature %s: payload: %w", path, err)
	}
	if p.Digest != digest {
		return "", fmt.Errorf("verify project signature %s: it signs the loosening config %s, but the project's is now %s: the config changed after signing; ask your administrator to sign it again", path, p.Digest, digest)
	}
	return signing.ShortID(v.Signers[0]), nil
}

// projectPolicy returns the requirements' project_config (ProjectConfigTrust
// when no policy is in force or it does not say) and repo_signers.
func projectPolicy(res *requirements.Result) (string, []string) {
	if res == nil || res.Policy == nil || res.Policy.ProjectConfig == "" {
		if res != nil && res.Policy != nil {
			return ProjectConfigTrust, res.Policy.RepoSigners
		}
		return ProjectConfigTrust, nil
	}
	return res.Policy.ProjectConfig, res.Policy.RepoSigners
}

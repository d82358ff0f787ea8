package policycheck

import (
	"fmt"

	"github.com/oceancode/oceancode/internal/jsonpos"
	"github.com/oceancode/oceancode/signing"
)

// projectConfig checks the workspace-trust fields (docs/trust.md): every
// repo_signers entry is a public key, and project_config "signed" names at
// least one (else no project could ever loosen, which is tighten-only said
// obscurely).
func (c *checker) projectConfig(root map[string]any) {
	signers, _ := root["repo_signers"].([]any)
	for i, s := range signers {
		str, _ := s.(string)
		if _, err := signing.ParsePublicKey(str); err != nil {
			c.add(jsonpos.Pointer("repo_signers", fmt.Sprint(i)), "repo_signers", "repo_signers[%d] is not a public key: %v; give a key line as in trusted_keys (ed25519:BASE64, ssh-ed25519 …, or a minisign key)", i, err)
		}
	}
	if root["project_config"] == "signed" && len(signers) == 0 {
		c.add("/project_config", "repo_signers", `project_config "signed" needs repo_signers: list the public keys that sign projects (oceanadmin sign-project), or use "tighten-only"`)
	}
}

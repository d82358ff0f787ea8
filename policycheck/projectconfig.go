package policycheck

// projectConfig checks the workspace-trust fields (docs/trust.md):
// project_config "signed" names at least one repo_signers key (else no
// project could ever loosen, which is tighten-only said obscurely). That
// each key parses is requirements.Parse's check (policycheck does not link
// the key formats).
func (c *checker) projectConfig(root map[string]any) {
	signers, _ := root["repo_signers"].([]any)
	if root["project_config"] == "signed" && len(signers) == 0 {
		c.add("/project_config", "repo_signers", `project_config "signed" needs repo_signers: list the public keys that sign projects (oceanadmin sign-project), or use "tighten-only"`)
	}
}

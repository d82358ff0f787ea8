package mcplaunch

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnalyze(t *testing.T) {
	script := func(p string) Launch { return Launch{Kind: Script, Script: p} }
	inline := Launch{Kind: Inline}
	pkg := func(p ...string) Launch { return Launch{Kind: Package, Packages: p} }
	for _, c := range []struct {
		cmd  string
		args []string
		want Launch
		err  string // a substring of the ErrUnpinned error
	}{
		{cmd: "/usr/local/bin/github-mcp-server", args: []string{"stdio"}, want: Launch{Kind: Program}},
		{cmd: "python3", args: []string{"srv.py"}, want: script("srv.py")},
		{cmd: "/usr/bin/python3.12", args: []string{"-u", "-W", "ignore", "-X", "utf8", "srv.py", "-c", "x"}, want: script("srv.py")},
		{cmd: "python", args: []string{"-Wignore", "-OO", "--", "-srv.py"}, want: script("-srv.py")},
		{cmd: "python3", args: []string{"-c", "import os"}, want: inline},
		{cmd: "python3", args: []string{"-uc", "import os"}, want: inline},
		{cmd: "python3", args: []string{"-m", "mcp_server_git"}, err: "-m loads or runs code"},
		{cmd: "python3", args: []string{"-um", "mcp_server_git"}, err: "-m loads"},
		{cmd: "python3", args: nil, err: "stdin"},
		{cmd: "python3", args: []string{"-"}, err: "stdin"},
		{cmd: "C:\\Python312\\python.exe", args: []string{"srv.py"}, want: script("srv.py")},
		{cmd: "node", args: []string{"--enable-source-maps", "--title", "x", "dist/index.js"}, want: script("dist/index.js")},
		{cmd: "node", args: []string{"-e", "require('child_process')"}, want: inline},
		{cmd: "nodejs", args: []string{"--eval=1"}, want: inline},
		{cmd: "node", args: []string{"-p", "1"}, want: inline},
		{cmd: "node", args: []string{"-r", "./hook.js", "srv.js"}, err: "-r loads"},
		{cmd: "node", args: []string{"--import=tsx", "srv.ts"}, err: "--import loads"},
		{cmd: "tsx", args: []string{"srv.ts"}, want: script("srv.ts")},
		{cmd: "bun", args: []string{"srv.ts"}, want: script("srv.ts")},
		{cmd: "bun", args: []string{"run", "srv.ts"}, want: script("srv.ts")},
		{cmd: "bun", args: []string{"-e", "1"}, want: inline},
		{cmd: "bun", args: []string{"x", "pkg@1.2.3"}, want: pkg("pkg@1.2.3")},
		{cmd: "bun", args: []string{"x", "pkg"}, err: `pin it as "pkg@1.2.3"`},
		{cmd: "deno", args: []string{"run", "--allow-read", "-c", "deno.json", "srv.ts"}, want: script("srv.ts")},
		{cmd: "deno", args: []string{"run", "-A", "npm:@scope/srv@2.0.1"}, want: pkg("npm:@scope/srv@2.0.1")},
		{cmd: "deno", args: []string{"run", "-A", "npm:@scope/srv"}, err: "without an exact version"},
		{cmd: "deno", args: []string{"run", "jsr:@std/srv@^1.0.0"}, err: "without an exact version"},
		{cmd: "deno", args: []string{"run", "https://example.com/srv.ts"}, err: "download it"},
		{cmd: "deno", args: []string{"eval", "Deno.exit()"}, want: inline},
		{cmd: "deno", args: []string{"task", "start"}, err: "cannot be pinned"},
		{cmd: "ruby", args: []string{"-w", "-I", "lib", "srv.rb"}, want: script("srv.rb")},
		{cmd: "ruby", args: []string{"-e", "x"}, want: inline},
		{cmd: "ruby", args: []string{"-rjson", "srv.rb"}, err: "-r loads"},
		{cmd: "perl", args: []string{"-w", "srv.pl"}, want: script("srv.pl")},
		{cmd: "perl", args: []string{"-le", "print"}, want: inline},
		{cmd: "perl", args: []string{"-E", "say"}, want: inline},
		{cmd: "perl", args: []string{"-MIO::Socket", "srv.pl"}, err: "-M loads"},
		{cmd: "bash", args: []string{"srv.sh"}, want: script("srv.sh")},
		{cmd: "sh", args: []string{"-e", "-o", "pipefail", "srv.sh"}, want: script("srv.sh")},
		{cmd: "bash", args: []string{"-c", "exec srv"}, want: inline},
		{cmd: "bash", args: []string{"-xc", "exec srv"}, want: inline},
		{cmd: "zsh", args: []string{"-s"}, err: "-s loads"},
		{cmd: "php", args: []string{"-d", "x=1", "-f", "srv.php"}, want: script("srv.php")},
		{cmd: "php", args: []string{"-r", "system('x');"}, want: inline},
		{cmd: "java", args: []string{"-Xmx1g", "-jar", "srv.jar"}, want: script("srv.jar")},
		{cmd: "java", args: []string{"-cp", "lib/*", "Main"}, err: "-cp runs classes"},
		{cmd: "npx", args: []string{"-y", "@modelcontextprotocol/server-filesystem@2025.1.14", "/tmp"}, want: pkg("@modelcontextprotocol/server-filesystem@2025.1.14")},
		{cmd: "npx", args: []string{"-y", "pkg@1.2.3"}, want: pkg("pkg@1.2.3")},
		{cmd: "npx", args: []string{"pkg"}, err: `pin it as "pkg@1.2.3"`},
		{cmd: "npx", args: []string{"-y", "pkg@latest"}, err: "without an exact version"},
		{cmd: "npx", args: []string{"pkg@^1.2.3"}, err: "without an exact version"},
		{cmd: "npx", args: []string{"pkg@1.x"}, err: "without an exact version"},
		{cmd: "npx", args: []string{"github:evil/pkg"}, err: "without an exact version"},
		{cmd: "npx", args: []string{"./local-dir"}, err: "without an exact version"},
		{cmd: "npx", args: []string{"-p", "pkg@1.0.0", "-p", "other@2.0.0", "srv"}, want: pkg("pkg@1.0.0", "other@2.0.0")},
		{cmd: "npx", args: []string{"-p", "pkg", "srv"}, err: "without an exact version"},
		{cmd: "npx", args: []string{"--package=pkg@1.0.0", "srv"}, want: pkg("pkg@1.0.0")},
		{cmd: "npx", args: []string{"-c", "srv"}, err: "shell command line"},
		{cmd: "npx", args: []string{"--foo", "pkg@1.0.0"}, err: "option --foo is not known"},
		{cmd: "npm", args: []string{"exec", "--", "pkg@1.0.0"}, want: pkg("pkg@1.0.0")},
		{cmd: "npm", args: []string{"start"}, err: "cannot be pinned"},
		{cmd: "bunx", args: []string{"pkg@1.2.3"}, want: pkg("pkg@1.2.3")},
		{cmd: "pnpm", args: []string{"dlx", "pkg@1.2.3"}, want: pkg("pkg@1.2.3")},
		{cmd: "pnpm", args: []string{"dlx", "pkg"}, err: "without an exact version"},
		{cmd: "yarn", args: []string{"dlx", "-p", "pkg@1.2.3", "srv"}, want: pkg("pkg@1.2.3")},
		{cmd: "uvx", args: []string{"mcp-server-git==0.6.2"}, want: pkg("mcp-server-git==0.6.2")},
		{cmd: "uvx", args: []string{"mcp-server-git@0.6.2", "--repository", "."}, want: pkg("mcp-server-git@0.6.2")},
		{cmd: "uvx", args: []string{"mcp-server-git"}, err: `pin it as "mcp-server-git==1.2.3"`},
		{cmd: "uvx", args: []string{"mcp-server-git>=0.6"}, err: "without an exact version"},
		{cmd: "uvx", args: []string{"--from", "srv[extra]==1.0", "--with", "a==1,b==2", "srv-cmd"}, want: pkg("srv[extra]==1.0", "a==1", "b==2")},
		{cmd: "uvx", args: []string{"--from", "srv==1.0", "--with", "a", "srv-cmd"}, err: `"a==1.2.3"`},
		{cmd: "uvx", args: []string{"--from", "git+https://x/y", "srv"}, err: "without an exact version"},
		{cmd: "uvx", args: []string{"--with-requirements", "r.txt", "srv==1"}, err: "adds packages from a file"},
		{cmd: "uv", args: []string{"tool", "run", "srv==1.0"}, want: pkg("srv==1.0")},
		{cmd: "uv", args: []string{"run", "srv.py"}, want: script("srv.py")},
		{cmd: "uv", args: []string{"run", "--frozen", "--with", "mcp==1.2.0", "srv.py"}, want: Launch{Kind: Script, Script: "srv.py", Packages: []string{"mcp==1.2.0"}}},
		{cmd: "uv", args: []string{"run", "--with", "mcp", "srv.py"}, err: "without an exact version"},
		{cmd: "uv", args: []string{"run", "python", "-u", "srv.py"}, want: script("srv.py")},
		{cmd: "uv", args: []string{"run", "python3", "-c", "x"}, want: inline},
		{cmd: "uv", args: []string{"run", "mcp-server"}, err: "command of the project's environment"},
		{cmd: "uv", args: []string{"run", "-m", "srv"}, err: "module found by name"},
		{cmd: "uv", args: []string{"--directory", "x", "run", "srv.py"}, err: "cannot be pinned"},
		{cmd: "pipx", args: []string{"run", "srv==1.0"}, want: pkg("srv==1.0")},
		{cmd: "pipx", args: []string{"run", "--spec", "srv==1.0", "srv-cmd"}, want: pkg("srv==1.0")},
		{cmd: "pipx", args: []string{"run", "srv"}, err: "without an exact version"},
		{cmd: "docker", args: []string{"run", "-i", "--rm", "-e", "GITHUB_TOKEN", "ghcr.io/github/github-mcp-server@sha256:" + strings.Repeat("ab", 32)}, want: pkg("ghcr.io/github/github-mcp-server@sha256:" + strings.Repeat("ab", 32))},
		{cmd: "docker", args: []string{"run", "-i", "--rm", "ghcr.io/github/github-mcp-server"}, err: `pin it as "ghcr.io/github/github-mcp-server@sha256:<digest>"`},
		{cmd: "podman", args: []string{"run", "-i", "img:latest"}, err: "without an exact version"},
		{cmd: "docker", args: []string{"run", "--privileged", "img@sha256:" + strings.Repeat("ab", 32)}, err: "every privilege"},
		{cmd: "docker", args: []string{"exec", "c", "srv"}, err: "cannot be pinned"},
		{cmd: "env", args: []string{"python3", "srv.py"}, err: "declare that program itself"},
		{cmd: "/usr/bin/env", args: []string{"FOO=1", "node", "srv.js"}, err: "declare that program itself"},
		{cmd: "sudo", args: []string{"srv"}, err: "declare that program itself"},
	} {
		got, err := Analyze(c.cmd, c.args)
		name := c.cmd + " " + strings.Join(c.args, " ")
		if c.err != "" {
			if !errors.Is(err, ErrUnpinned) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want ErrUnpinned with %q", name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got.Runner = ""
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestIsRunner(t *testing.T) {
	for cmd, want := range map[string]bool{"python3": true, "/usr/bin/python3.11": true, "node": true, "npx": true,
		"uvx": true, "uv": true, "bash": true, "env": true, "github-mcp-server": false, "/opt/srv": false, "pythonic": false} {
		if got := IsRunner(cmd); got != want {
			t.Errorf("IsRunner(%q) = %v, want %v", cmd, got, want)
		}
	}
}

package shellguard

// Floor rules for interpreters: shell commands and tree removals inside
// inline code (python -c, node -e, ruby -e, awk), fetch-and-eval and fork
// bombs.

import "strings"

// forkLoop reports whether interpreter code forks inside a loop (python -c
// 'while 1: os.fork()', perl -e 'fork while 1', ruby -e 'loop { fork }').
func forkLoop(code string) bool {
	if !strings.Contains(code, "fork") {
		return false
	}
	fork, loop := false, false
	for _, t := range strings.FieldsFunc(code, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		switch t {
		case "fork", "forkpty", "fork_exec":
			fork = true
		case "while", "for", "loop", "until", "repeat", "times", "each", "goto":
			loop = true
		}
	}
	return fork && loop
}

// interpreterFloor checks interpreter one-liners for the floor: shell
// commands they pass to system/popen/subprocess/backticks are classified as
// scripts (python -c 'import os; os.system("rm -rf /")'), and a recursive
// delete of a literal protected path is rm-root (shutil.rmtree("/"),
// FileUtils.rm_rf("/"), fs.rmSync("/", {recursive: true}), rmtree("/")).
func (w *walker) interpreterFloor(argv []word, cwd string) (string, string) {
	for _, a := range argv[1:] {
		if !a.known || !strings.ContainsAny(a.val, `"'`+"`") {
			continue
		}
		code := a.val
		if fetchesAndRuns(code) {
			return ShapePipeToShell, "downloads code and runs it (a network fetch inside exec/eval)"
		}
		for _, call := range []string{"system", "popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
			"subprocess.check_output", "subprocess.Popen", "getoutput", "getstatusoutput", "execSync", "exec", "spawnSync", "shell_exec", "passthru", "qx", "`"} {
			for _, lit := range callStrings(code, call) {
				if s := w.floorOf(lit, cwd); s != "" {
					return s, "runs the shell command " + quote(lit) + ", which is floor"
				}
			}
		}
		for _, call := range []string{"rmtree", "rm_rf", "rm_r", "remove_dir_all", "rmSync", "rmdirSync", "remove_tree", "RemoveAll", "removedirs"} {
			for _, lit := range callStrings(code, call) {
				if d := w.protectedTarget(word{val: lit, text: lit, known: true}, cwd); d != "" {
					return ShapeRmRoot, "removes " + d + " (" + call + ")"
				}
				if lit == "~" || strings.HasPrefix(lit, "~/") {
					if d := w.protectedTarget(word{val: w.c.home + lit[1:], known: true}, cwd); d != "" {
						return ShapeRmRoot, "removes " + d + " (" + call + ")"
					}
				}
			}
		}
	}
	return "", ""
}

// callStrings returns the first string literal argument of each call to
// name in code (name("x"), name 'x', `x` for the backtick operator).
func callStrings(code, name string) []string {
	var out []string
	for i := 0; i < len(code); {
		j := strings.Index(code[i:], name)
		if j < 0 {
			break
		}
		k := i + j + len(name)
		i = k
		if name == "`" {
			if e := strings.IndexByte(code[k:], '`'); e > 0 {
				out = append(out, code[k:k+e])
				i = k + e + 1
			}
			continue
		}
		if j > 0 && isWordByte(code[i-len(name)-1]) && code[i-len(name)-1] != '.' {
			continue // part of a longer name
		}
		for k < len(code) && (code[k] == ' ' || code[k] == '(' || code[k] == '[' || code[k] == '{') {
			k++
		}
		if k < len(code) && (code[k] == '"' || code[k] == '\'') {
			q := code[k]
			if e := strings.IndexByte(code[k+1:], q); e >= 0 {
				out = append(out, code[k+1:k+1+e])
			}
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// fetchMarkers are the one-liner ways interpreters fetch a URL; runMarkers
// the ways they run text as code. Code that does both downloads and runs
// (python -c 'exec(urlopen(…).read())', perl -e 'eval get(…)').
var fetchMarkers = []string{"urlopen", "urllib", "requests.get", "http.client", "httpx.", "LWP::", "get(\"http", "get('http",
	"open-uri", "URI.open", "URI.parse", "Net::HTTP", "https.get", "http.get", "fetch(", "axios", "file_get_contents(\"http", "file_get_contents('http",
	"curl_exec", "Invoke-WebRequest", "DownloadString", "iwr ", "irm ", "wget", "curl "}

var runMarkers = []string{"exec(", "eval)", "exec ", "eval(", "eval ", "system(", "system ", "Function(", "popen", "subprocess", "child_process", "execSync", "spawn", "`", "iex", "Invoke-Expression", "instance_eval", "load("}

func fetchesAndRuns(code string) bool {
	fetch := false
	for _, m := range fetchMarkers {
		if strings.Contains(code, m) {
			fetch = true
			break
		}
	}
	if !fetch {
		return false
	}
	for _, m := range runMarkers {
		if strings.Contains(code, m) {
			return true
		}
	}
	return false
}

package shellguard

// Floor rules for downloaded or decoded code: which programs download or
// decode, what the command wrote to disk, and the programs that then run
// it (pipe-to-shell in all its spellings).

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// netExec: a network tool that runs a program on the connection (nc -e,
// ncat --sh-exec, socat TCP:… EXEC:…): a remote shell.
func netExec(name string, argv []word) string {
	if name == "socat" {
		exec, net := false, false
		for _, a := range argv[1:] {
			u := strings.ToUpper(a.val)
			if strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:") {
				exec = true
			}
			for _, p := range []string{"TCP", "UDP", "SCTP", "OPENSSL", "SSL", "SOCKS", "PROXY", "UNIX-CONNECT"} {
				if strings.HasPrefix(u, p) {
					net = true
				}
			}
		}
		if exec && net {
			return "runs a program on a network connection (socat EXEC)"
		}
		return ""
	}
	if hasOpt(argv, "ec", "exec", "sh-exec", "lua-exec") {
		return "runs a program on a network connection (" + name + " -e)"
	}
	return ""
}

func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "wget2", "fetch", "http", "https", "xh", "xhs", "curlie", "aria2c", "lwp-request", "get", "lynx", "links", "w3m":
		return true
	}
	return false
}

// isCodeSource reports whether a command's output is content the guard
// cannot see that came from the network (a downloader, nc, socat, ssh) or
// from a decoder (base64 -d, gunzip, openssl enc -d, …). A shell or
// interpreter fed such output is floor.
func isCodeSource(argv []word) bool {
	name := strings.ToLower(cmdName(argv[0]))
	switch name {
	case "":
		return false
	case "nc", "ncat", "netcat", "socat", "telnet", "ssh", "s_client":
		return true
	case "openssl":
		if len(argv) > 1 && argv[1].val == "s_client" {
			return true
		}
	}
	if isDownloader(name) {
		return true
	}
	if !isDecoderName(name) {
		return false
	}
	vals := make([]string, len(argv))
	for i, a := range argv {
		vals[i] = a.val
	}
	return decoderKind(vals) != ""
}

// isDecoderName: programs decoderKind knows.
func isDecoderName(name string) bool {
	switch name {
	case "base64", "gbase64", "base32", "basenc", "xxd", "gunzip", "zcat", "gzcat", "gzip", "pigz", "bunzip2", "bzcat", "bzip2",
		"unxz", "xzcat", "lzcat", "unlzma", "unzstd", "zstdcat", "uncompress", "uudecode", "lz4cat", "unlz4", "brotli", "xz",
		"lzma", "zstd", "lz4", "openssl", "gpg", "gpg2", "age", "rage", "rot13":
		return true
	}
	return false
}

// noteDownload records the files a downloading command writes (curl -o f,
// curl -O URL, wget URL, wget -O f, -P dir, git clone URL dir, a
// redirection of its output), so running one later in the same command is
// floor.
func (w *walker) noteDownload(argv []word, name string, write, cwd string) {
	d := dlScan{w: w, cwd: cwd, name: name, argv: argv, remoteName: name == "wget" || name == "wget2"}
	if write != "" {
		d.add(write)
	}
	switch name {
	case "git":
		d.gitClone()
	case "curl", "wget", "wget2", "fetch", "aria2c":
		d.downloader()
	}
}

// dlScan reads one downloading command's arguments for the files it writes.
type dlScan struct {
	w          *walker
	cwd, name  string
	argv       []word
	j          int // the word being read
	urls       []string
	remoteName bool   // the file is named after the URL
	dir        string // the directory it is written into
	named      bool   // an output file was named
}

// add records p as downloaded.
func (d *dlScan) add(p string) {
	if p == "" || p == "-" || p == "/dev/stdout" {
		return
	}
	if r := resolveIn(p, d.cwd); r != "" {
		p = r
	} else {
		p = path.Clean(p)
	}
	d.w.dlFiles = append(d.w.dlFiles, p)
}

// next consumes and returns the word after the current one, or "".
func (d *dlScan) next() string {
	if d.j+1 < len(d.argv) {
		d.j++
		return d.argv[d.j].val
	}
	return ""
}

// urlBase is the last path element of a URL, the name wget and curl -O
// save it under ("" when the URL has no path).
func urlBase(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	u = strings.TrimRight(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		return u[i+1:]
	}
	return ""
}

// gitClone records the directory git clone URL [DIR] writes.
func (d *dlScan) gitClone() {
	argv := d.argv
	i := gitSubcommand(argv)
	if i <= 0 || argv[i].val != "clone" {
		return
	}
	var pos []string
	for j := i + 1; j < len(argv); j++ {
		v := argv[j].val
		switch {
		case v == "-b" || v == "--branch" || v == "-o" || v == "--origin" || v == "-c" || v == "--config" || v == "--depth" || v == "-u" || v == "--upload-pack" || v == "-j" || v == "--jobs" || v == "--reference" || v == "--template" || v == "--separate-git-dir" || v == "--filter":
			j++
		case strings.HasPrefix(v, "-"):
		default:
			pos = append(pos, v)
		}
	}
	switch {
	case len(pos) >= 2:
		d.add(pos[1])
	case len(pos) == 1:
		d.add(strings.TrimSuffix(urlBase(pos[0]), ".git"))
	}
}

// downloader records the files curl, wget, fetch or aria2c write.
func (d *dlScan) downloader() {
	name := d.name
	for d.j = 1; d.j < len(d.argv); d.j++ {
		v := d.argv[d.j].val
		switch {
		case v == "--output" || v == "--output-document" || (v == "-o" && name != "wget") || (v == "-O" && name == "wget"):
			d.add(d.next())
			d.named = true
		case strings.HasPrefix(v, "--output=") || strings.HasPrefix(v, "--output-document="):
			_, f, _ := strings.Cut(v, "=")
			d.add(f)
			d.named = true
		case v == "-P" || v == "--directory-prefix" || v == "--output-dir" || v == "-d" && name == "aria2c" || v == "--dir":
			d.dir = d.next()
		case strings.HasPrefix(v, "--directory-prefix=") || strings.HasPrefix(v, "--output-dir="):
			_, d.dir, _ = strings.Cut(v, "=")
		case v == "--remote-name" || v == "--remote-name-all":
			d.remoteName = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && len(v) > 1:
			d.short(v)
		case strings.Contains(v, "://") || !strings.HasPrefix(v, "-") && strings.Contains(v, "/"):
			d.urls = append(d.urls, v)
		}
	}
	if d.remoteName && !d.named {
		for _, u := range d.urls {
			b := urlBase(u)
			if b == "" {
				b = "index.html"
			}
			if d.dir != "" {
				b = d.dir + "/" + b
			}
			d.add(b)
		}
	}
}

// dlValueOpts are the short options of curl and wget that take a value.
var dlValueOpts = map[string]string{"curl": "HAeuxXwrEKbcmCyYzUQdFT", "wget": "aodeiPTtUwQlADIRX"}

// short reads a bundle of a downloader's short options.
func (d *dlScan) short(v string) {
	name := d.name
	for k := 1; k < len(v); k++ {
		c := v[k]
		if name == "curl" && c == 'O' {
			d.remoteName = true
		}
		if c == 'o' && name != "wget" || c == 'O' && name == "wget" {
			if k+1 < len(v) {
				d.add(v[k+1:])
			} else {
				d.add(d.next())
			}
			d.named = true
			return
		}
		if (name == "curl" || name == "wget") && strings.IndexByte(dlValueOpts[name], c) >= 0 {
			if k == len(v)-1 {
				d.next()
			}
			return
		}
	}
}

// runsDownloaded names the file a command runs that an earlier segment of
// the same command downloaded: ./f, sh f, python f, source f.
func (w *walker) runsDownloaded(argv []word, name, cwd string) string {
	if len(w.dlFiles) == 0 {
		return ""
	}
	check := func(a word) string {
		if !a.known || a.val == "" {
			return ""
		}
		r := resolveIn(a.val, cwd)
		if r == "" {
			r = path.Clean(a.val)
		}
		for _, d := range w.dlFiles {
			if r == d || strings.HasPrefix(r, d+"/") {
				return a.text
			}
		}
		return ""
	}
	if strings.IndexByte(argv[0].val, '/') >= 0 {
		if f := check(argv[0]); f != "" {
			return f
		}
	}
	switch {
	case isShell(name):
		if sa := shellArgs(argv); sa.script > 0 {
			return check(argv[sa.script])
		}
	case isInterpreter(name):
		if i := interpreterScript(argv); i > 0 {
			return check(argv[i])
		}
	case name == "source" || name == ".":
		if len(argv) > 1 {
			return check(argv[1])
		}
	}
	return ""
}

// isDownloaded reports whether p (a redirection's target) is a file
// downloaded earlier in the command.
func (w *walker) isDownloaded(p string) bool {
	for _, d := range w.dlFiles {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// noteSource records a segment whose output is unseen code (a download, a
// network connection, a decoder) and the files a download writes.
func (w *walker) noteSource(argv []word, x ctx, in segIn, write, cwd string) {
	name := strings.ToLower(cmdName(argv[0]))
	if in.net || isCodeSource(argv) {
		w.dls = append(w.dls, len(w.res.Segments)-1)
	}
	if !in.net && (name == "echo" || name == "printf" || name == "cat" || name == "tac") {
		for _, a := range argv[1:] {
			if a.dl || name == "cat" && a.known && w.isDownloaded(resolveIn(a.val, cwd)) {
				w.dls = append(w.dls, len(w.res.Segments)-1)
				break
			}
		}
	}
	if name == "find" {
		if d, _ := w.findProtected(argv, cwd); d != "" {
			w.findTree, w.findSeg = d, len(w.res.Segments)-1
		}
	}
	if name == "tar" || name == "bsdtar" || name == "unzip" || name == "7z" || name == "cpio" {
		w.noteExtract(argv, name, x, cwd)
	}
	switch {
	case isDownloader(name):
		w.noteDownload(argv, name, write, cwd)
	case name == "git":
		if i := gitSubcommand(argv); i > 0 && i < len(argv) {
			switch argv[i].val {
			case "clone":
				w.noteDownload(argv, name, write, cwd)
			case "archive":
				for _, a := range argv[i:] {
					if strings.HasPrefix(a.val, "--remote") {
						w.dls = append(w.dls, len(w.res.Segments)-1)
						break
					}
				}
			}
		}
	case x.stdinDL && name == "tee":
		w.noteDownload(nil, "", write, cwd)
		for _, a := range argv[1:] {
			if a.known && !strings.HasPrefix(a.val, "-") {
				w.noteDownload(nil, "", a.val, cwd)
			}
		}
	case x.stdinDL && write != "":
		w.noteDownload(nil, "", write, cwd)
	}
}

// downloaderArgs reports whether a command's literal words name a
// downloader (curl x > >(sh)): a cheap look before the words are evaluated.
func downloaderArgs(ws []*syntax.Word) bool {
	// The command word, after any wrappers and their options.
	for _, wd := range ws {
		if len(wd.Parts) != 1 {
			return false
		}
		l, ok := wd.Parts[0].(*syntax.Lit)
		if !ok {
			return false
		}
		n := base(l.Value)
		if isDownloader(n) || isDownloader(strings.ToLower(n)) {
			return true
		}
		if _, wrap := wrapSpecs[n]; !wrap && !strings.HasPrefix(n, "-") && strings.IndexByte(n, '=') < 0 {
			return false
		}
	}
	return false
}

// stdinCode: a program reading a download on stdin that runs what it reads
// (awk '{system($0)}', perl -ne 'system $_', python -c 'exec(sys.stdin…)').
func stdinCode(name string, argv []word) string {
	prog := ""
	for _, a := range argv[1:] {
		if a.known && !strings.HasPrefix(a.val, "-") {
			prog = a.val
			break
		}
	}
	switch name {
	case "awk", "gawk", "mawk", "nawk", "busybox":
		if strings.Contains(prog, "system(") || strings.Contains(prog, "system (") || strings.Contains(prog, "| getline") || strings.Contains(prog, `| "sh`) || strings.Contains(prog, `| "bash`) {
			return "runs the lines of a download or decoder output as commands (awk system)"
		}
	case "sed", "gsed":
		for _, a := range argv[1:] {
			if a.known && (strings.HasSuffix(a.val, "/e") || strings.HasPrefix(a.val, "e ") || a.val == "e") {
				return "runs a download or decoder output as commands (sed e)"
			}
		}
	}
	if isInterpreter(name) {
		for _, a := range argv[1:] {
			if !a.known {
				continue
			}
			c := a.val
			run := strings.Contains(c, "exec(") || strings.Contains(c, "eval(") || strings.Contains(c, "eval ") || strings.Contains(c, "system(") || strings.Contains(c, "system ") ||
				strings.Contains(c, "popen") || strings.Contains(c, "subprocess") || strings.Contains(c, "`$_`") || strings.Contains(c, "child_process")
			reads := strings.Contains(c, "stdin") || strings.Contains(c, "STDIN") || strings.Contains(c, "$_") || strings.Contains(c, "<>") || strings.Contains(c, "gets") || strings.Contains(c, "input(") || strings.Contains(c, "readline") || strings.Contains(c, "ARGF")
			if run && reads {
				return "runs code read from a download or decoder"
			}
		}
	}
	return ""
}

// noteExtract: an archive that is a download (curl … | tar x, tar xf f
// after curl -o f) unpacks files the guard cannot see: its target
// directory counts as downloaded.
func (w *walker) noteExtract(argv []word, name string, x ctx, cwd string) {
	from := x.stdinDL
	dir := ""
	extract := name == "unzip"
	for i := 1; i < len(argv); i++ {
		v := argv[i].val
		if i == 1 && name != "unzip" && !strings.HasPrefix(v, "-") && strings.ContainsAny(v, "x") {
			extract = true
		}
		switch {
		case v == "-x" || v == "--extract" || v == "--get" || name == "7z" && v == "x" || name == "cpio" && (v == "-i" || v == "--extract"):
			extract = true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v, 'x') && name != "unzip":
			extract = true
		}
		if (v == "-C" || v == "--directory" || name == "unzip" && v == "-d") && i+1 < len(argv) {
			dir = argv[i+1].val
		}
		if argv[i].known && !strings.HasPrefix(v, "-") && w.isDownloaded(resolveIn(v, cwd)) {
			from = true
		}
	}
	if !extract || !from {
		return
	}
	if dir == "" {
		dir = "."
	}
	w.noteDownload(nil, "", dir, cwd)
}

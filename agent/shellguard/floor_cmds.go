package shellguard

// Floor rules for commands that remove or move a tree: rm, find, rsync,
// mv, dd, and the runners parallel and env -S whose arguments are command
// lines.

import "strings"

// ddDevice checks dd of=DEVICE.
func ddDevice(argv []word, cwd string) (string, string) {
	for _, a := range argv[1:] {
		if a.known && strings.HasPrefix(a.val, "of=") {
			if t := resolveIn(a.val[3:], cwd); t != "" && isDevice(t) {
				return ShapeDDDevice, "writes raw data onto device " + t
			}
		}
	}
	return "", ""
}

// floorParallel checks GNU parallel CMD ::: ARGS, which runs CMD ARG for
// each ARG; without a command each ARG is a command line.
func (w *walker) floorParallel(argv []word, cwd string) (string, string) {
	sep := -1
	for i, a := range argv {
		if a.val == ":::" || a.val == "::::" {
			sep = i
			break
		}
	}
	if sep <= 0 {
		return "", ""
	}
	cmd := argv[1:sep]
	for len(cmd) > 0 && strings.HasPrefix(cmd[0].val, "-") {
		cmd = cmd[1:]
	}
	for _, a := range argv[sep+1:] {
		line := a.val
		if len(cmd) > 0 {
			line = joinVals(cmd) + " " + a.val
		}
		if s := w.floorOf(line, cwd); s != "" {
			return s, "runs " + quote(line) + " (parallel), which is floor"
		}
	}
	return "", ""
}

// floorEnvSplit checks env -S 'CMD ARGS', which splits its value into the
// command line it runs.
func (w *walker) floorEnvSplit(argv []word, cwd string) (string, string) {
	for i := 1; i < len(argv); i++ {
		v, split := argv[i].val, ""
		switch {
		case (v == "-S" || v == "--split-string") && i+1 < len(argv):
			split = argv[i+1].val
			i++
		case strings.HasPrefix(v, "--split-string="):
			split = v[len("--split-string="):]
		case strings.HasPrefix(v, "-S") && !strings.HasPrefix(v, "--"):
			split = v[2:]
		case strings.HasPrefix(v, "-") || isAssignWord(v):
			continue
		}
		if split == "" {
			continue
		}
		rest := make([]string, 0, len(argv)-i)
		rest = append(rest, split)
		for _, a := range argv[i+1:] {
			rest = append(rest, a.val)
		}
		if s := w.floorOf(strings.Join(rest, " "), cwd); s != "" {
			return s, "runs " + quote(split) + " (env -S), which is floor"
		}
	}
	return "", ""
}

// floorMv checks mv: moving a protected directory away removes it from its
// place. With -t DIR (--target-directory) every operand is a source.
func (w *walker) floorMv(name string, argv []word, cwd string) (string, string) {
	var ops []word
	target := false
	for j := 1; j < len(argv); j++ {
		a := argv[j]
		if a.known && (a.val == "-t" || longOpt(a.val, "target-directory") && len(a.val) > 3 && !strings.Contains(a.val, "=")) {
			target = true
			j++
			continue
		}
		if a.known && (strings.HasPrefix(a.val, "--targ") && strings.Contains(a.val, "=") || strings.HasPrefix(a.val, "-t") && !strings.HasPrefix(a.val, "--")) {
			target = true
			continue
		}
		if !(a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1) {
			ops = append(ops, a)
		}
	}
	if !target && len(ops) > 0 {
		ops = ops[:len(ops)-1]
	}
	for _, a := range ops {
		if d := w.protectedTarget(a, cwd); d != "" {
			return ShapeRmRoot, "moves away " + d
		}
	}
	return shaped(ShapeDeviceWrite, w.deviceTool(name, argv, cwd))
}

// rmRoot: rm with -r (any spelling) on a protected directory. -f is not
// required: a non-interactive rm -r does not prompt.
func (w *walker) rmRoot(argv []word, cwd string) string {
	recursive, maybe := false, false
	var ops []word
	dashdash := false
	for _, a := range argv[1:] {
		if !dashdash && a.known && len(a.val) > 1 && a.val[0] == '-' {
			if a.val == "--" {
				dashdash = true
				continue
			}
			if strings.HasPrefix(a.val, "--") {
				if longOpt(a.val, "recursive") {
					recursive = true
				}
				continue
			}
			if strings.ContainsAny(a.val[1:], "rR") {
				recursive = true
			}
			continue
		}
		if !a.known {
			maybe = true // $FLAGS may hold -rf
		}
		ops = append(ops, a)
	}
	if !recursive && !maybe {
		return ""
	}
	for _, a := range ops {
		if d := w.protectedTarget(a, cwd); d != "" {
			return "removes " + d
		}
	}
	return ""
}

// findRoot: find over a protected directory that deletes (-delete, -exec
// rm …) or changes permissions (-exec chmod …) of what it finds.
func (w *walker) findRoot(argv []word, cwd string) (string, string) {
	d, i := w.findProtected(argv, cwd)
	if d == "" {
		return "", ""
	}
	for j := i; j < len(argv); j++ {
		switch argv[j].val {
		case "-delete":
			return ShapeRmRoot, "deletes everything it finds under " + d
		case "-exec", "-execdir", "-ok", "-okdir":
			if j+1 >= len(argv) {
				continue
			}
			switch execName(argv[j+1:]) {
			case "rm", "unlink", "shred", "rmdir", "srm", "wipe", "rsync", "mv":
				return ShapeRmRoot, "runs " + argv[j+1].text + " on everything it finds under " + d
			case "chmod", "chown", "chgrp", "setfacl", "chattr":
				return ShapePermRoot, "runs " + argv[j+1].text + " on everything it finds under " + d
			}
		}
	}
	return "", ""
}

// findProtected describes the first protected directory find starts from
// ("" if none) and returns the index of its first expression word.
func (w *walker) findProtected(argv []word, cwd string) (string, int) {
	i := 1
	for i < len(argv) && argv[i].known {
		v := argv[i].val
		if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") {
			i++
			continue
		}
		if v == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []word
	for i < len(argv) {
		a := argv[i]
		if a.known && (strings.HasPrefix(a.val, "-") && a.val != "-" || a.val == "(" || a.val == "!" || a.val == ",") {
			break
		}
		starts = append(starts, a)
		i++
	}
	if len(starts) == 0 {
		starts = append(starts, word{val: ".", text: ".", lit: true, known: true})
	}
	for _, s := range starts {
		if d := w.protectedTarget(s, cwd); d != "" {
			return d, i
		}
	}
	return "", i
}

// rsyncDelete: rsync --delete (any of its forms) onto a protected
// directory, or --remove-source-files from one.
func (w *walker) rsyncDelete(argv []word, cwd string) string {
	del, rmSrc := false, false
	var ops []word
	for _, a := range argv[1:] {
		if a.known && strings.HasPrefix(a.val, "--") {
			if strings.HasPrefix(a.val, "--del") {
				del = true
			}
			if longOpt(a.val, "remove-source-files") && len(a.val) > len("--rem") {
				rmSrc = true
			}
			continue
		}
		if a.known && strings.HasPrefix(a.val, "-") && len(a.val) > 1 {
			continue
		}
		ops = append(ops, a)
	}
	if len(ops) == 0 {
		return ""
	}
	if del {
		if d := w.protectedTarget(ops[len(ops)-1], cwd); d != "" {
			return "deletes what the source lacks from " + d
		}
	}
	if rmSrc {
		for _, a := range ops[:len(ops)-1] {
			if d := w.protectedTarget(a, cwd); d != "" {
				return "removes the files it copies from " + d
			}
		}
	}
	return ""
}

package shellguard

// Floor rules for permission changes over a protected tree: chmod, chown,
// chgrp, setfacl, chattr.

import "strings"

// permShortOpts are the short options (no value unless listed in
// permValueOpt) of each permission tool; a word with other letters is a
// mode (chmod -w, chattr -i), not options.
var permShortOpts = map[string]string{"chmod": "RcfvHLP", "chown": "RcfvhHLP", "chgrp": "RcfvhHLP", "setfacl": "RbkndLPtmMxX", "chattr": "RVfvp"}

// permVerb is the reason's verb for each permission tool.
var permVerb = map[string]string{"chmod": "changes the permissions of ", "chown": "changes the owner of ", "chgrp": "changes the group of ",
	"setfacl": "changes the ACLs of ", "chattr": "changes the attributes of "}

// permArgs is what permRoot reads from a permission tool's arguments.
type permArgs struct {
	name                 string
	recursive, reference bool
	slot                 string // chmod's mode, chown's owner, chgrp's group, chattr's mode
	ops                  []word
}

// permRoot: a recursive permission, ownership, ACL or attribute change of
// a protected directory, with options anywhere (GNU permutation) and long
// options abbreviated.
func (w *walker) permRoot(name string, argv []word, cwd string) (string, string) {
	pa := permArgs{name: name}
	pa.scan(argv)
	if !pa.recursive {
		return "", ""
	}
	for _, a := range pa.ops {
		if d := w.protectedTarget(a, cwd); d != "" {
			if name == "chmod" && worldWritable(pa.slot) {
				return ShapeChmod777Root, "makes " + d + " world-writable, recursively"
			}
			return ShapePermRoot, permVerb[name] + d + ", recursively"
		}
	}
	return "", ""
}

// scan reads the options, the slot and the operands of argv.
func (pa *permArgs) scan(argv []word) {
	name := pa.name
	needSlot := name != "setfacl"
	dashdash := false
	for j := 1; j < len(argv); j++ {
		a := argv[j]
		v := a.val
		switch {
		case !a.known:
			pa.operand(a, a.text, needSlot && !pa.reference)
		case dashdash || v == "-" || len(v) < 2 || v[0] != '-' && !(name == "chattr" && (v[0] == '+' || v[0] == '=')):
			pa.operand(a, v, needSlot && !pa.reference)
		case v == "--":
			dashdash = true
		case strings.HasPrefix(v, "--"):
			if pa.long(v) {
				j++
			}
		case strings.Trim(v[1:], permShortOpts[name]) != "":
			// chmod -w, chattr -i: a mode, not options.
			pa.operand(a, v, needSlot)
		default:
			if pa.short(v) {
				j++
			}
		}
	}
}

// operand takes a word as the slot when one is still wanted, else as an
// operand.
func (pa *permArgs) operand(a word, v string, wantSlot bool) {
	if wantSlot && pa.slot == "" {
		pa.slot = v
		return
	}
	pa.ops = append(pa.ops, a)
}

// long reads a --option; it says whether the next word is its value.
func (pa *permArgs) long(v string) bool {
	n, _, eq := strings.Cut(v, "=")
	switch {
	case longOpt(n, "recursive") && len(n) > 3:
		pa.recursive = true
	case longOpt(n, "reference") && len(n) > 4:
		pa.reference = true
		return !eq
	case pa.name == "setfacl" && longOpt(n, "modify", "remove", "set", "set-file", "modify-file", "remove-file", "restore") && !eq:
		return true
	case pa.name == "chown" && longOpt(n, "from") && !eq:
		return true
	}
	return false
}

// short reads a bundle of short options; it says whether the next word is
// the value of its last one.
func (pa *permArgs) short(v string) bool {
	for k := 1; k < len(v); k++ {
		c := v[k]
		if c == 'R' {
			pa.recursive = true
		}
		if pa.name == "setfacl" && strings.IndexByte("mMxX", c) >= 0 || pa.name == "chattr" && (c == 'v' || c == 'p') {
			return k == len(v)-1
		}
	}
	return false
}

// worldWritable says whether a chmod mode (octal or symbolic) gives others
// write permission.
func worldWritable(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		last := mode[len(mode)-1] - '0'
		return last&2 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		whoPart := clause[:len(clause)-len(who)]
		if who == "" || (who[0] != '+' && who[0] != '=') {
			continue
		}
		if !strings.Contains(who, "w") {
			continue
		}
		if whoPart == "" || strings.ContainsAny(whoPart, "ao") {
			return true
		}
	}
	return false
}

package tools

import (
	"fmt"
	"strings"
)

// The apply_patch format:
//
//	*** Begin Patch
//	*** Add File: path
//	+line
//	*** Update File: path
//	*** Move to: new/path        (optional)
//	@@ optional line to find first
//	 context line
//	-removed line
//	+added line
//	*** End of File              (optional: the hunk ends at the end of the file)
//	*** Delete File: path
//	*** End Patch

const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	addPrefix   = "*** Add File: "
	updPrefix   = "*** Update File: "
	delPrefix   = "*** Delete File: "
	movePrefix  = "*** Move to: "
	endOfFile   = "*** End of File"
	maxPatchOps = 1000
)

type opKind byte

const (
	opAdd    opKind = 'A'
	opUpdate opKind = 'M'
	opDelete opKind = 'D'
)

// patchOp is one file's change.
type patchOp struct {
	kind   opKind
	path   string
	moveTo string   // update only
	lines  []string // add only: the new file's lines
	hunks  []hunk   // update only
}

// hunk is one @@ section of an update.
type hunk struct {
	anchor string // the text after "@@ " ("" = none)
	lines  []hunkLine
	eof    bool // "*** End of File": the hunk matches at the end
}

type hunkLine struct {
	op   byte // ' ', '-' or '+'
	text string
}

// old and new are the lines the hunk expects and the lines it leaves.
func (h hunk) old() []string { return h.side('-') }
func (h hunk) new() []string { return h.side('+') }

func (h hunk) side(keep byte) []string {
	var out []string
	for _, l := range h.lines {
		if l.op == ' ' || l.op == keep {
			out = append(out, l.text)
		}
	}
	return out
}

// patchError is a parse error at a line of the patch.
type patchError struct {
	line int
	msg  string
}

func (e *patchError) Error() string { return fmt.Sprintf("patch line %d: %s", e.line, e.msg) }

// parsePatch parses the text of a patch. It checks the structure only;
// whether hunks apply is decided against the files.
func parsePatch(text string) ([]patchOp, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	// Leading and trailing blank lines are allowed around the markers.
	first, last := 0, len(lines)-1
	for first <= last && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	for last >= first && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if first > last || strings.TrimSpace(lines[first]) != patchBegin {
		return nil, &patchError{first + 1, "a patch starts with \"" + patchBegin + "\""}
	}
	if last == first || strings.TrimSpace(lines[last]) != patchEnd {
		return nil, &patchError{last + 1, "a patch ends with \"" + patchEnd + "\""}
	}
	var ops []patchOp
	i := first + 1
	header := func(l string) bool { return strings.HasPrefix(l, "*** ") }
	for i < last {
		l := lines[i]
		n := i + 1
		switch {
		case strings.TrimSpace(l) == "":
			i++
			continue
		case strings.HasPrefix(l, addPrefix):
			op := patchOp{kind: opAdd, path: strings.TrimSpace(l[len(addPrefix):])}
			i++
			for i < last && !header(lines[i]) {
				t, ok := strings.CutPrefix(lines[i], "+")
				if !ok {
					return nil, &patchError{i + 1, "every line of an added file starts with \"+\""}
				}
				op.lines = append(op.lines, t)
				i++
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, delPrefix):
			ops = append(ops, patchOp{kind: opDelete, path: strings.TrimSpace(l[len(delPrefix):])})
			i++
		case strings.HasPrefix(l, updPrefix):
			op := patchOp{kind: opUpdate, path: strings.TrimSpace(l[len(updPrefix):])}
			i++
			if i < last && strings.HasPrefix(lines[i], movePrefix) {
				op.moveTo = strings.TrimSpace(lines[i][len(movePrefix):])
				if op.moveTo == "" {
					return nil, &patchError{i + 1, "\"*** Move to:\" names no path"}
				}
				i++
			}
			var err error
			if op.hunks, i, err = parseHunks(lines, i, last); err != nil {
				return nil, err
			}
			if len(op.hunks) == 0 && op.moveTo == "" {
				return nil, &patchError{n, "an update with no hunks"}
			}
			ops = append(ops, op)
		default:
			return nil, &patchError{n, fmt.Sprintf("expected \"%s\", \"%s\" or \"%s\", found %q", strings.TrimSpace(addPrefix), strings.TrimSpace(updPrefix), strings.TrimSpace(delPrefix), clip(l, 80))}
		}
		if ops[len(ops)-1].path == "" {
			return nil, &patchError{n, "a file header names no path"}
		}
		if len(ops) > maxPatchOps {
			return nil, &patchError{n, fmt.Sprintf("more than %d files in one patch", maxPatchOps)}
		}
	}
	if len(ops) == 0 {
		return nil, &patchError{first + 1, "the patch changes no file"}
	}
	return ops, nil
}

// parseHunks reads the hunks of an update from lines[i:end].
func parseHunks(lines []string, i, end int) ([]hunk, int, error) {
	var hunks []hunk
	var cur *hunk
	// Blank lines are empty context lines, except at the end of a hunk
	// (before the next header), where they are only spacing.
	blanks := 0
	for i < end {
		l := lines[i]
		if l != "" {
			if cur != nil && (l[0] == ' ' || l[0] == '-' || l[0] == '+') {
				for ; blanks > 0; blanks-- {
					cur.lines = append(cur.lines, hunkLine{' ', ""})
				}
			}
			blanks = 0
		}
		switch {
		case strings.TrimRight(l, " \t") == endOfFile:
			if cur == nil || len(cur.lines) == 0 {
				return nil, i, &patchError{i + 1, "\"*** End of File\" outside a hunk"}
			}
			cur.eof = true
			cur = nil
			i++
			continue
		case strings.HasPrefix(l, "*** "):
			return checkHunks(hunks, i)
		case l == "":
			blanks++
			i++
			continue
		case l == "@@" || strings.HasPrefix(l, "@@ "):
			anchor := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
			if strings.HasSuffix(anchor, "@@") && strings.HasPrefix(anchor, "-") {
				anchor = "" // a unified-diff range header ("@@ -1,3 +1,4 @@") anchors nothing
			}
			hunks = append(hunks, hunk{anchor: anchor})
			cur = &hunks[len(hunks)-1]
			i++
			continue
		}
		if cur == nil {
			if len(hunks) > 0 {
				return nil, i, &patchError{i + 1, "a hunk line after \"*** End of File\" needs a new \"@@\""}
			}
			// The first hunk may leave out its "@@".
			hunks = append(hunks, hunk{})
			cur = &hunks[len(hunks)-1]
		}
		switch {
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			cur.lines = append(cur.lines, hunkLine{l[0], l[1:]})
		default:
			return nil, i, &patchError{i + 1, fmt.Sprintf("a hunk line starts with \" \", \"-\" or \"+\", found %q", clip(l, 80))}
		}
		i++
	}
	return checkHunks(hunks, i)
}

func checkHunks(hunks []hunk, i int) ([]hunk, int, error) {
	for _, h := range hunks {
		if len(h.lines) == 0 {
			return nil, i, &patchError{i, "an empty hunk"}
		}
	}
	return hunks, i, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeFloor(s, n)] + "…"
}

// format writes ops back in the patch format (parsePatch(format(ops))
// gives ops again; the fuzz test checks it).
func formatPatch(ops []patchOp) string {
	var sb strings.Builder
	sb.WriteString(patchBegin + "\n")
	for _, op := range ops {
		switch op.kind {
		case opAdd:
			sb.WriteString(addPrefix + op.path + "\n")
			for _, l := range op.lines {
				sb.WriteString("+" + l + "\n")
			}
		case opDelete:
			sb.WriteString(delPrefix + op.path + "\n")
		case opUpdate:
			sb.WriteString(updPrefix + op.path + "\n")
			if op.moveTo != "" {
				sb.WriteString(movePrefix + op.moveTo + "\n")
			}
			for _, h := range op.hunks {
				if h.anchor != "" {
					sb.WriteString("@@ " + h.anchor + "\n")
				} else {
					sb.WriteString("@@\n")
				}
				for _, l := range h.lines {
					sb.WriteString(string(l.op) + l.text + "\n")
				}
				if h.eof {
					sb.WriteString(endOfFile + "\n")
				}
			}
		}
	}
	sb.WriteString(patchEnd + "\n")
	return sb.String()
}

// added is an Add File op's content: its lines, each ending in a newline.
func (op patchOp) added() string {
	if len(op.lines) == 0 {
		return ""
	}
	return strings.Join(op.lines, "\n") + "\n"
}

// updated is an Update File op's result on content: its hunks applied
// (content as it is without hunks: a move only).
func (op patchOp) updated(content string) (string, error) {
	if len(op.hunks) == 0 {
		return content, nil
	}
	return applyHunks(content, op.hunks)
}

// applyHunks applies an update's hunks to content and returns the new
// content. Lines are matched exactly first, then ignoring trailing
// whitespace, then ignoring surrounding whitespace; hunks apply in order,
// each after the previous one. CRLF files keep CRLF.
func applyHunks(content string, hunks []hunk) (string, error) {
	eol := "\n"
	if strings.Contains(content, "\r\n") {
		eol = "\r\n"
	}
	trailing := content == "" || strings.HasSuffix(content, "\n")
	var lines []string
	if content != "" {
		lines = strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	type repl struct {
		at, n int
		with  []string
	}
	var repls []repl
	pos := 0
	for hi, h := range hunks {
		if h.anchor != "" {
			i := seek(lines, []string{h.anchor}, pos, false)
			if i < 0 {
				return "", fmt.Errorf("hunk %d: the @@ line %q is not in the file", hi+1, clip(h.anchor, 80))
			}
			pos = i + 1
		}
		old := h.old()
		if len(old) == 0 {
			nw := h.new()
			at := len(lines)
			if h.anchor != "" {
				at = pos
			}
			repls = append(repls, repl{at, 0, nw})
			pos = at
			continue
		}
		i := seek(lines, old, pos, h.eof)
		if i < 0 {
			return "", fmt.Errorf("hunk %d: these lines are not in the file (after line %d):\n%s", hi+1, pos, quoteLines(old, 6))
		}
		// Context lines keep the file's own text (a fuzzy match must not
		// rewrite their whitespace).
		with := make([]string, 0, len(h.lines))
		k := i
		for _, l := range h.lines {
			switch l.op {
			case ' ':
				with = append(with, lines[k])
				k++
			case '-':
				k++
			case '+':
				with = append(with, l.text)
			}
		}
		repls = append(repls, repl{i, len(old), with})
		pos = i + len(old)
	}
	for k := len(repls) - 1; k >= 0; k-- {
		r := repls[k]
		lines = append(lines[:r.at], append(append([]string(nil), r.with...), lines[r.at+r.n:]...)...)
	}
	out := strings.Join(lines, eol)
	if trailing && len(lines) > 0 {
		out += eol
	}
	return out, nil
}

// seek finds pat in lines at or after start: exactly, then ignoring
// trailing whitespace, then ignoring surrounding whitespace. With eof it
// tries the end of the file first.
func seek(lines, pat []string, start int, eof bool) int {
	if len(pat) > len(lines) {
		return -1
	}
	norms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
	}
	for _, norm := range norms {
		match := func(at int) bool {
			for j, p := range pat {
				if norm(lines[at+j]) != norm(p) {
					return false
				}
			}
			return true
		}
		if eof {
			if at := len(lines) - len(pat); at >= start && match(at) {
				return at
			}
		}
		for at := start; at+len(pat) <= len(lines); at++ {
			if match(at) {
				return at
			}
		}
	}
	return -1
}

func quoteLines(ls []string, max int) string {
	var sb strings.Builder
	for i, l := range ls {
		if i == max {
			fmt.Fprintf(&sb, "  … %d more\n", len(ls)-max)
			break
		}
		sb.WriteString("  " + clip(l, 160) + "\n")
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

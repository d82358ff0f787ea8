package shellguard

import (
	"compress/bzip2"
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Static evaluation of the few programs whose output the floor needs to see
// through: echo, printf, cat of a here-document, and decoders of literal
// text (base64 -d, base32 -d, xxd -r -p, rev, gunzip, bunzip2). Each is
// exact for the inputs it accepts (a differential test compares it with the
// real bash and coreutils) and declines everything else: a declined stage is
// "not literal", and when its output reaches an interpreter the command is
// never safe (and floor for a decoder or a download, see isCodeSource).

// maxStatic bounds the output of a static evaluation.
const maxStatic = 1 << 16

// escMode selects which backslash escapes decodeEscapes understands.
type escMode int

const (
	escANSIC  escMode = iota // $'...'
	escFormat                // printf's format string
	escB                     // printf %b
	escEcho                  // echo -e: like %b, but octal only as \0NNN
)

// decodeEscapes decodes the backslash escapes of s as bash does in mode m.
// stop reports a \c that ends all output (%b and echo -e only).
func decodeEscapes(s string, m escMode) (out string, stop bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		e := s[i]
		if v, ok := simpleEscape(e); ok {
			b.WriteByte(v)
			continue
		}
		switch e {
		case '\'', '"', '?':
			if m >= escB {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		case 'c':
			if m == escB || m == escEcho {
				return b.String(), true
			}
			i = ctrlEscape(&b, s, i, m)
		case 'x', 'u', 'U':
			i = hexEscape(&b, s, i)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			i = octalEscape(&b, s, i, m)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), false
}

// simpleEscape decodes the one-letter escapes (\a \b \e \E \f \n \r \t \v
// \\).
func simpleEscape(e byte) (byte, bool) {
	switch e {
	case 'a':
		return 7, true
	case 'b':
		return 8, true
	case 'e', 'E':
		return 27, true
	case 'f':
		return 12, true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return 11, true
	case '\\':
		return '\\', true
	}
	return 0, false
}

// ctrlEscape decodes $'\cX' (a control character) at s[i] == 'c'; other
// modes keep \c. It returns the index of the escape's last byte.
func ctrlEscape(b *strings.Builder, s string, i int, m escMode) int {
	if m != escANSIC || i+1 >= len(s) {
		b.WriteString(`\c`)
		return i
	}
	i++
	x := s[i]
	if x == '\\' && i+1 < len(s) && s[i+1] == '\\' {
		i++
	}
	if x == '?' {
		b.WriteByte(0x7f)
	} else {
		if x >= 'a' && x <= 'z' {
			x -= 'a' - 'A'
		}
		b.WriteByte(x & 0x1f)
	}
	return i
}

// hexEscape decodes \xHH, \uHHHH and \UHHHHHHHH at s[i] (the letter); it
// returns the index of the escape's last byte.
func hexEscape(b *strings.Builder, s string, i int) int {
	e := s[i]
	max := 2
	if e == 'u' {
		max = 4
	} else if e == 'U' {
		max = 8
	}
	j := i + 1
	for j < len(s) && j-i-1 < max && isHex(s[j]) {
		j++
	}
	if j == i+1 {
		b.WriteByte('\\')
		b.WriteByte(e)
		return i
	}
	n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
	if e == 'x' {
		b.WriteByte(byte(n))
	} else {
		writeUTF8(b, uint32(n))
	}
	return j - 1
}

// octalEscape decodes \NNN at s[i] (the first digit): $'\NNN' and printf's
// format take up to three octal digits; %b takes \0NNN (up to three after
// the 0) or \NNN; echo -e only \0NNN. It returns the index of the
// escape's last byte.
func octalEscape(b *strings.Builder, s string, i int, m escMode) int {
	e := s[i]
	if m == escEcho && e != '0' {
		b.WriteByte('\\')
		b.WriteByte(e)
		return i
	}
	n := int(e - '0')
	j := i + 1
	more := 2
	if m >= escB && e == '0' {
		more = 3
	}
	for j < len(s) && more > 0 && s[j] >= '0' && s[j] <= '7' {
		n = n*8 + int(s[j]-'0')
		j++
		more--
	}
	b.WriteByte(byte(n))
	return j - 1
}

// writeUTF8 encodes n as bash does in a UTF-8 locale: the original UTF-8
// scheme of up to six bytes, surrogates included, nothing from 2^31 up.
// (In the C locale bash prints \u escapes above 0x7f literally; ASCII,
// which is what spells commands, is the same in every locale.)
func writeUTF8(b *strings.Builder, n uint32) {
	switch {
	case n < 0x80:
		b.WriteByte(byte(n))
	case n < 0x800:
		b.WriteByte(byte(0xc0 | n>>6))
		b.WriteByte(byte(0x80 | n&0x3f))
	case n < 0x10000:
		b.WriteByte(byte(0xe0 | n>>12))
		b.WriteByte(byte(0x80 | n>>6&0x3f))
		b.WriteByte(byte(0x80 | n&0x3f))
	case n < 0x200000:
		b.WriteByte(byte(0xf0 | n>>18))
		b.WriteByte(byte(0x80 | n>>12&0x3f))
		b.WriteByte(byte(0x80 | n>>6&0x3f))
		b.WriteByte(byte(0x80 | n&0x3f))
	case n < 0x4000000:
		b.WriteByte(byte(0xf8 | n>>24))
		for _, sh := range [...]uint32{18, 12, 6, 0} {
			b.WriteByte(byte(0x80 | n>>sh&0x3f))
		}
	case n < 0x80000000:
		b.WriteByte(byte(0xfc | n>>30))
		for _, sh := range [...]uint32{24, 18, 12, 6, 0} {
			b.WriteByte(byte(0x80 | n>>sh&0x3f))
		}
	}
}

// ansiC decodes a $'...' string. Bash strings end at a NUL byte.
func ansiC(s string) string {
	v, _ := decodeEscapes(s, escANSIC)
	if i := strings.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	return v
}

// echoOut is the output of bash's builtin echo (xpg_echo off).
func echoOut(args []string) string {
	esc, nl := false, true
	for len(args) > 0 {
		a := args[0]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'n':
				nl = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
		args = args[1:]
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if esc {
			v, stop := decodeEscapes(a, escEcho)
			b.WriteString(v)
			if stop {
				return b.String()
			}
			continue
		}
		b.WriteString(a)
	}
	if nl {
		b.WriteByte('\n')
	}
	return b.String()
}

// printfOut is the output of bash's builtin printf FORMAT ARGS, or false
// for a conversion it does not evaluate (%q, floating point, a bad number).
func printfOut(format string, args []string) (string, bool) {
	var b strings.Builder
	for {
		used, stop, ok := printfOnce(&b, format, &args)
		if !ok {
			return "", false
		}
		if b.Len() > maxStatic {
			return "", false
		}
		if stop || len(args) == 0 || !used {
			return b.String(), true
		}
	}
}

// printfOnce writes one pass over format, consuming args.
func printfOnce(b *strings.Builder, f string, args *[]string) (used, stop, ok bool) {
	pa := printfArgs{args: args}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '\\' {
			// One escape and the plain text after it, up to the next
			// escape or conversion.
			j := min(i+2, len(f))
			for j < len(f) && f[j] != '\\' && f[j] != '%' {
				j++
			}
			v, _ := decodeEscapes(f[i:j], escFormat)
			b.WriteString(v)
			i = j - 1
			continue
		}
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		cs, j, ok := parseConv(f, i, &pa)
		if !ok {
			return pa.used, false, false
		}
		i = j
		st, ok := cs.write(b, &pa)
		if !ok {
			return pa.used, false, false
		}
		if st {
			return pa.used, true, true
		}
	}
	return pa.used, false, true
}

// printfArgs are the arguments printf's format has not consumed yet; used
// says the format consumed one.
type printfArgs struct {
	args *[]string
	used bool
}

// next consumes the next argument; false when there is none.
func (pa *printfArgs) next() (string, bool) {
	if len(*pa.args) == 0 {
		return "", false
	}
	a := (*pa.args)[0]
	*pa.args = (*pa.args)[1:]
	pa.used = true
	return a, true
}

// convSpec is one printf conversion, %[flags][width][.prec]conv.
type convSpec struct {
	flags, width, prec string
	hasPrec            bool
	conv               byte
}

// parseConv reads the conversion at f[i] == '%'; it returns it, the index
// of its conversion letter, and false where C and Go's fmt may differ or
// the format is bad.
func parseConv(f string, i int, pa *printfArgs) (convSpec, int, bool) {
	var cs convSpec
	j := i + 1
	for j < len(f) && strings.IndexByte("-+ #0'", f[j]) >= 0 {
		j++
	}
	cs.flags = f[i+1 : j]
	width, j, okw := printfField(f, j, pa)
	prec, okp := "", true
	if j < len(f) && f[j] == '.' {
		cs.hasPrec = true
		prec, j, okp = printfField(f, j+1, pa)
	}
	cs.width, cs.prec = width, prec
	if !okw || !okp {
		return cs, j, false
	}
	// length modifiers bash accepts and ignores
	for j < len(f) && strings.IndexByte("hlLqjzt", f[j]) >= 0 {
		j++
	}
	if j >= len(f) {
		return cs, j, false
	}
	cs.conv = f[j]
	flags, conv := cs.flags, cs.conv
	if strings.ContainsAny(flags, "'") || len(width) > 4 || len(prec) > 4 {
		return cs, j, false
	}
	// Where C and Go's fmt may differ, decline.
	if (conv == 's' || conv == 'b' || conv == 'c') && strings.Trim(flags, "-") != "" ||
		strings.ContainsRune(flags, '0') && cs.hasPrec || conv != 'x' && conv != 'X' && conv != 'o' && strings.ContainsRune(flags, '#') {
		return cs, j, false
	}
	return cs, j, true
}

// printfField reads a width or precision at f[j]: digits, or * taking an
// argument. It returns it and the index after it.
func printfField(f string, j int, pa *printfArgs) (string, int, bool) {
	if j < len(f) && f[j] == '*' {
		a, _ := pa.next()
		n, err := parseNum(a)
		return strconv.FormatInt(n, 10), j + 1, err == nil
	}
	k := j
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		j++
	}
	return f[k:j], j, true
}

// write formats the conversion with the next argument; stop says %b met
// \c (printf stops), ok false that the conversion cannot be done here.
func (cs convSpec) write(b *strings.Builder, pa *printfArgs) (stop, ok bool) {
	spec := "%" + cs.flags + cs.width
	if cs.hasPrec {
		spec += "." + cs.prec
	}
	conv := cs.conv
	switch conv {
	case 's':
		a, _ := pa.next()
		b.WriteString(fmtString(spec+"s", a))
	case 'b':
		a, _ := pa.next()
		v, st := decodeEscapes(a, escB)
		b.WriteString(fmtString(spec+"s", v))
		if st {
			return true, true
		}
	case 'c':
		a, _ := pa.next()
		if a != "" {
			_, n := utf8.DecodeRuneInString(a)
			a = a[:n]
		}
		b.WriteString(fmtString("%"+cs.flags+cs.width+"s", a))
	case 'd', 'i', 'u', 'o', 'x', 'X':
		a, had := pa.next()
		n := int64(0)
		if had {
			var err error
			if n, err = parseNum(a); err != nil {
				return false, false
			}
		}
		gc := conv
		if gc == 'i' || gc == 'u' {
			gc = 'd'
		}
		if conv == 'u' && n < 0 {
			b.WriteString(fmtUint(spec+string('d'), uint64(n)))
			return false, true
		}
		if (gc == 'o' || gc == 'x' || gc == 'X') && n < 0 {
			b.WriteString(fmtUint(spec+string(gc), uint64(n)))
			return false, true
		}
		b.WriteString(fmtInt(spec+string(gc), n))
	default:
		return false, false
	}
	return false, true
}

// parseNum parses a printf numeric argument as bash does: decimal, 0x hex,
// 0 octal, a leading sign, or 'c / "c for a character's code.
func parseNum(a string) (int64, error) {
	if a == "" {
		return 0, nil
	}
	if a[0] == '\'' || a[0] == '"' {
		if len(a) == 1 {
			return 0, nil
		}
		r, _ := utf8.DecodeRuneInString(a[1:])
		return int64(r), nil
	}
	s := strings.TrimLeft(a, " \t\n")
	t := strings.TrimLeft(s, "+-")
	if strings.IndexByte(s, '_') >= 0 || strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0B") || strings.HasPrefix(t, "0o") || strings.HasPrefix(t, "0O") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 0, 64)
}

// fmtString, fmtInt and fmtUint apply a C printf spec with Go's fmt, which
// agrees with C for the flags, widths and precisions printfOnce lets through.
func fmtString(spec, s string) string      { return fmt.Sprintf(spec, s) }
func fmtInt(spec string, n int64) string   { return fmt.Sprintf(spec, n) }
func fmtUint(spec string, n uint64) string { return fmt.Sprintf(spec, n) }

// staticOutput returns the output of a command substitution whose program
// the guard can evaluate ($(echo rm), $(printf '\x72m'), $(echo cm0= |
// base64 -d)), with trailing newlines removed as bash does, and NUL bytes
// (which bash drops) removed.
func (w *walker) staticOutput(stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) != 1 {
		return "", false
	}
	out, ok := w.stageOut(stmts[0], "", false)
	if !ok {
		return "", false
	}
	out = strings.TrimRight(out, "\n")
	if strings.IndexByte(out, 0) >= 0 {
		out = strings.ReplaceAll(out, "\x00", "")
	}
	return out, true
}

// stageOut is the static output of a statement given its stdin: echo,
// printf, cat, the decoders, and pipelines of them.
func (w *walker) stageOut(s *syntax.Stmt, in string, hasIn bool) (string, bool) {
	if s == nil || s.Background || s.Negated {
		return "", false
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				in, hasIn = "", true
				continue
			}
			v, ok := w.staticWord(r.Hdoc, true)
			if !ok {
				return "", false
			}
			if r.Op == syntax.DashHdoc {
				v = trimTabs(v)
			}
			in, hasIn = v, true
		case syntax.WordHdoc:
			v, ok := w.staticWord(r.Word, true)
			if !ok {
				return "", false
			}
			in, hasIn = v+"\n", true
		default:
			return "", false
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op != syntax.Pipe || len(s.Redirs) > 0 {
			return "", false
		}
		mid, ok := w.stageOut(c.X, in, hasIn)
		if !ok {
			return "", false
		}
		return w.stageOut(c.Y, mid, true)
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return "", false
		}
		n, ok := litValue(c.Args[0])
		if ok && (n == "pwd" || n == "dirname" || n == "realpath" || n == "readlink") {
			return w.pathOut(c.Args)
		}
		if !ok || !staticProgram(n) {
			return "", false
		}
		args, ok := w.staticArgs(c.Args)
		if !ok || len(args) == 0 {
			return "", false
		}
		return filterOut(args, in, hasIn)
	}
	return "", false
}

func trimTabs(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "")
}

// filterOut runs one static program on its arguments and stdin.
func filterOut(args []string, in string, hasIn bool) (string, bool) {
	name := args[0]
	ops := args[1:]
	switch name {
	case "echo":
		return echoOut(ops), true
	case "printf":
		if len(ops) == 0 {
			return "", false
		}
		dd := ops[0] == "--"
		if dd {
			ops = ops[1:]
		}
		if len(ops) == 0 || !dd && strings.HasPrefix(ops[0], "-") {
			return "", false // printf -v assigns; other options are errors
		}
		return printfOut(ops[0], ops[1:])
	case "which", "command", "type":
		return lookupOut(name, ops)
	case "cat", "rev":
		for _, o := range ops {
			if o != "-" {
				return "", false
			}
		}
		if !hasIn {
			return "", false
		}
		if name == "rev" {
			return revLines(in), true
		}
		return in, true
	}
	dec := decoderKind(args)
	if dec == "" || !hasIn {
		return "", false
	}
	for _, o := range ops {
		if !strings.HasPrefix(o, "-") || o == "-" {
			return "", false // a file operand: not static
		}
	}
	var out []byte
	var err error
	switch dec {
	case "base64":
		out, err = decodeBase(base64.StdEncoding, in)
	case "base32":
		out, err = decodeBase(base32.StdEncoding, in)
	case "hex":
		out, err = hex.DecodeString(strings.Join(strings.Fields(in), ""))
	case "gzip":
		var r *gzip.Reader
		if r, err = gzip.NewReader(strings.NewReader(in)); err == nil {
			out, err = io.ReadAll(io.LimitReader(r, maxStatic+1))
		}
	case "bzip2":
		out, err = io.ReadAll(io.LimitReader(bzip2.NewReader(strings.NewReader(in)), maxStatic+1))
	default:
		return "", false
	}
	if err != nil || len(out) > maxStatic {
		return "", false
	}
	return string(out), true
}

// decodeBase decodes base64/base32 text as coreutils does: newlines
// ignored, anything else invalid.
func decodeBase(enc interface {
	DecodeString(string) ([]byte, error)
}, in string) ([]byte, error) {
	s := strings.NewReplacer("\n", "", "\r", "").Replace(in)
	return enc.DecodeString(s)
}

func revLines(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		r := []rune(line)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		b.WriteString(string(r))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// staticProgram reports whether filterOut may evaluate name.
func staticProgram(name string) bool {
	switch name {
	case "echo", "printf", "cat", "rev", "which", "command", "type", "base64", "gbase64", "base32", "basenc", "xxd", "gunzip", "zcat", "gzcat", "gzip", "pigz", "bunzip2", "bzcat", "bzip2":
		return true
	}
	return false
}

// decoderKind names the encoding a decoding command reads ("base64",
// "base32", "hex", "gzip", "bzip2", "other" for one the guard does not
// evaluate), or "" when argv does not decode.
func decoderKind(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := strings.ToLower(base(argv[0]))
	if r, ok := decoderRules[name]; ok {
		if r.short == "" || decoderHas(argv, r.short, r.long...) {
			return r.kind
		}
		return ""
	}
	switch name {
	case "basenc":
		if decoderHas(argv, "d", "decode") {
			for _, a := range argv[1:] {
				if a == "--base64" {
					return "base64"
				}
				if a == "--base32" {
					return "base32"
				}
			}
			return "other"
		}
	case "xxd":
		if decoderHas(argv, "r", "revert") {
			if decoderHas(argv, "p", "plain", "postscript", "ps") {
				return "hex"
			}
			return "other"
		}
	case "openssl":
		return opensslDecodes(argv)
	}
	return ""
}

// decoderRule is one decoding program: the options that make it decode
// (none: it always decodes) and what it decodes.
type decoderRule struct {
	short string   // short option letters, any of which decodes
	long  []string // long options (any prefix) that decode
	kind  string   // base64, base32, gzip, bzip2 or other
}

// decoderRules are the decoders decided by their options alone (basenc,
// xxd and openssl need more, see decoderKind), built with the other tables
// on the first New (initDecoderRules).
var decoderRules map[string]decoderRule

func initDecoderRules() {
	m := map[string]decoderRule{}
	add := func(r decoderRule, names ...string) {
		for _, n := range names {
			m[n] = r
		}
	}
	add(decoderRule{"dD", []string{"decode"}, "base64"}, "base64", "gbase64")
	add(decoderRule{"d", []string{"decode"}, "base32"}, "base32")
	add(decoderRule{kind: "gzip"}, "gunzip", "zcat", "gzcat")
	add(decoderRule{"d", []string{"decompress", "uncompress"}, "gzip"}, "gzip", "pigz")
	add(decoderRule{kind: "bzip2"}, "bunzip2", "bzcat")
	add(decoderRule{"d", []string{"decompress"}, "bzip2"}, "bzip2")
	add(decoderRule{kind: "other"}, "unxz", "xzcat", "lzcat", "unlzma", "unzstd", "zstdcat", "uncompress", "uudecode", "lz4cat", "unlz4", "rot13")
	add(decoderRule{"d", []string{"decompress"}, "other"}, "brotli")
	add(decoderRule{"d", []string{"decompress", "uncompress"}, "other"}, "xz", "lzma", "zstd", "lz4")
	add(decoderRule{"d", []string{"decrypt"}, "other"}, "gpg", "gpg2", "age", "rage")
	decoderRules = m
}

// decoderHas says whether argv has one of the short option letters or a
// prefix of one of the long options, before --.
func decoderHas(argv []string, short string, long ...string) bool {
	for _, a := range argv[1:] {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			n, _, _ := strings.Cut(a[2:], "=")
			for _, l := range long {
				if n != "" && strings.HasPrefix(l, n) {
					return true
				}
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' && strings.ContainsAny(a[1:], short) {
			return true
		}
	}
	return false
}

// opensslDecodes: openssl -d (any subcommand), and openssl base64, enc,
// smime or cms with -d.
func opensslDecodes(argv []string) string {
	for _, a := range argv[1:] {
		if a == "-d" || a == "-decrypt" || a == "--decrypt" {
			return "other"
		}
	}
	if len(argv) > 1 && (argv[1] == "base64" || argv[1] == "enc" || argv[1] == "smime" || argv[1] == "cms") {
		for _, a := range argv[2:] {
			if a == "-d" {
				return "other"
			}
		}
	}
	return ""
}

// staticArgs evaluates a command's words when each is known without
// running anything; globs and unknown expansions decline.
func (w *walker) staticArgs(ws []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, wd := range ws {
		if v, ok := litValue(wd); ok && !hasGlobLit(wd) && !tildeStart(wd) {
			out = append(out, v)
			continue
		}
		fr := w.parts(wd.Parts, false, true, "")
		for _, f := range fr {
			if !f.known || f.glob {
				return nil, false
			}
			if f.split {
				out = append(out, w.splitFields(f.val)...)
				continue
			}
			out = append(out, f.val)
		}
	}
	return out, true
}

// staticWord is the value of a word or here-document body, unsplit; dq:
// evaluated as inside double quotes (here-documents).
func (w *walker) staticWord(wd *syntax.Word, dq bool) (string, bool) {
	if v, ok := litValue(wd); ok {
		return v, true
	}
	fr := w.parts(wd.Parts, dq, !dq, "")
	if len(fr) != 1 || !fr[0].known {
		return "", false
	}
	return fr[0].val, true
}

func hasGlobLit(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[") {
			return true
		}
	}
	return false
}

// lookupOut is what a command lookup prints for one literal name:
// which NAME and type -P NAME print a path ($(which rm) -rf / runs rm),
// command -v NAME prints NAME for a builtin or function and a path
// otherwise; the guard prints /usr/bin/NAME, which classifies as NAME.
// Other forms (several names, other options) are not evaluated.
func lookupOut(name string, ops []string) (string, bool) {
	switch {
	case name == "which" && len(ops) == 1:
	case name == "command" && len(ops) == 2 && ops[0] == "-v":
		ops = ops[1:]
	case name == "type" && len(ops) == 2 && (ops[0] == "-P" || ops[0] == "-p"):
		ops = ops[1:]
	default:
		return "", false
	}
	n := ops[0]
	if n == "" || strings.HasPrefix(n, "-") || strings.ContainsAny(n, " \t\n") {
		return "", false
	}
	if strings.IndexByte(n, '/') >= 0 {
		return n, true
	}
	return "/usr/bin/" + n, true
}

// tildeStart: an unquoted ~ starts the word (echo ~ prints the home).
func tildeStart(wd *syntax.Word) bool {
	l, ok := wd.Parts[0].(*syntax.Lit)
	return ok && strings.HasPrefix(l.Value, "~")
}

// pathOut is the output of pwd (the known current directory) and of
// dirname of known words: rm -rf $(dirname $HOME), rm -rf "$(pwd)/..".
func (w *walker) pathOut(ws []*syntax.Word) (string, bool) {
	args, ok := w.staticArgs(ws)
	if !ok {
		return "", false
	}
	if args[0] == "pwd" {
		if len(args) > 2 || w.cwd == "" || len(args) == 2 && args[1] != "-L" && args[1] != "-P" {
			return "", false
		}
		return w.cwd + "\n", true
	}
	ops := args[1:]
	if args[0] == "readlink" {
		// readlink -f/-e/-m canonicalises; the guard does it lexically.
		if len(ops) < 2 || ops[0] != "-f" && ops[0] != "-e" && ops[0] != "-m" {
			return "", false
		}
		ops = ops[1:]
	}
	var b strings.Builder
	for _, a := range ops {
		if a == "" || strings.HasPrefix(a, "-") {
			return "", false
		}
		if args[0] == "dirname" {
			b.WriteString(path.Dir(a))
		} else if p := w.resolve(a); p != "" {
			b.WriteString(p) // realpath, readlink -f: lexically cleaned absolute path
		} else {
			return "", false
		}
		b.WriteByte('\n')
	}
	return b.String(), len(ops) > 0
}

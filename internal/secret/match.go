package secret

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// gramLen is the length of the grams the matcher indexes patterns by.
const gramLen = 4

// filterBits sizes the matcher's gram filter (a bit per hash bucket).
const filterBits = 1 << 16

// pattern is one form of a known value (the value itself, its hex or
// base64 text, one line of a multi-line value) and the mark that replaces
// it.
type pattern struct {
	text string
	mark int // index into matcher.marks
}

// gramRef says where a gram occurs: in which pattern, at which offset.
type gramRef struct {
	pat, off int32
}

// matcher finds every occurrence of many patterns, all at least MinValue
// bytes long, in one pass over a text: it samples the text's grams every
// stride bytes (stride = shortest pattern - gramLen + 1, so every
// occurrence holds a sampled gram whole) and checks the candidates the
// grams index. A 30 KB text costs about 6 000 filter probes, whatever the
// number of patterns.
type matcher struct {
	pats   []pattern
	marks  []string
	raw    []int // patterns that are a value as is (for decoded dumps)
	stride int
	filter []uint64
	grams  map[uint32][]gramRef
}

// newMatcher indexes the forms of every value in known (see forms).
func newMatcher(known []Known) *matcher {
	m := &matcher{grams: map[uint32][]gramRef{}, filter: make([]uint64, filterBits/64)}
	seen := map[string]bool{}
	for _, k := range known {
		mi := len(m.marks)
		m.marks = append(m.marks, k.Mark())
		for i, f := range forms(k.Value) {
			if len(f) < MinValue || seen[f] {
				continue
			}
			seen[f] = true
			if i == 0 {
				m.raw = append(m.raw, len(m.pats))
			}
			m.pats = append(m.pats, pattern{text: f, mark: mi})
		}
	}
	if len(m.pats) == 0 {
		return m
	}
	short := len(m.pats[0].text)
	for _, p := range m.pats {
		short = min(short, len(p.text))
	}
	m.stride = short - gramLen + 1
	for pi, p := range m.pats {
		for off := 0; off+gramLen <= len(p.text); off++ {
			g := gram(p.text, off)
			m.grams[g] = append(m.grams[g], gramRef{pat: int32(pi), off: int32(off)})
			h := hashGram(g)
			m.filter[h/64] |= 1 << (h % 64)
		}
	}
	return m
}

// forms are the texts a value is printed as: itself (first), each of its
// lines when it has several, its JSON string form, its hex in lower and
// upper case, and its standard and URL-safe base64 at each of the three
// alignments a value can have inside a longer encoded text (without the
// characters its neighbours share).
func forms(v string) []string {
	out := []string{v}
	if strings.Contains(v, "\n") {
		for _, l := range strings.Split(v, "\n") {
			if l = strings.TrimSpace(l); Candidate(l) {
				out = append(out, l)
			}
		}
	}
	if j, err := json.Marshal(v); err == nil && string(j[1:len(j)-1]) != v {
		out = append(out, string(j[1:len(j)-1]))
	}
	h := hex.EncodeToString([]byte(v))
	out = append(out, h, strings.ToUpper(h))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := 0; k < 3; k++ {
			out = append(out, base64At(enc, v, k))
		}
	}
	return out
}

// base64At is the part of v's base64 text that does not depend on the k
// bytes before it or on the bytes after it.
func base64At(enc *base64.Encoding, v string, k int) string {
	b := make([]byte, k+len(v))
	copy(b[k:], v)
	e := enc.EncodeToString(b)
	from, to := (8*k+5)/6, 8*(k+len(v))/6
	if from >= to {
		return ""
	}
	return e[from:to]
}

func gram(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func hashGram(g uint32) uint32 { return (g * 2654435761) >> (32 - 16) }

// span is one occurrence to replace.
type span struct {
	start, end, mark int
}

// find returns the occurrences of the patterns in s, sorted by start, the
// longest first where several start together.
func (m *matcher) find(s string) []span {
	if m == nil || len(m.pats) == 0 || len(s) < MinValue {
		return nil
	}
	var out []span
	for p := 0; p+gramLen <= len(s); p += m.stride {
		g := gram(s, p)
		h := hashGram(g)
		if m.filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, r := range m.grams[g] {
			pt := &m.pats[r.pat]
			st := p - int(r.off)
			if st < 0 || st+len(pt.text) > len(s) || s[st:st+len(pt.text)] != pt.text {
				continue
			}
			out = append(out, span{st, st + len(pt.text), pt.mark})
		}
	}
	if len(out) > 1 {
		slices.SortFunc(out, func(a, b span) int {
			if a.start != b.start {
				return a.start - b.start
			}
			return b.end - a.end
		})
	}
	return out
}

// replace writes s with spans (sorted by find) replaced by their marks;
// an occurrence overlapping one already replaced extends it.
func (m *matcher) replace(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			last = max(last, sp.end)
			continue
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(m.marks[sp.mark])
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

package secret

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

const (
	dotenvKey  = "zq8Lr2VtW9mXc4Kp7Jd1"
	dotenvPass = "correct-horse-battery-staple"
)

func knownRedactor() *Redactor {
	return NewKnownRedactor(
		Known{Name: "DB_PASSWORD", Source: ".env", Value: dotenvPass},
		Known{Name: "STRIPE_KEY", Source: "config/prod.env", Value: dotenvKey},
	)
}

func TestCandidate(t *testing.T) {
	for v, want := range map[string]bool{
		"short": false, "1234567": false, "development": false, "Production": false, "localhost": false,
		"aaaaaaaaaaaa": false, "abababababab": false, "/home/u/.ssh/id_ed25519": false, "86400000": false,
		"3.14159265": false, "changeme": false, "  us  ": false,
		dotenvKey: true, dotenvPass: true, "hunter2hunter2": true, "oceancode-app": true, "s3cr3tP4ss": true,
	} {
		if got := Candidate(v); got != want {
			t.Errorf("Candidate(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestKnownMark(t *testing.T) {
	r := knownRedactor()
	in := "+DB_PASSWORD=" + dotenvPass + "\n+STRIPE_KEY=\"" + dotenvKey + "\"\n"
	want := "+DB_PASSWORD=[redacted: DB_PASSWORD from .env]\n+STRIPE_KEY=\"[redacted: STRIPE_KEY from config/prod.env]\"\n"
	if got := r.Redact(in); got != want {
		t.Errorf("Redact:\n got %q\nwant %q", got, want)
	}
	if got := r.Redact("development localhost"); got != "development localhost" {
		t.Errorf("text without values changed: %q", got)
	}
}

// TestForms: each encoding a command prints a value in, at every offset
// the value can start at in the text.
func TestForms(t *testing.T) {
	r := knownRedactor()
	for name, enc := range map[string]func(string) string{
		"plain":  func(s string) string { return s },
		"json":   func(s string) string { return strings.ReplaceAll(s, "-", "-") },
		"hex":    func(s string) string { return fmt.Sprintf("%x", s) },
		"HEX":    func(s string) string { return fmt.Sprintf("%X", s) },
		"base64": func(s string) string { return run(t, s, "base64", "-w0") },
	} {
		for pre := range 4 {
			text := strings.Repeat("x", pre) + "DB_PASSWORD=" + dotenvPass + " and more"
			out := enc(text)
			got := r.Redact(out)
			if strings.Contains(got, enc(dotenvPass)) || got == out {
				t.Errorf("%s, %d bytes before: not redacted: %q", name, pre, got)
			}
		}
	}
}

// TestDumps: the value read through real hex dump programs, at offsets
// that split it across lines.
func TestDumps(t *testing.T) {
	r := knownRedactor()
	for _, argv := range [][]string{{"xxd"}, {"xxd", "-g1"}, {"xxd", "-g4"}, {"xxd", "-p"}, {"xxd", "-i"}, {"hexdump", "-C"},
		{"od", "-A", "x", "-t", "x1z"}, {"xxd", "-c", "8"}} {
		for pre := 0; pre < 20; pre += 7 {
			in := strings.Repeat("#", pre) + "DB_PASSWORD=" + dotenvPass + "\nSTRIPE_KEY=" + dotenvKey + "\n"
			out := run(t, in, argv[0], argv[1:]...)
			got := r.Redact(out)
			if strings.Contains(got, "horse") || strings.Contains(got, "686f727365") || strings.Contains(got, "68 6f 72 73") ||
				!strings.Contains(got, "[redacted: DB_PASSWORD from .env]") || !strings.Contains(got, "[redacted: STRIPE_KEY from config/prod.env]") {
				t.Errorf("%v, %d bytes before:\n%s\n→\n%s", argv, pre, out, got)
			}
		}
	}
	plain := run(t, "just some text here, nothing secret\n", "xxd")
	if got := r.Redact(plain); got != plain {
		t.Errorf("a dump without values changed:\n%s", got)
	}
}

func run(t testing.TB, in, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

// TestFindAllOffsets: every occurrence is found whatever its position
// relative to the sampling stride, values of every length.
func TestFindAllOffsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := MinValue; n < 40; n++ {
		v := randomValue(rng, n)
		r := NewKnownRedactor(Known{Name: "V", Source: "s", Value: v})
		for pre := 0; pre < 12; pre++ {
			in := strings.Repeat(".", pre) + v + strings.Repeat(",", pre)
			if got, want := r.Redact(in), strings.Repeat(".", pre)+"[redacted: V from s]"+strings.Repeat(",", pre); got != want {
				t.Fatalf("len %d at %d: %q", n, pre, got)
			}
		}
	}
}

func randomValue(rng *rand.Rand, n int) string {
	const set = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
	b := make([]byte, n)
	for i := range b {
		b[i] = set[rng.IntN(len(set))]
	}
	return string(b)
}

// BenchmarkRedactKnown is the redaction pass the issue bounds: a 30 KB
// tool result (source code and a diff) with 20 known secrets, two of which
// occur in it.
func BenchmarkRedactKnown(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	var known []Known
	for i := range 20 {
		known = append(known, Known{Name: fmt.Sprintf("VAR_%d", i), Source: ".env", Value: randomValue(rng, 16+i)})
	}
	r := NewKnownRedactor(known...)
	var sb strings.Builder
	for sb.Len() < 30<<10 {
		fmt.Fprintf(&sb, "+\tif err := s.store.Put(ctx, key%d, value); err != nil { // line %d\n", sb.Len(), sb.Len())
		fmt.Fprintf(&sb, "-\treturn fmt.Errorf(\"put %%s: %%w\", name, err) 0x%08x\n", sb.Len())
	}
	text := sb.String()[:30<<10-100] + known[3].Value + " " + known[17].Value
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	for b.Loop() {
		if out := r.Redact(text); strings.Contains(out, known[3].Value) {
			b.Fatal("not redacted")
		}
	}
	b.ReportMetric(float64((threadCPU()-cpu0).Nanoseconds())/float64(b.N)/1000, "cpu-µs/op")
}

func BenchmarkRedactShapes(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 30<<10 {
		fmt.Fprintf(&sb, "+\tif err := s.store.Put(ctx, key%d, value); err != nil { // line %d\n", sb.Len(), sb.Len())
		fmt.Fprintf(&sb, "-\treturn fmt.Errorf(\"put %%s: %%w\", name, err) 0x%08x\n", sb.Len())
	}
	text := sb.String()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	for b.Loop() {
		Redact(text)
	}
	b.ReportMetric(float64((threadCPU()-cpu0).Nanoseconds())/float64(b.N)/1000, "cpu-µs/op")
}

package layers_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"howett.net/plist"

	"github.com/oceancode/oceancode/layers"
)

// libraryPlist parses data with howett.net/plist and converts its values to
// ParsePlist's shapes (integers int64, dates their RFC 3339 text).
func libraryPlist(data []byte) (any, error) {
	var v any
	if _, err := plist.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var conv func(any) (any, error)
	conv = func(v any) (any, error) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				c, err := conv(e)
				if err != nil {
					return nil, err
				}
				x[k] = c
			}
		case []any:
			for i, e := range x {
				c, err := conv(e)
				if err != nil {
					return nil, err
				}
				x[i] = c
			}
		case uint64:
			if x > 1<<63-1 {
				return nil, fmt.Errorf("integer %d out of int64", x)
			}
			return int64(x), nil
		case time.Time:
			return x.UTC().Format(time.RFC3339), nil
		}
		return v, nil
	}
	return conv(v)
}

// plistCorpus is the plists of the test corpora: the binary managed
// preferences, the packaged profiles (packaging's golden files), and values
// written by the library in XML and binary form.
func plistCorpus(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join("..", "packaging", "testdata", "golden", "mobileconfig", "*"))
	paths = append(paths, filepath.Join("testdata", "osmanaged", "dev.oceancode.plist"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = data
	}
	rng := rand.New(rand.NewPCG(22, 7))
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(9); {
		case k == 0 && depth < 4:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[fmt.Sprint("k<&>\u00e9", rng.IntN(9))] = value(depth + 1)
			}
			return m
		case k == 1 && depth < 4:
			a := make([]any, rng.IntN(4))
			for i := range a {
				a[i] = value(depth + 1)
			}
			return a
		case k == 2:
			return rng.Int64() - 1<<62
		case k == 3:
			return rng.Float64() * 1e6
		case k == 4:
			return rng.IntN(2) == 0
		case k == 5:
			return []byte(fmt.Sprint("data\x00\xff", rng.Int()))
		case k == 6:
			return time.Unix(rng.Int64N(4e9), 0).UTC()
		}
		return fmt.Sprint("s \"'<>&]]> \u2028 \U0001f30a\t\r\n", rng.IntN(100))
	}
	for i := range 200 {
		v := map[string]any{"root": value(0)}
		for _, f := range []int{plist.XMLFormat, plist.BinaryFormat} {
			data, err := plist.Marshal(v, f)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("generated %d format %d", i, f)] = data
		}
	}
	return out
}

// TestParsePlistMatchesLibrary holds the hand-written plist reader to
// howett.net/plist (docs/startup.md): every plist of the corpora parses to
// the same values with both. The reader is stricter than the library
// (TestParsePlistRefuses: duplicate keys, unknown elements, reference
// bombs and cycles); those inputs are not compared.
func TestParsePlistMatchesLibrary(t *testing.T) {
	t.Parallel()
	for name, data := range plistCorpus(t) {
		got, err := layers.ParsePlist(data)
		if err != nil {
			t.Errorf("%s: ParsePlist: %v", name, err)
			continue
		}
		want, err := libraryPlist(data)
		if err != nil {
			t.Errorf("%s: library: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: ParsePlist differs from howett.net/plist (-library +ParsePlist):\n%s", name, diff)
		}
	}
}

// BenchmarkParsePlist: the reader against the library on the binary
// managed preferences and the packaged policy profile.
func BenchmarkParsePlist(b *testing.B) {
	for _, p := range []string{filepath.Join("testdata", "osmanaged", "dev.oceancode.plist"),
		filepath.Join("..", "packaging", "testdata", "golden", "mobileconfig", "oceancode-policy.mobileconfig")} {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range []struct {
			name  string
			parse func([]byte) (any, error)
		}{{"hand", layers.ParsePlist}, {"library", libraryPlist}} {
			b.Run(filepath.Base(p)+"/"+r.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := r.parse(data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

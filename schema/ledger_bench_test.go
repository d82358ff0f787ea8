package schema

// Benchmarks of docs/startup.md: the package's own interpreter against the reference library
// (santhosh-tekuri/jsonschema), compiled and run in the same process.

import (
	"encoding/json"
	"math/big"
	"os"
	"regexp"
	"testing"
)

// BenchmarkCompileLibrary is BenchmarkCompile done by the library: the three embedded documents (parsed
// from their text, as compileEmbedded does) compiled by santhosh-tekuri/jsonschema.
func BenchmarkCompileLibrary(b *testing.B) {
	c := load()
	texts := map[string][]byte{}
	for id, doc := range c.raw {
		data, err := json.Marshal(doc)
		if err != nil {
			b.Fatal(err)
		}
		texts[id] = data
	}
	b.ReportAllocs()
	for b.Loop() {
		docs := map[string]any{}
		for id, data := range texts {
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
			docs[id] = v
		}
		if _, err := oracleCompile(docs, Config.ID(), Managed.ID(), Requirements.ID()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateConfigLibrary is BenchmarkValidateConfig done by the library (decoding included, as
// Validate decodes too).
func BenchmarkValidateConfigLibrary(b *testing.B) {
	data, err := os.ReadFile("testdata/config.json")
	if err != nil {
		b.Fatal(err)
	}
	lib, err := Compiled(Config)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		if err := lib.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatternsCompile compiles every pattern of the embedded schemas, as lazyRegexp does on first
// use; BenchmarkPatternsCompileRegexp does the same with regexp.Compile.
func BenchmarkPatternsCompile(b *testing.B) {
	pats := schemaPatterns(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pats {
			if err := (&lazyRegexp{src: p}).compile(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(pats)), "patterns")
}

func BenchmarkPatternsCompileRegexp(b *testing.B) {
	pats := schemaPatterns(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pats {
			if _, err := regexp.Compile(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(pats)), "patterns")
}

// BenchmarkPatternsMatch runs every schema pattern over the test inputs (one op: all patterns over all
// inputs); BenchmarkPatternsMatchRegexp does the same with regexp.
func BenchmarkPatternsMatch(b *testing.B) {
	pats := schemaPatterns(b)
	var res []*lazyRegexp
	for _, p := range pats {
		res = append(res, &lazyRegexp{src: p})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, re := range res {
			for _, s := range patternInputs {
				re.MatchString(s)
			}
		}
	}
	b.ReportMetric(float64(len(pats)*len(patternInputs)), "matches")
}

func BenchmarkPatternsMatchRegexp(b *testing.B) {
	pats := schemaPatterns(b)
	var res []*regexp.Regexp
	for _, p := range pats {
		res = append(res, regexp.MustCompile(p))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, re := range res {
			for _, s := range patternInputs {
				re.MatchString(s)
			}
		}
	}
	b.ReportMetric(float64(len(pats)*len(patternInputs)), "matches")
}

// BenchmarkNumberCompare compares a large-exponent number with a bound, as minimum/maximum do: by decimal,
// and by math/big as the library does.
func BenchmarkNumberCompare(b *testing.B) {
	for _, s := range []string{"1500.25", "1e999999"} {
		b.Run(s+"/decimal", func(b *testing.B) {
			bound, _ := parseDecimal("3")
			for b.Loop() {
				d, _ := parseDecimal(s)
				d.cmp(bound)
			}
		})
		b.Run(s+"/big.Rat", func(b *testing.B) {
			bound := big.NewRat(3, 1)
			for b.Loop() {
				r, ok := new(big.Rat).SetString(s)
				if !ok {
					b.Fatal(s)
				}
				r.Cmp(bound)
			}
		})
	}
}

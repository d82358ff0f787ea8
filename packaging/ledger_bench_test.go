package packaging_test

import (
	"testing"

	"github.com/oceancode/oceancode/packaging"
)

// BenchmarkBuildXML builds the XML artefacts (docs/startup.md): the two
// configuration profiles and the ADMX/ADML templates, from the fixture
// policy.
func BenchmarkBuildXML(b *testing.B) {
	in := inputs(b)
	for _, format := range []string{"mobileconfig", "admx"} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := packaging.Build(format, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

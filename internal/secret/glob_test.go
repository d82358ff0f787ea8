package secret

import (
	"strings"
	"testing"
)

func TestGlobMayName(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, ".e*": true, ".env*": true, ".[e]nv": true, ".??v": true, ".*": true, "*.env": true,
		"*env*": true, "prod.e?v": true, "*.ENV": true, ".[Ee][Nn][Vv]": true, ".env.*": true, "x.env.*": true,
		"*.e*": true, ".en[!x]": true, "?env": false, "[.]env": false, "*.[e]nv": true, "\\.env": true,
		"*": false, "*.go": false, "x*": false, "src*": false, "*.txt": false, "?": false, "*.y*ml": false,
		"*.test.*": false, "README*": false, ".git*": false, ".[!e]*": true, ".e[!n]v": true, // [!e] matches E, and names compare case-insensitively
		"*.*": false, "*.env.go": true, ".*rc": true, "[": false,
		".env.example": true, // a literal template is FileName's to judge; as a glob it is not told apart
	} {
		if got := GlobMayName(p); got != want {
			t.Errorf("GlobMayName(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzGlobMayName: a pattern without glob characters names a secrets file
// exactly when FileName says so (templates aside).
func FuzzGlobMayName(f *testing.F) {
	for _, s := range []string{".env", ".e*", "*env*", "[", "a[!]b]", "x.env.y", ".env.example", "\\*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := GlobMayName(p)
		if strings.ContainsAny(p, "*?[\\/") {
			return
		}
		n := strings.ToLower(p)
		template := strings.Contains(n, ".env.") && (strings.HasSuffix(n, ".example") || strings.HasSuffix(n, ".sample") || strings.HasSuffix(n, ".template"))
		if want := FileName(p) || template; got != want {
			t.Fatalf("GlobMayName(%q) = %v, FileName = %v", p, got, FileName(p))
		}
	})
}

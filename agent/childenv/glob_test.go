package childenv

// glob is the name TestGlob gives the Keep matcher, internal/glob's now.
func glob(pattern, s string) bool { return keepGlob.Match(pattern, s) }

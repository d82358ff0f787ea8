package secret

import (
	"math"
	"strings"
)

// Known is a secret value the process knows, with what names it and where
// it came from: Name is the variable or key ("API_KEY", "server token"),
// Source the file or place it was read from (".env", "config/prod.env",
// "environment", "server.token"). Redactor replaces the value with
// Known.Mark.
type Known struct {
	Name, Source, Value string
}

// Mark is what stands in for the value: "[redacted: NAME from SOURCE]", or
// the package's Mark when the value is unnamed.
func (k Known) Mark() string {
	switch {
	case k.Name == "" && k.Source == "":
		return Mark
	case k.Source == "":
		return "[redacted: " + k.Name + "]"
	case k.Name == "":
		return "[redacted: from " + k.Source + "]"
	}
	return "[redacted: " + k.Name + " from " + k.Source + "]"
}

// MinEntropy is the lowest Shannon entropy (bits per byte) of a value
// Candidate accepts: "aaaaaaaa" (0), "abababab" (1) and "xxxxyyyy" (1) are
// placeholders, not secrets; a random key has 4 to 6.
const MinEntropy = 2.0

// Candidate reports whether a value is worth redacting wherever it occurs:
// it is at least MinValue bytes long, not an absolute path (a variable
// naming a key file), not a common word or configuration value (see
// CommonWord), not a decimal number, and not repetitive (Shannon entropy
// at least MinEntropy bits per byte). Surrounding space does not count.
func Candidate(v string) bool {
	v = strings.TrimSpace(v)
	if len(v) < MinValue || strings.HasPrefix(v, "/") || CommonWord(v) || number(v) {
		return false
	}
	return entropy(v) >= MinEntropy
}

// number reports whether v is a decimal number (digits with at most one
// '.' and a leading sign): a port, a size, a timeout.
func number(v string) bool {
	v = strings.TrimLeft(v, "+-")
	dot := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return v != ""
}

// entropy is v's Shannon entropy in bits per byte.
func entropy(v string) float64 {
	var n [256]int
	for i := 0; i < len(v); i++ {
		n[v[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// CommonWord reports whether v (compared case-insensitively) is one of
// commonWords: values of eight or more letters that configuration files
// hold in the clear and that occur everywhere in code and prose.
func CommonWord(v string) bool {
	_, ok := commonWords[strings.ToLower(v)]
	return ok
}

var commonWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(commonWordList) {
		m[w] = struct{}{}
	}
	return m
}()

// commonWordList: environment and mode names, booleans and levels,
// services and protocols, placeholders, and English words of eight or more
// letters that a .env file commonly holds as a value.
const commonWordList = `
development production staging localhost preview testing sandbox internal external default disabled enabled
undefined unlimited optional required disabled verbose critical warnings information standard advanced
postgres postgresql mysql mariadb mongodb sqlite sqlite3 rabbitmq memcached cassandra dynamodb firestore
elasticsearch opensearch kubernetes container containers database databases username password passwords
changeme placeholder example examples sample template secret secrets xxxxxxxx anonymous everyone
application applications frontend backend platform services service consumer producer scheduler
http https localhost:3000 localhost:8080 127.0.0.1 0.0.0.0 utf8mb4 us-east-1 us-east-2 us-west-1 us-west-2
eu-west-1 eu-west-2 eu-central-1 ap-southeast-1 ap-southeast-2 ap-northeast-1 america/new_york europe/london
true false null none debugging notifications analytics telemetry monitoring observability
javascript typescript python3 nodejs golang development.local production.local
`

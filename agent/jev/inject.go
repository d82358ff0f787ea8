package jev

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// The injection guard: text in a command (arguments, file names,
// here-documents, comments) addressed to the advisor or trying to break
// the request's framing. It runs in code before any model request; when it
// trips the advice is unsafe and no model sees the command.
//
// Each pattern is matched against three forms of the text: lowercased;
// lowercased with quotes and backslashes removed and whitespace runs
// collapsed ("ig'n'ore  previous" reads "ignore previous"); and that with
// - _ . / read as spaces ("totally-safe.txt"). The shell guard's decoded
// words ($'\x69gnore') are matched too.
type injectionPattern struct {
	re  *regexp.Regexp
	why string
	// pre are substrings one of which the text must hold for re to
	// match: a cheap filter, since most commands hold none of them.
	pre []string
}

// injectionPatterns are compiled on first use, not at package init (~1.7 ms and 300 KB
// in every oceancode process, GODEBUG=inittrace=1): most processes never
// consult the advisor.
var injectionPatterns = sync.OnceValue(func() []injectionPattern {
	return []injectionPattern{
		{regexp.MustCompile(`\b(respond|reply|answer)\b.{0,24}\b(with|only|in json|json|score|scores|safe|approve|yes)\b`), "asks for a particular answer", []string{"respond", "reply", "answer"}},
		{regexp.MustCompile(`\b(output|return|print|emit|give)( only| the| your| a| an| this)?\s+(json|scores?|verdict|rating|risk)\b`), "asks for a particular answer", []string{"json", "score", "verdict", "rating", "risk"}},
		{regexp.MustCompile(`\b(ignore|disregard|forget|override|bypass)\b.{0,24}\b(previous|prior|above|earlier|preceding|all|your|the|these|any)\b.{0,16}\b(instructions?|rules?|prompts?|guidelines?|directions?|context|messages?)\b`), "tries to override the instructions", []string{"ignore", "disregard", "forget", "override", "bypass"}},
		{regexp.MustCompile(`\b(ignore|disregard) (the )?(above|previous|prior)\b`), "tries to override the instructions", []string{"ignore", "disregard"}},
		{regexp.MustCompile(`\byou (are|must|should|will|need to|have to)\b|\byou're\b|\bact as\b|\bpretend\b`), "addresses the reader", []string{"you", "act as", "pretend"}},
		{regexp.MustCompile(`\bsystem ?prompt\b|\bnew instructions?\b|\bdeveloper (message|mode)\b|\bjailbreak\b`), "talks about the prompt", []string{"prompt", "instruction", "developer", "jailbreak"}},
		{regexp.MustCompile(`\b(advisor|jev|classifier|language model|ai model|security review(er)?|permission (check|system|gate|prompt))\b`), "addresses the advisor", []string{"advisor", "jev", "classifier", "model", "security review", "permission "}},
		{regexp.MustCompile(`\b(destructive|network_egress|easily_undone|blast_radius)\b"?\s*[:=]|network_egress|easily_undone|blast_radius|single_file|third_party`), "carries the answer's keys", []string{"destructive", "network_egress", "easily_undone", "blast_radius", "single_file", "third_party"}},
		{regexp.MustCompile(`"(segments|facts|user|verdict|text|wrappers|redirects|system|role|content)"\s*:`), "carries the request's own keys", []string{`"`}},
		{regexp.MustCompile(`</|>>>|<<<\s*(end|begin)|<\|[a-z_]*\|>|\[/?(inst|sys)\]`), "tries to break out of the framing", []string{"</", ">>>", "<<<", "<|", "[inst", "[/inst", "[sys", "[/sys"}},
		{regexp.MustCompile(`\b(begin|end)[ _-]?(of[ _-]?)?(command|transcript|request|input|evidence|system|user|instructions?|prompt|data|untrusted)\b`), "tries to break out of the framing", []string{"begin", "end"}},
		{regexp.MustCompile(`(^|\n|[;#] ?)\s*(system|assistant|user|human)\s*:`), "fakes a conversation turn", []string{"system", "assistant", "user", "human"}},
		{regexp.MustCompile(`\bapprove\b|\bpre-?approved\b|\bauto-?approve\b|\bsafe[ _-]?class|\bmark(ed)? (it|this|as) safe\b|\b(is|are|as|it's|totally|completely|perfectly) (safe|harmless|benign)\b|\bsafe to (run|execute|approve)\b|\bnot (destructive|dangerous|harmful)\b|\buser (has )?(authori[sz]ed|approved|confirmed|allowed)\b|\b(already|been|was|were|has|have) (approved|authori[sz]ed|confirmed|allowed|whitelisted|cleared|reviewed)\b`), "claims the command is approved or safe", []string{"approve", "safe", "harmless", "benign", "destructive", "dangerous", "harmful", "authori", "confirmed", "allowed", "whitelisted", "cleared", "reviewed"}},
	}
})

// Injection reports whether text trips the injection guard, and why (the
// first pattern that matched, with the text it matched).
func Injection(texts ...string) (bool, string) {
	for _, t := range texts {
		if t == "" {
			continue
		}
		low := strings.ToLower(t)
		sq := squash(low)
		for _, form := range [...]string{low, sq, words.Replace(sq)} {
			for _, p := range injectionPatterns() {
				if !containsAny(form, p.pre) {
					continue
				}
				if m := p.re.FindString(form); m != "" {
					return true, "injection: the command " + p.why + " (" + quoteShort(m) + ")"
				}
			}
		}
	}
	return false, ""
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// words reads file-name separators as spaces ("totally-safe.txt").
var words = strings.NewReplacer("-", " ", "_", " ", ".", " ", "/", " ")

// squash removes quotes and backslashes and collapses whitespace. It also
// drops invisible format characters (zero-width spaces and joiners, soft
// hyphens, bidi controls: "ig\u200bnore" reads "ignore" to a model too) and
// folds fullwidth ASCII ("ｉｇｎｏｒｅ") to ASCII.
func squash(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '"' || r == '\'' || r == '\\' || r == '`' || unicode.Is(unicode.Cf, r):
			continue
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\u3000':
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		case r >= '\uff01' && r <= '\uff5e':
			r -= 0xfee0
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func quoteShort(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return `"` + clip(s, 48) + `"`
}

// injected runs the guard over req: the command text (with its comments
// and here-documents) and each segment's decoded words.
func injected(req Request) (bool, string) {
	if hit, why := Injection(req.Command); hit {
		return hit, why
	}
	if req.Shell != nil {
		for i := range req.Shell.Segments {
			s := &req.Shell.Segments[i]
			if hit, why := Injection(strings.Join(s.Argv, " "), strings.Join(s.Redirects, " ")); hit {
				return hit, why
			}
		}
	}
	return false, ""
}

package helper

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHelperArgsRoundTrip(t *testing.T) {
	h := Spec{Landlock: NewRuleset(7, []string{"/"}, []string{"/w", "/tmp"}, []string{"/dev"}), Seccomp: true, DenyUnix: true, Egress: "/run/e.sock", NProc: 5, AS: 1 << 30, FSize: 7, NoFile: 9}
	got, argv, err := Parse(append(h.Args(), "sh", "-c", "--x"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h, got); diff != "" {
		t.Error(diff)
	}
	for _, env := range [][]string{{"A=1"}, {"GOMAXPROCS=", "B=2"}, {"GOMAXPROCS=4"}} {
		s := Spec{Supervise: true, Lifeline: 3}
		if e := s.WithOneProc(env); e[len(e)-1] != "GOMAXPROCS=1" {
			t.Errorf("WithOneProc(%q) = %q", env, e)
		}
		got, _, err := Parse(append(s.Args(), "true"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Errorf("%q: %s", env, diff)
		}
	}
	if diff := cmp.Diff([]string{"sh", "-c", "--x"}, argv); diff != "" {
		t.Error(diff)
	}
	for _, bad := range [][]string{{"--nproc"}, {"--bogus", "x", "--", "a"}, {"--landlock", "1"}, {"--rule", "13", "/", "--", "a"}, {"--landlock", "x", "0", "--", "a"}, {"--"}, {"--as", "x", "--", "a"}} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

// TestNewRuleset pins the ruleset per Landlock ABI to the rights the
// kernel documents: the rules never ask for a right the ABI does not
// handle, ABI 1 (no refer) and 0 give none, and the newest ABIs add
// truncate (3), device ioctls (5), scopes (6) and resolve-unix (9).
func TestNewRuleset(t *testing.T) {
	ro, rw, dev := []string{"/"}, []string{"/w"}, []string{"/dev"}
	if r := NewRuleset(0, ro, rw, dev); r != nil {
		t.Errorf("ABI 0: %+v, want none", r)
	}
	if r := NewRuleset(1, ro, rw, dev); r != nil {
		t.Errorf("ABI 1 (no refer): %+v, want none", r)
	}
	if r := NewRuleset(1, ro, nil, nil); r == nil || r.FS != 1<<13-1 || r.Rules[0].Access != ReadRights {
		t.Errorf("ABI 1, read only: %+v", r)
	}
	for _, c := range []struct {
		abi        int
		fs, scoped uint64
	}{{2, 1<<14 - 1, 0}, {3, 1<<15 - 1, 0}, {5, 1<<16 - 1, 0}, {6, 1<<16 - 1, 3}, {7, 1<<16 - 1, 3}, {9, 1<<17 - 1, 3}, {11, 1<<17 - 1, 3}, {99, 1<<17 - 1, 3}} {
		r := NewRuleset(c.abi, ro, rw, dev)
		if r == nil || r.FS != c.fs || r.Scoped != c.scoped || len(r.Rules) != 3 {
			t.Fatalf("ABI %d: %+v, want fs %#x scoped %d and 3 rules", c.abi, r, c.fs, c.scoped)
		}
		want := []uint64{ReadRights & c.fs, RWRights & c.fs, DevRights & c.fs}
		for i, pr := range r.Rules {
			if pr.Access != want[i] || pr.Access&^r.FS != 0 {
				t.Errorf("ABI %d rule %s: %#x, want %#x within %#x", c.abi, pr.Path, pr.Access, want[i], r.FS)
			}
		}
		if c.abi >= 5 && r.Rules[1].Access&(1<<15) != 0 {
			t.Errorf("ABI %d: the workspace got device ioctls", c.abi)
		}
	}
}

func TestExecArgs(t *testing.T) {
	h := Spec{Landlock: NewRuleset(6, []string{"/"}, []string{"/w"}, nil), NoFile: 9}
	a, err := h.ExecArgs()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--landlock", "65535", "3", "--rule", "13", "/", "--rule", "32767", "/w", "--nofile", "9", "--"}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Error(diff)
	}
	got, _, err := Parse(append(a, "true"))
	if err != nil || !cmp.Equal(h, got) {
		t.Errorf("Parse(ExecArgs) = %+v, %v", got, err)
	}
	for _, s := range []Spec{{Seccomp: true}, {Egress: "/e"}, {OneProc: true}, {Supervise: true, Lifeline: 3, Seccomp: true},
		{Supervise: true, Lifeline: 3, NoFile: 9}, {Supervise: true, Lifeline: 3, Landlock: h.Landlock}} {
		if _, err := s.ExecArgs(); err == nil {
			t.Errorf("ExecArgs(%+v) = nil error", s)
		}
	}
}

// TestExecArgsSupervise: the exec helper's supervisor takes the lifeline
// and nothing else, and the Go helper parses the same arguments back.
func TestExecArgsSupervise(t *testing.T) {
	h := Spec{Supervise: true, Lifeline: 3}
	a, err := h.ExecArgs()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--supervise", "--lifeline", "3", "--"}; !cmp.Equal(want, a) {
		t.Errorf("ExecArgs = %q, want %q", a, want)
	}
	got, _, err := Parse(append(a, "true"))
	if err != nil || !cmp.Equal(h, got) {
		t.Errorf("Parse(ExecArgs) = %+v, %v", got, err)
	}
}

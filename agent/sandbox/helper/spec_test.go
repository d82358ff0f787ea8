package helper

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHelperArgsRoundTrip(t *testing.T) {
	h := Spec{Landlock: true, RO: []string{"/"}, RW: []string{"/w", "/tmp"}, Dev: []string{"/dev"}, DenyUnix: true, Egress: "/run/e.sock", NProc: 5, AS: 1 << 30, FSize: 7, NoFile: 9}
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
	for _, bad := range [][]string{{"--nproc"}, {"--bogus", "x", "--", "a"}, {"--ro", "/"}, {"--"}, {"--as", "x", "--", "a"}} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

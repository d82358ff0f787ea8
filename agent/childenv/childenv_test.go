package childenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompose(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/u",
		"ANTHROPIC_API_KEY=sk-ant",
		"GITHUB_TOKEN=ghp",
		"github_token=lower",
		"MY_SECRET=s",
		"SSH_AUTH_SOCK=/tmp/ssh",
		"AWS_REGION=eu-west-1",
		"aws_profile=dev",
		"KEYBOARD=us",
		"LANG=C.UTF-8",
		"HOME=/home/u2", // duplicate: last wins
		"BROKEN",        // no "=": dropped
		"=x",            // empty name: dropped
		"EMPTY=",
	}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"default strips KEY, SECRET, TOKEN case-insensitively", Config{}, []string{
			"AWS_REGION=eu-west-1", "EMPTY=", "HOME=/home/u2", "LANG=C.UTF-8", "PATH=/usr/bin:/bin", "SSH_AUTH_SOCK=/tmp/ssh", "aws_profile=dev",
		}},
		{"strip globs, case-insensitive", Config{Strip: []string{"AWS_*", "SSH_AUTH_SOC?"}}, []string{
			"EMPTY=", "HOME=/home/u2", "LANG=C.UTF-8", "PATH=/usr/bin:/bin",
		}},
		{"keep beats the default strip, case-sensitively", Config{Keep: []string{"GITHUB_TOKEN", "KEYBOARD"}}, []string{
			"AWS_REGION=eu-west-1", "EMPTY=", "GITHUB_TOKEN=ghp", "HOME=/home/u2", "KEYBOARD=us", "LANG=C.UTF-8", "PATH=/usr/bin:/bin", "SSH_AUTH_SOCK=/tmp/ssh", "aws_profile=dev",
		}},
		{"keep beats strip", Config{Strip: []string{"AWS_*"}, Keep: []string{"AWS_REGION"}}, []string{
			"AWS_REGION=eu-west-1", "EMPTY=", "HOME=/home/u2", "LANG=C.UTF-8", "PATH=/usr/bin:/bin", "SSH_AUTH_SOCK=/tmp/ssh",
		}},
		{"set beats everything", Config{
			Strip: []string{"PATH", "*TOKEN*"},
			Set:   map[string]string{"PATH": "/opt/bin", "CI_TOKEN": "set-on-purpose", "NEW": "1", "": "bad", "A=B": "bad", "NUL": "a\x00b"},
		}, []string{
			"AWS_REGION=eu-west-1", "CI_TOKEN=set-on-purpose", "EMPTY=", "HOME=/home/u2", "LANG=C.UTF-8", "NEW=1", "PATH=/opt/bin", "SSH_AUTH_SOCK=/tmp/ssh", "aws_profile=dev",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Compose(parent, tc.cfg)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("Compose (-want +got):\n%s", diff)
			}
			// Deterministic.
			if diff := cmp.Diff(got, Compose(parent, tc.cfg)); diff != "" {
				t.Fatal("Compose is not deterministic")
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "api_key": true, "Secret": true, "NPM_TOKEN": true, "TOKENIZERS_PARALLELISM": true,
		"DB_PASSWORD": true, "PGPASSWD": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "HTTP_AUTHORIZATION": true,
		"SESSION_COOKIE": true, "\u212aEY": true, // the Kelvin sign folds to k
		"PATH": false, "HOME": false, "GIT_AUTHOR_NAME": false, "PASS": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := (Config{Set: map[string]string{"A": "1"}}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Config{{Set: map[string]string{"": "1"}}, {Set: map[string]string{"A=B": "1"}}, {Set: map[string]string{"A": "\x00"}}} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%v) = nil", c.Set)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{{"AWS_*", "AWS_X", true}, {"AWS_*", "XAWS_X", false}, {"*_ID", "AWS_ACCESS_KEY_ID", true}, {"A?C", "ABC", true}, {"A?C", "AC", false}, {"*", "", true}} {
		if got := glob(tc.p, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
}

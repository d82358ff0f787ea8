// Package packaging turns a verified policy (the signed requirements.json,
// the optional managed.json and the trusted keys) into what MDM and
// configuration-management tools import: macOS configuration profiles,
// ADMX/ADML templates, a .reg file and a PowerShell script, deb and rpm
// packages, and a plain directory with Ansible, Puppet, Chef and Salt
// snippets (docs/fleet.md).
//
// It is admin side: oceanadmin package calls it after verifying its inputs;
// the runtime never imports it. Every artefact is a pure function of the
// inputs (no wall clock, no random bytes, no host name), so rebuilding from
// the same inputs gives the same bytes, and every artefact names the policy
// serial and payload SHA-256.
package packaging

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// ErrFormat is returned for a format Build does not know.
var ErrFormat = errors.New("unknown format")

// Formats lists the formats Build writes, in the order docs/fleet.md gives.
var Formats = []string{"mobileconfig", "admx", "reg", "deb", "rpm", "dir"}

// The names agents read policy under, shared by every format.
const (
	// Domain is the macOS preference domain of the profiles.
	Domain = "dev.oceancode"
	// RegistryKey is the Windows policy key below HKEY_LOCAL_MACHINE.
	RegistryKey = `SOFTWARE\Policies\OceanCode`
	// ValueManaged, ValueRequirements and ValueTrustedKeys are the value
	// (registry) and key (preference) names of the three inputs.
	ValueManaged      = "Managed"
	ValueRequirements = "Requirements"
	ValueTrustedKeys  = "TrustedKeys"
	// ManagedDir is where deb, rpm and dir install the files.
	ManagedDir = "/etc/oceancode"
	// PackageName is the name of the deb and rpm packages.
	PackageName = "oceancode-policy"
)

// Policy is what the caller learnt when it verified the requirements.
type Policy struct {
	Serial        int64
	PayloadSHA256 string
	Org           string
	// IssuedAt is the policy's issue time: the file time of the deb and rpm
	// contents when SOURCE_DATE_EPOCH is not set.
	IssuedAt time.Time
}

// Inputs are the verified files. Managed is nil when there is no managed
// config.
type Inputs struct {
	Requirements []byte
	Managed      []byte
	TrustedKeys  []byte
	Policy       Policy
	// Epoch is the time stamped into archives (SOURCE_DATE_EPOCH); zero
	// means Policy.IssuedAt.
	Epoch time.Time
}

// Artefact is one file Build produced: Name is a slash-separated path
// relative to the output directory.
type Artefact struct {
	Name string
	Data []byte
}

// Build writes the artefacts of one format.
func Build(format string, in Inputs) ([]Artefact, error) {
	if len(in.Requirements) == 0 || len(in.TrustedKeys) == 0 {
		return nil, errors.New("package: the signed requirements and the trusted keys are both needed")
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	switch format {
	case "mobileconfig":
		return mobileconfig(in)
	case "admx":
		return admx(in)
	case "reg":
		return reg(in)
	case "deb", "rpm":
		return linuxPackage(format, in)
	case "dir":
		return dir(in)
	}
	return nil, fmt.Errorf("package --format %q: %w: want one of %s", format, ErrFormat, strings.Join(Formats, ", "))
}

// KnownFormat reports whether Build writes format.
func KnownFormat(format string) bool { return slices.Contains(Formats, format) }

// epoch is the time stamped into archives: never zero, which the
// packagers would replace with the wall clock.
func (in Inputs) epoch() time.Time {
	switch {
	case !in.Epoch.IsZero():
		return in.Epoch.UTC()
	case !in.Policy.IssuedAt.IsZero():
		return in.Policy.IssuedAt.UTC()
	}
	return time.Unix(0, 0).UTC()
}

// stamp names the policy in every artefact's comments: the serial and the
// payload SHA-256 only (a number and hex digits, checked by Build), never
// policy text, which no comment syntax can escape.
func (in Inputs) stamp() string {
	return fmt.Sprintf("OceanCode policy serial %d, payload sha256 %s", in.Policy.Serial, in.Policy.PayloadSHA256)
}

// banner is the stamp and the organisation, for the fields that carry text
// as data, escaped by each format (profile and package descriptions, the
// ADML, MANIFEST.json).
func (in Inputs) banner() string {
	s := in.stamp()
	if in.Policy.Org != "" {
		s += ", org " + in.Policy.Org
	}
	return s
}

// installed lists the managed dir's files, in install order: the trusted
// keys first, so that a half-applied rollout never holds requirements the
// old keys cannot verify.
type file struct {
	name string // base name inside the managed dir
	data []byte
}

func (in Inputs) installed() []file {
	fs := []file{{"trusted_keys", in.TrustedKeys}, {"requirements.json", in.Requirements}}
	if in.Managed != nil {
		fs = append(fs, file{"managed.json", in.Managed})
	}
	return fs
}

// compactJSON is data on one line (registry and Group Policy strings hold
// one line); the meaning, and a DSSE envelope's signed payload, are kept.
func compactJSON(data []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return strings.TrimSpace(string(data))
	}
	return b.String()
}

// keyLines are the trusted keys one per line, without blank lines (a
// REG_MULTI_SZ holds no empty string).
func keyLines(data []byte) []string {
	var out []string
	for l := range strings.Lines(strings.TrimPrefix(string(data), "\ufeff")) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// contentUUID is a UUID (version 8, RFC 9562) derived from the SHA-256 of
// parts: the same content always gets the same UUID.
func contentUUID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	x := strings.ToUpper(hex.EncodeToString(u))
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func sha256Hex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// writeTemp writes the inputs to a fresh directory for the packagers that
// read files; the caller removes it.
func writeTemp(fs []file) (string, error) {
	dir, err := os.MkdirTemp("", "oceanadmin-package-")
	if err != nil {
		return "", fmt.Errorf("package: temporary directory: %w", err)
	}
	for _, f := range fs {
		if err := os.WriteFile(dir+"/"+f.name, f.data, 0o644); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("package: temporary file: %w", err)
		}
	}
	return dir, nil
}

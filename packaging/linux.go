package packaging

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	"github.com/goreleaser/nfpm/v2/rpm"
)

// linuxPackage builds the deb or rpm package: it installs the managed dir's
// files root:root 0644 as plain files (not conffiles: an upgrade replaces
// them, a local edit never pins an old policy), with no maintainer scripts.
// Name oceancode-policy, version the policy serial (release 1 for rpm), so
// a newer serial is a newer package version and apt/dnf upgrade to it.
func linuxPackage(format string, in Inputs) ([]Artefact, error) {
	fs := in.installed()
	tmp, err := writeTemp(fs)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	mtime := in.epoch()
	info := &nfpm.Info{
		Name:          PackageName,
		Arch:          "all",
		Platform:      "linux",
		Version:       strconv.FormatInt(in.Policy.Serial, 10),
		VersionSchema: "none",
		Section:       "admin",
		Priority:      "optional",
		Maintainer:    "OceanCode administrators <root@localhost>",
		Description:   in.banner() + ". Installs the signed requirements, the trusted keys and the managed config into " + ManagedDir + ".",
		Vendor:        in.Policy.Org,
		Homepage:      "https://oceancode.dev",
		License:       "proprietary",
		MTime:         mtime,
		Overridables: nfpm.Overridables{
			Umask: 0o022,
			RPM:   nfpm.RPM{BuildHost: "oceanadmin", Compression: "gzip"},
			Deb:   nfpm.Deb{Compression: "gzip"},
		},
	}
	if format == "rpm" {
		info.Release = "1"
	}
	for _, f := range fs {
		info.Contents = append(info.Contents, &files.Content{
			Source:      filepath.Join(tmp, f.name),
			Destination: ManagedDir + "/" + f.name,
			Type:        files.TypeFile,
			FileInfo:    &files.ContentFileInfo{Owner: "root", Group: "root", Mode: 0o644, MTime: mtime},
		})
	}
	// The managed dir itself: root-owned and not group- or world-writable,
	// as agents require of the admin anchor's directory.
	info.Contents = append(info.Contents, &files.Content{
		Destination: ManagedDir,
		Type:        files.TypeDir,
		FileInfo:    &files.ContentFileInfo{Owner: "root", Group: "root", Mode: 0o755, MTime: mtime},
	})
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return nil, fmt.Errorf("package %s: %w", format, err)
	}
	var p nfpm.Packager = deb.Default
	if format == "rpm" {
		p = rpm.DefaultRPM
	}
	var buf bytes.Buffer
	if err := p.Package(info, &buf); err != nil {
		return nil, fmt.Errorf("package %s: %w", format, err)
	}
	return []Artefact{{Name: p.ConventionalFileName(info), Data: buf.Bytes()}}, nil
}

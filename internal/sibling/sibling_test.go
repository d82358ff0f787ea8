package sibling

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "oceancode")
	if _, ok := Find(self, "helper"); ok {
		t.Fatal("found a helper that does not exist")
	}
	p := filepath.Join(dir, "helper")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Find(self, "helper"); ok {
		t.Fatal("found a helper nobody may execute")
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := Find(self, "helper"); !ok || got != p {
		t.Fatalf("Find = %q, %v; want %q", got, ok, p)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := Find(self, "helper"); ok {
		t.Fatal("found a directory as the helper")
	}
}

//go:build !linux

package mcp

import "os"

func statExtra(os.FileInfo) string { return "" }

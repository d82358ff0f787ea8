//go:build !linux

package fsguard

import "os"

// statBirth reports no birth time off Linux, so the read-before-write
// exception never applies there (fail closed).
func statBirth(path string) (fileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{size: st.Size(), dir: st.IsDir()}, nil
}

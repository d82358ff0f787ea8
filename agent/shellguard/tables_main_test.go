package shellguard

import (
	"os"
	"testing"
)

// TestMain builds the tables New builds lazily: some tests read them
// directly.
func TestMain(m *testing.M) {
	loadTables()
	os.Exit(m.Run())
}

package report

import (
	"os"
	"testing"
	"time"

	"github.com/oceancode/oceancode/layers/layerstest"
)

// TestLedgerColdJSON times the first rendering of a full inspect report in
// this process, by the hand writer (JSON) or by encoding/json (encoderJSON),
// as OC_LEDGER_JSON says ("hand" or "encoder"); without it the test is
// skipped. Each run must be a fresh test process, so the figure includes
// encoding/json's first-use reflection (docs/startup.md):
//
//	go test -c -o /tmp/report.test ./layers/report/
//	for i in $(seq 10); do OC_LEDGER_JSON=hand /tmp/report.test -test.run TestLedgerColdJSON -test.v | grep cold; done
func TestLedgerColdJSON(t *testing.T) {
	which := os.Getenv("OC_LEDGER_JSON")
	if which == "" {
		t.Skip("OC_LEDGER_JSON is not set")
	}
	rep := Build(layerstest.Full(t).Resolve(), Options{})
	render := rep.JSON
	if which == "encoder" {
		render = func() ([]byte, error) { return encoderJSON(rep) }
	}
	start := time.Now()
	out, err := render()
	cold := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, _ = render()
	t.Logf("cold %s %d µs (warm %d µs, %d bytes)", which, cold.Microseconds(), time.Since(start).Microseconds(), len(out))
}

package permission

import "crypto/sha256"

// DoomLoopThreshold is how many identical calls in a row count as a doom
// loop.
const DoomLoopThreshold = 3

// LoopDetector spots the doom loop: the same tool with the same input
// DoomLoopThreshold times in a row. The runtime then evaluates
// Call{Tool: "doom_loop", Pattern: <tool>}, which asks by default. It is
// not safe for concurrent use (one per turn loop).
type LoopDetector struct {
	last [sha256.Size]byte
	tool string
	n    int
}

// Observe records a call and reports whether it completes a doom loop.
func (d *LoopDetector) Observe(tool string, input []byte) bool {
	h := sha256.Sum256(input)
	if d.n > 0 && tool == d.tool && h == d.last {
		d.n++
	} else {
		d.tool, d.last, d.n = tool, h, 1
	}
	return d.n >= DoomLoopThreshold
}

// Reset forgets the history (after the user answered a doom-loop ask).
func (d *LoopDetector) Reset() { *d = LoopDetector{} }

// DoomLoopCall is the call to evaluate when tool loops.
func DoomLoopCall(tool string) Call { return Call{Tool: "doom_loop", Pattern: Key(tool)} }

package session

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"sync"
	"time"
)

// idEncoding is Crockford's base32 alphabet in lower case: its characters
// sort in the order of the values they encode, so ids sort by time.
var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

var idState struct {
	sync.Mutex
	ms   uint64
	last [16]byte
}

// newID returns "ses_" and 26 base32 characters encoding 48 bits of Unix
// milliseconds and 80 random bits. Ids sort by creation time; within one
// millisecond in one process the random part is incremented, so they stay
// strictly increasing there too. Across processes the 80 random bits keep
// them unique.
func newID(now time.Time) string {
	ms := uint64(now.UnixMilli())
	idState.Lock()
	var b [16]byte
	if ms <= idState.ms {
		// Same (or an earlier) millisecond: continue from the last id.
		b = idState.last
		for i := 15; i >= 6; i-- {
			b[i]++
			if b[i] != 0 {
				break
			}
		}
	} else {
		binary.BigEndian.PutUint64(b[:8], ms<<16)
		rand.Read(b[6:])
		idState.ms = ms
	}
	idState.last = b
	idState.Unlock()
	return "ses_" + idEncoding.EncodeToString(b[:])
}

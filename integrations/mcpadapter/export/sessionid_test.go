package export

import (
	"encoding/hex"
	"testing"
)

// TestNewSessionID: ids are 16 bytes of hex, unique, and in the order they
// were made (their first 8 bytes are the time), so that the ledger's run
// and subject indexes append a stream of one-call sessions.
func TestNewSessionID(t *testing.T) {
	seen := make(map[string]bool)
	prev := ""
	for range 10000 {
		id := newSessionID()
		if b, err := hex.DecodeString(id); err != nil || len(b) != 16 {
			t.Fatalf("id %q: %v, %d bytes", id, err, len(b))
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		if id[:16] < prev[:min(len(prev), 16)] {
			t.Fatalf("id %q made after %q sorts before it", id, prev)
		}
		prev = id
	}
}

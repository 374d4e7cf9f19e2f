package mcpadapter

import (
	"testing"
	"time"
)

// FuzzRequestState: any requestState a client sends is refused or opened
// without panicking, and only the exact state minted opens.
func FuzzRequestState(f *testing.F) {
	s, err := newStateSealer(nil)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	good := s.seal(&questionState{Sub: "alice", Tool: "delete_file", Args: "h", Ticket: "tkt_1", Exp: now.Add(time.Minute).Unix()})
	f.Add(good)
	f.Add(good + "-TAMPERED")
	f.Add("")
	f.Add(".")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, state string) {
		st, err := s.open(state, now)
		if (err == nil) != (state == good) {
			t.Fatalf("open(%q) = %+v, %v", state, st, err)
		}
	})
}

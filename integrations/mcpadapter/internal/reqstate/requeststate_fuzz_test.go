package reqstate

import (
	"testing"
	"time"
)

// FuzzRequestState: any requestState a client sends is refused or opened
// without panicking, and only the exact state minted opens.
func FuzzRequestState(f *testing.F) {
	s, err := NewSealer(nil)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	good := s.Seal(&State{Sub: "alice", Tool: "delete_file", Args: "h", Ticket: "tkt_1", Exp: now.Add(time.Minute).Unix()})
	f.Add(good)
	f.Add(good + "-TAMPERED")
	f.Add("")
	f.Add(".")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, state string) {
		st, err := s.Open(state, now)
		if (err == nil) != (state == good) {
			t.Fatalf("open(%q) = %+v, %v", state, st, err)
		}
	})
}

// BenchmarkRequestState: minting and verifying one approval question's
// state, the work a 2026-07-28 approval adds to its two requests.
func BenchmarkRequestState(b *testing.B) {
	s, err := NewSealer(nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	st := &State{Sub: "alice", Ses: "0123456789abcdef01234567", Srv: "agentadapter", Tool: "delete_file",
		Args: "cb1533f3eb4170695956d87bb17a94f79c8126c59bb60392d71d7e7c20192465", Ticket: "tkt_cf5fa69ea78747791d94a5fe", Exp: now.Add(time.Minute).Unix()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(s.Seal(st), now); err != nil {
			b.Fatal(err)
		}
	}
}

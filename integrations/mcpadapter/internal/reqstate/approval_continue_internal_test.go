package reqstate

import (
	"fmt"
	"testing"
	"time"
)

// TestSpendSingleUseBounded: a continuation state is spent once; past
// maxSpent live ones nothing more is spent (the call is asked approval
// again) until some lapse, whose room is then reused.
func TestSpendSingleUseBounded(t *testing.T) {
	s, err := NewSealer(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_000_000, 0)
	if !s.Spend("a", now.Add(time.Minute).Unix(), now) || s.Spend("a", now.Add(time.Minute).Unix(), now) {
		t.Fatal("a state spent twice, or not once")
	}
	for i := 1; i < maxSpent; i++ {
		if !s.Spend(fmt.Sprint(i), now.Add(time.Duration(i%2+1)*time.Minute).Unix(), now) {
			t.Fatalf("spend %d refused below the bound", i)
		}
	}
	if s.Spend("over", now.Add(time.Minute).Unix(), now) {
		t.Fatal("spent past maxSpent live states")
	}
	later := now.Add(time.Minute)
	if !s.Spend("over", later.Add(time.Minute).Unix(), later) {
		t.Fatal("no room once half the states lapsed")
	}
	if len(s.spent) > maxSpent {
		t.Fatalf("%d spent states kept, bound %d", len(s.spent), maxSpent)
	}
}

// TestContinuationStateShape: a state naming a continuation must be a
// tool's own question with a nonce; any other is malformed, even signed.
func TestContinuationStateShape(t *testing.T) {
	s, err := NewSealer(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	base := State{Sub: "alice", Srv: "x", Tool: "wipe", Args: "h", Exp: now.Add(time.Minute).Unix()}
	for _, c := range []struct {
		name string
		edit func(*State)
		ok   bool
	}{
		{"tool question continuing", func(st *State) { st.In, st.Cont, st.CRnd, st.N = "s", "tkt_1", 1, "n" }, true},
		{"no nonce", func(st *State) { st.Cont = "tkt_1" }, false},
		{"approval question continuing", func(st *State) { st.Ticket, st.Cont, st.N = "tkt_2", "tkt_1", "n" }, false},
	} {
		st := base
		c.edit(&st)
		_, err := s.Open(s.Seal(&st), now)
		if (err == nil) != c.ok {
			t.Errorf("%s: open = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

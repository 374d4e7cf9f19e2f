package kit_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/kit"
)

// TestCallIDs: a call takes the id of the call alike, each id once; calls
// alike take their ids in order; Reset forgets the turn's ids not taken.
func TestCallIDs(t *testing.T) {
	var c kit.CallIDs
	if id := c.Take("echo", []byte(`{}`)); id != "" {
		t.Errorf("the zero CallIDs gave %q", id)
	}
	c.Add("echo", []byte(`{"n":1}`), "toolu_1")
	c.Add("echo", []byte(`{"n":2}`), "toolu_2")
	c.Add("echo", []byte(`{"n":1}`), "toolu_3")
	c.Add("add", []byte(`{"n":1}`), "toolu_4")
	for _, tt := range []struct{ tool, args, want string }{
		{"echo", `{"n":2}`, "toolu_2"},
		{"echo", `{"n":1}`, "toolu_1"},
		{"echo", `{"n":1}`, "toolu_3"},
		{"echo", `{"n":1}`, ""},  // each id once
		{"echo", `{"n": 2}`, ""}, // the arguments exactly
		{"other", `{"n":1}`, ""},
	} {
		if got := c.Take(tt.tool, []byte(tt.args)); got != tt.want {
			t.Errorf("Take(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
	c.Reset()
	if id := c.Take("add", []byte(`{"n":1}`)); id != "" {
		t.Errorf("after Reset, Take gave %q, want none", id)
	}
	c.Add("add", []byte(`{}`), "toolu_5")
	if id := c.Take("add", []byte(`{}`)); id != "toolu_5" {
		t.Errorf("after Reset, Take gave %q, want toolu_5", id)
	}
}

// TestCallIDsParallel: parallel calls alike each take a distinct id.
func TestCallIDsParallel(t *testing.T) {
	var c kit.CallIDs
	want := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for _, id := range want {
		c.Add("echo", []byte(`{}`), id)
	}
	got := make([]string, len(want)+1)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = c.Take("echo", []byte(`{}`)) })
	}
	wg.Wait()
	slices.Sort(got)
	if !slices.Equal(got, append([]string{""}, want...)) {
		t.Errorf("parallel calls took %q, want each of %q once and one none", got, want)
	}
}

package pin_test

import (
	"context"
	"testing"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

// TestZeroMemoryStore: the zero MemoryStore holds no pins and takes them
// (its writes hit a nil map).
func TestZeroMemoryStore(t *testing.T) {
	ctx := context.Background()
	var m pin.MemoryStore
	if h, err := m.SetIfAbsent(ctx, "k", "h1"); err != nil || h != "h1" {
		t.Fatalf("SetIfAbsent = %q, %v", h, err)
	}
	if err := m.Set(ctx, "k2", "h2"); err != nil {
		t.Fatal(err)
	}
	if h, ok, err := m.Get(ctx, "k2"); err != nil || !ok || h != "h2" {
		t.Fatalf("Get = %q, %v, %v", h, ok, err)
	}
}

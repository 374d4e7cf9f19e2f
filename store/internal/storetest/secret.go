package storetest

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

// TestSecret checks Store.Secret: made once, the same for every Store on
// the database (concurrent first calls included) and after a reopen, one
// per name, and a stored secret of another size refused.
func TestSecret(t *testing.T, k *Kit) {
	ctx := context.Background()
	db := k.NewDB(t)
	a, b := k.open(t, db, Options{}), k.open(t, db, Options{})
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	for i := range got {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			v, err := s.Secret(ctx, "mcp-request-state", 32)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, v := range got {
		if len(v) != 32 || !bytes.Equal(v, got[0]) {
			t.Fatalf("secret %d = %x, want the 32 bytes of the first, %x", i, v, got[0])
		}
	}
	if bytes.Equal(got[0], make([]byte, 32)) {
		t.Error("the secret is all zeros")
	}
	other, err := a.Secret(ctx, "another", 32)
	if err != nil || bytes.Equal(other, got[0]) {
		t.Errorf("another name's secret = %x, %v; want its own", other, err)
	}
	if _, err := b.Secret(ctx, "mcp-request-state", 16); err == nil {
		t.Error("a 32-byte secret read as 16 bytes")
	}
	if _, err := b.Secret(ctx, "zero", 0); err == nil {
		t.Error("a secret of size 0 was made")
	}
	again, err := k.open(t, db, Options{}).Secret(ctx, "mcp-request-state", 32)
	if err != nil || !bytes.Equal(again, got[0]) {
		t.Errorf("after reopening: %x, %v; want %x", again, err, got[0])
	}
}

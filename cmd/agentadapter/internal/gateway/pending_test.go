package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/state"
	oauth0 "github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

// TestStorePending: the sign-ins in progress of two stores open on one
// SQLite file (two replicas) are one set: a sign-in put through one is
// read, claimed and taken through the other, claimed by one browser and
// taken by one callback of 16 racing on both; a subject past its bound
// loses its oldest; the file never holds a state, a PKCE verifier or a
// client secret in the clear; a row copied under another sign-in's key
// does not open, nor one sealed with a key the keyring lost.
func TestStorePending(t *testing.T) {
	ctx := context.Background()
	raw := make([]byte, 32)
	rand.Read(raw)
	keys, err := token.NewKeyring(raw)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	replica := func() (*storePending, state.SignInTable) {
		st, err := state.Open(ctx, "sqlite:"+path, &state.Options{TokenKeys: keys})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		tab := st.(state.SignInStorer).SignIns()
		return &storePending{t: tab, keys: func() *token.Keyring { return keys }}, tab
	}
	a, tab := replica()
	b, _ := replica()
	now := time.Now()
	put := func(s *storePending, st, sub string, age time.Duration) {
		t.Helper()
		p := &oauth0.PendingSignIn{State: "state-secret-" + st, Subject: sub, Server: "up", Verifier: "verifier-secret-" + st,
			ClientSecret: "client-secret", Browser: "ignored", Created: now.Add(-age), Expires: now.Add(time.Minute - age)}
		if err := s.PutSignIn(ctx, p, 3); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "a1", "alice", 3*time.Second)
	put(b, "b1", "bob", 3*time.Second)
	put(a, "a2", "alice", 2*time.Second)
	put(b, "a3", "alice", time.Second)
	put(a, "a4", "alice", 0) // past 3: a1 goes
	if _, err := b.SignIn(ctx, "state-secret-a1"); !errors.Is(err, oauth0.ErrNoSignIn) {
		t.Errorf("alice's oldest: %v, want it forgotten", err)
	}
	for _, st := range []string{"a2", "a3", "a4", "b1"} {
		p, err := b.SignIn(ctx, "state-secret-"+st)
		if err != nil || p.Verifier != "verifier-secret-"+st || p.Browser != "" {
			t.Errorf("%s through the other replica: %+v, %v", st, p, err)
		}
	}
	put(a, "old", "carol", 2*time.Minute) // expired already
	if _, err := b.SignIn(ctx, "state-secret-old"); !errors.Is(err, oauth0.ErrNoSignIn) {
		t.Errorf("an expired sign-in: %v", err)
	}

	var claimed, taken atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		s := []*storePending{a, b}[i%2]
		wg.Go(func() {
			if p, err := s.ClaimSignIn(ctx, "state-secret-a2", fmt.Sprint("browser", i)); err == nil && p.Browser == fmt.Sprint("browser", i) {
				claimed.Add(1)
			}
			if p, err := s.TakeSignIn(ctx, "state-secret-a3"); err == nil && p.Verifier == "verifier-secret-a3" {
				taken.Add(1)
			}
		})
	}
	wg.Wait()
	if claimed.Load() != 1 || taken.Load() != 1 {
		t.Errorf("claimed %d times, taken %d times, want once each", claimed.Load(), taken.Load())
	}
	if p, err := a.SignIn(ctx, "state-secret-a2"); err != nil || p.Browser == "" {
		t.Errorf("the claimed sign-in: %+v, %v", p, err)
	}
	if _, err := b.TakeSignIn(ctx, "state-secret-a3"); !errors.Is(err, oauth0.ErrNoSignIn) {
		t.Errorf("taken twice: %v", err)
	}

	// Bob's row copied under the key of a state of his own making does
	// not open as his sign-in.
	v, _, ok, err := tab.Get(ctx, pendingKey("state-secret-b1"))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := tab.Put(ctx, pendingKey("forged"), "mallory", v, now, now.Add(time.Minute), 3); err != nil {
		t.Fatal(err)
	}
	if p, err := a.TakeSignIn(ctx, "forged"); !errors.Is(err, oauth0.ErrNoSignIn) {
		t.Errorf("a row moved under another key: %+v, %v", p, err)
	}
	// A keyring that lost the key reads no sign-in.
	other := make([]byte, 32)
	rand.Read(other)
	lost, _ := token.NewKeyring(other)
	c := &storePending{t: tab, keys: func() *token.Keyring { return lost }}
	if _, err := c.SignIn(ctx, "state-secret-b1"); !errors.Is(err, oauth0.ErrNoSignIn) || !errors.Is(err, token.ErrDecrypt) {
		t.Errorf("another key: %v", err)
	}
	none := &storePending{t: tab, keys: func() *token.Keyring { return nil }}
	if err := none.PutSignIn(ctx, &oauth0.PendingSignIn{State: "s", Subject: "x", Created: now, Expires: now.Add(time.Minute)}, 3); !errors.Is(err, token.ErrNoKey) {
		t.Errorf("no key: %v", err)
	}

	for _, f := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, secret := range []string{"state-secret", "verifier-secret", "client-secret"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds %s in the clear", filepath.Base(f), secret)
			}
		}
	}
}

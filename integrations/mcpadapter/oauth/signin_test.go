package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

// TestMemoryPending: a pending sign-in is claimed by one browser only and
// taken by one callback only, even when raced; a subject past its bound
// loses its oldest, and other subjects keep theirs; an expired one is
// gone; its String names no secret.
func TestMemoryPending(t *testing.T) {
	ctx := context.Background()
	s := new(oauth.MemoryPending)
	now := time.Now()
	put := func(state, sub string, age time.Duration) {
		t.Helper()
		p := &oauth.PendingSignIn{State: state, Subject: sub, Server: "up", Verifier: "verifier-secret", ClientSecret: "client-secret",
			Created: now.Add(-age), Expires: now.Add(time.Minute - age)}
		if err := s.PutSignIn(ctx, p, 3); err != nil {
			t.Fatal(err)
		}
	}
	put("a1", "alice", 3*time.Second)
	put("b1", "bob", 3*time.Second)
	put("a2", "alice", 2*time.Second)
	put("a3", "alice", time.Second)
	put("a4", "alice", 0) // past 3: a1 goes
	if _, err := s.SignIn(ctx, "a1"); !errors.Is(err, oauth.ErrNoSignIn) {
		t.Errorf("alice's oldest: %v, want it forgotten", err)
	}
	for _, st := range []string{"a2", "a3", "a4", "b1"} {
		if _, err := s.SignIn(ctx, st); err != nil {
			t.Errorf("%s: %v", st, err)
		}
	}
	put("old", "carol", 2*time.Minute) // expired already
	if _, err := s.SignIn(ctx, "old"); !errors.Is(err, oauth.ErrNoSignIn) {
		t.Errorf("an expired sign-in: %v", err)
	}

	var claimed, taken atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.ClaimSignIn(ctx, "a2", fmt.Sprint("browser", i)); err == nil {
				claimed.Add(1)
			}
			if _, err := s.TakeSignIn(ctx, "a3"); err == nil {
				taken.Add(1)
			}
		}()
	}
	wg.Wait()
	if claimed.Load() != 1 || taken.Load() != 1 {
		t.Errorf("claimed %d times, taken %d times, want once each", claimed.Load(), taken.Load())
	}
	p, _ := s.SignIn(ctx, "a2")
	if str := p.String(); strings.Contains(str, "secret") {
		t.Errorf("String names a secret: %s", str)
	}
	// What the store returns is a copy.
	p.Subject = "mallory"
	if q, _ := s.SignIn(ctx, "a2"); q.Subject != "alice" {
		t.Errorf("the stored sign-in changed with the copy: %q", q.Subject)
	}
}

// TestBeginSignInNeedsSignIns: BeginSignIn is for a PerCaller handler
// with SignIn, and a subject.
func TestBeginSignInNeedsSignIns(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []*oauth.Config{{PerCaller: true}, {SignIn: &oauth.SignIns{BaseURL: "https://gw.example"}}} {
		h, err := oauth.NewHandler("up", "https://mcp.example/mcp", cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.BeginSignIn(ctx, "alice", ""); err == nil {
			t.Errorf("BeginSignIn with %+v accepted", cfg)
		}
	}
	h, _ := oauth.NewHandler("up", "https://mcp.example/mcp", &oauth.Config{PerCaller: true, SignIn: &oauth.SignIns{BaseURL: "https://gw.example"}}, nil)
	var se *oauth.SignInError
	if _, err := h.BeginSignIn(ctx, "", ""); !errors.As(err, &se) {
		t.Errorf("BeginSignIn without a subject: %v, want a SignInError", err)
	}
}

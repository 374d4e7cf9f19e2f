package mcpadaptertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/token"
)

func sampleToken(i int) *token.Token {
	return &token.Token{
		AccessToken:  fmt.Sprintf("access-%d", i),
		TokenType:    "Bearer",
		RefreshToken: fmt.Sprintf("refresh-%d", i),
		Expiry:       time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Hour),
		Scopes:       []string{"read", fmt.Sprintf("scope-%d", i)},
		TokenURL:     "https://as.example/token",
		ClientID:     fmt.Sprintf("client-%d", i),
		ClientSecret: fmt.Sprintf("secret-%d", i),
	}
}

var tokenOpts = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

// TestTokenStore checks a [token.Store]. newStore returns a new,
// empty store.
func TestTokenStore(t *testing.T, newStore func(t *testing.T) token.Store) {
	ctx := context.Background()
	k1 := token.Key{Server: "docs", Resource: "https://docs.example/mcp"}
	k2 := token.Key{Server: "docs", Resource: "https://other.example/mcp"}
	k3 := token.Key{Server: "other", Resource: "https://docs.example/mcp"}

	t.Run("Missing", func(t *testing.T) {
		s := newStore(t)
		if tok, err := s.Token(ctx, k1); !errors.Is(err, token.ErrNotFound) {
			t.Fatalf("Token of an empty store = %v, %v; want ErrNoToken", tok, err)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		s := newStore(t)
		want := sampleToken(1)
		if err := s.PutToken(ctx, k1, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.Token(ctx, k1)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, tokenOpts); d != "" {
			t.Errorf("stored token differs (-put +got):\n%s", d)
		}
	})
	t.Run("KeysAreIndependent", func(t *testing.T) {
		// A token is bound to its server and its resource: one for another
		// resource of the same server, or for the same resource under
		// another server's name, must never be handed out.
		s := newStore(t)
		if err := s.PutToken(ctx, k1, sampleToken(1)); err != nil {
			t.Fatal(err)
		}
		for _, k := range []token.Key{k2, k3} {
			if tok, err := s.Token(ctx, k); !errors.Is(err, token.ErrNotFound) {
				t.Errorf("Token(%+v) = %v, %v; want ErrNoToken", k, tok, err)
			}
		}
		if err := s.PutToken(ctx, k2, sampleToken(2)); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteToken(ctx, k3); err != nil {
			t.Fatal(err)
		}
		for k, want := range map[token.Key]*token.Token{k1: sampleToken(1), k2: sampleToken(2)} {
			got, err := s.Token(ctx, k)
			if err != nil {
				t.Fatalf("Token(%+v): %v", k, err)
			}
			if d := cmp.Diff(want, got, tokenOpts); d != "" {
				t.Errorf("Token(%+v) differs (-want +got):\n%s", k, d)
			}
		}
	})
	t.Run("PutReplaces", func(t *testing.T) {
		s := newStore(t)
		if err := s.PutToken(ctx, k1, sampleToken(1)); err != nil {
			t.Fatal(err)
		}
		newer := sampleToken(2)
		newer.RefreshToken = "" // a refresh that returned no new refresh token
		if err := s.PutToken(ctx, k1, newer); err != nil {
			t.Fatal(err)
		}
		got, err := s.Token(ctx, k1)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(newer, got, tokenOpts); d != "" {
			t.Errorf("token after replacement differs (-want +got):\n%s", d)
		}
	})
	t.Run("Copies", func(t *testing.T) {
		s := newStore(t)
		put := sampleToken(1)
		if err := s.PutToken(ctx, k1, put); err != nil {
			t.Fatal(err)
		}
		put.AccessToken, put.Scopes[0] = "changed-after-put", "changed"
		got, err := s.Token(ctx, k1)
		if err != nil {
			t.Fatal(err)
		}
		got.AccessToken, got.Scopes[0] = "changed-after-get", "changed"
		again, err := s.Token(ctx, k1)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(sampleToken(1), again, tokenOpts); d != "" {
			t.Errorf("the store shares memory with its callers (-want +got):\n%s", d)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		s := newStore(t)
		if err := s.DeleteToken(ctx, k1); err != nil {
			t.Fatalf("deleting an absent token: %v", err)
		}
		if err := s.PutToken(ctx, k1, sampleToken(1)); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteToken(ctx, k1); err != nil {
			t.Fatal(err)
		}
		if tok, err := s.Token(ctx, k1); !errors.Is(err, token.ErrNotFound) {
			t.Fatalf("Token after DeleteToken = %v, %v; want ErrNoToken", tok, err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		s := newStore(t)
		const n = 8
		var wg sync.WaitGroup
		errs := make(chan error, 3*n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := token.Key{Server: fmt.Sprintf("s%d", i), Resource: "https://r.example/mcp"}
				for j := range 3 {
					if err := s.PutToken(ctx, k, sampleToken(j)); err != nil {
						errs <- err
						return
					}
					if _, err := s.Token(ctx, k); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for i := range n {
			k := token.Key{Server: fmt.Sprintf("s%d", i), Resource: "https://r.example/mcp"}
			got, err := s.Token(ctx, k)
			if err != nil {
				t.Fatalf("Token(%+v) after concurrent writes: %v", k, err)
			}
			if d := cmp.Diff(sampleToken(2), got, tokenOpts); d != "" {
				t.Errorf("Token(%+v): a concurrent writer's update was lost (-want +got):\n%s", k, d)
			}
		}
	})
}

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

// TestTokenIsolation checks that a [token.Store] keeps per-user tokens
// apart: two subjects never read each other's tokens, not even while many
// goroutines refresh both at once; the same resource under another issuer
// is another credential; the shared identity (Subject "") is a third; and
// deleting one subject's token leaves the others'. newStore returns a new,
// empty store that accepts per-user tokens (one that encrypts: opened with
// a [token.Keyring]).
func TestTokenIsolation(t *testing.T, newStore func(t *testing.T) token.Store) {
	ctx := context.Background()
	const (
		server   = "docs"
		issuer   = "https://as.example"
		resource = "https://docs.example/mcp"
	)
	key := func(subject, iss string) token.Key {
		return token.Key{Server: server, Subject: subject, Issuer: iss, Resource: resource}
	}
	alice, bob, shared := key("alice", issuer), key("bob", issuer), key("", "")
	own := func(subject string, i int) *token.Token {
		tok := sampleToken(i)
		tok.AccessToken = fmt.Sprintf("%s-access-%d", subject, i)
		tok.RefreshToken = fmt.Sprintf("%s-refresh-%d", subject, i)
		return tok
	}
	get := func(t *testing.T, s token.Store, k token.Key) *token.Token {
		t.Helper()
		tok, err := s.Token(ctx, k)
		if err != nil {
			t.Fatalf("Token(%+v): %v", k, err)
		}
		return tok
	}
	missing := func(t *testing.T, s token.Store, k token.Key) {
		t.Helper()
		if tok, err := s.Token(ctx, k); !errors.Is(err, token.ErrNotFound) {
			t.Errorf("Token(%+v) = %v, %v; want ErrNotFound", k, tok, err)
		}
	}

	t.Run("SubjectsApart", func(t *testing.T) {
		s := newStore(t)
		if err := s.PutToken(ctx, alice, own("alice", 1)); err != nil {
			t.Fatal(err)
		}
		// Only alice's is stored: bob and the shared identity get nothing.
		missing(t, s, bob)
		missing(t, s, shared)
		missing(t, s, key("Alice", issuer))
		missing(t, s, key("alice ", issuer))
		if err := s.PutToken(ctx, bob, own("bob", 2)); err != nil {
			t.Fatal(err)
		}
		if err := s.PutToken(ctx, shared, own("service", 3)); err != nil {
			t.Fatal(err)
		}
		for k, want := range map[token.Key]*token.Token{alice: own("alice", 1), bob: own("bob", 2), shared: own("service", 3)} {
			if d := cmp.Diff(want, get(t, s, k), tokenOpts); d != "" {
				t.Errorf("Token(%+v) differs (-want +got):\n%s", k, d)
			}
		}
	})
	t.Run("IssuersApart", func(t *testing.T) {
		// The same subject and resource under another authorization server
		// is another credential (2026-07-28: credentials keyed by issuer).
		s := newStore(t)
		other := key("alice", "https://other-as.example")
		if err := s.PutToken(ctx, alice, own("alice", 1)); err != nil {
			t.Fatal(err)
		}
		missing(t, s, other)
		if err := s.PutToken(ctx, other, own("alice-other", 2)); err != nil {
			t.Fatal(err)
		}
		if got := get(t, s, alice); got.AccessToken != own("alice", 1).AccessToken {
			t.Errorf("alice's token at %s became %q after a put under another issuer", issuer, got.AccessToken)
		}
		if got := get(t, s, other); got.AccessToken != own("alice-other", 2).AccessToken {
			t.Errorf("alice's token at the other issuer = %q", got.AccessToken)
		}
	})
	t.Run("DeleteOneSubject", func(t *testing.T) {
		s := newStore(t)
		for k, tok := range map[token.Key]*token.Token{alice: own("alice", 1), bob: own("bob", 2), shared: own("service", 3)} {
			if err := s.PutToken(ctx, k, tok); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteToken(ctx, alice); err != nil {
			t.Fatal(err)
		}
		missing(t, s, alice)
		if got := get(t, s, bob); got.AccessToken != own("bob", 2).AccessToken {
			t.Errorf("bob's token after alice's was deleted = %q", got.AccessToken)
		}
		if got := get(t, s, shared); got.AccessToken != own("service", 3).AccessToken {
			t.Errorf("the shared token after alice's was deleted = %q", got.AccessToken)
		}
	})
	t.Run("ConcurrentRefresh", func(t *testing.T) {
		// Many goroutines refresh alice's and bob's tokens for the same
		// server, issuer and resource at once: each read returns a token of
		// the subject it asked for, and each ends with one of its own.
		s := newStore(t)
		subjects := map[string]token.Key{"alice": alice, "bob": bob}
		for sub, k := range subjects {
			if err := s.PutToken(ctx, k, own(sub, 0)); err != nil {
				t.Fatal(err)
			}
		}
		const goroutines, rounds = 6, 5
		var wg sync.WaitGroup
		errs := make(chan error, 2*goroutines*rounds)
		for sub, k := range subjects {
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						tok, err := s.Token(ctx, k)
						if err != nil {
							errs <- fmt.Errorf("%s: %w", sub, err)
							return
						}
						if !isOwn(tok, sub) {
							errs <- fmt.Errorf("%s read a token that is not theirs (access %q)", sub, tok.AccessToken)
							return
						}
						if err := s.PutToken(ctx, k, own(sub, 1+g*rounds+r)); err != nil {
							errs <- fmt.Errorf("%s: %w", sub, err)
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for sub, k := range subjects {
			if tok := get(t, s, k); !isOwn(tok, sub) {
				t.Errorf("%s ends with a token that is not theirs (access %q)", sub, tok.AccessToken)
			}
		}
	})
}

// isOwn reports whether every secret of tok was made for subject.
func isOwn(tok *token.Token, subject string) bool {
	p := subject + "-"
	return len(tok.AccessToken) > len(p) && tok.AccessToken[:len(p)] == p &&
		len(tok.RefreshToken) > len(p) && tok.RefreshToken[:len(p)] == p
}

package callers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter/caller"
)

// fake is a session that ends when closed.
type fake struct {
	name   string
	closed atomic.Bool
	done   chan struct{}
	once   sync.Once
}

func newFake(name string) *fake { return &fake{name: name, done: make(chan struct{})} }

func (f *fake) Close() error { f.closed.Store(true); f.once.Do(func() { close(f.done) }); return nil }
func (f *fake) Wait() error  { <-f.done; return nil }

var errClosed = errors.New("closed")

// TestSessions: one dial per subject under concurrency; a failed dial is
// not kept; past Max the least recently used is closed; a session that
// ends is forgotten; CloseAll closes all, refuses more, and the watchers end.
func TestSessions(t *testing.T) {
	ctx := context.Background()
	var wg sync.WaitGroup
	c := &Sessions[*fake]{Max: 2, WG: &wg}
	var dials atomic.Int32
	dial := func(name string) func(context.Context) (*fake, error) {
		return func(context.Context) (*fake, error) { dials.Add(1); return newFake(name), nil }
	}
	var got [8]*fake
	var g sync.WaitGroup
	for i := range got {
		g.Add(1)
		go func() {
			defer g.Done()
			s, err := c.Get(ctx, "alice", errClosed, dial("alice"))
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		}()
	}
	g.Wait()
	if dials.Load() != 1 {
		t.Fatalf("%d dials for one subject, want 1", dials.Load())
	}
	for _, s := range got {
		if s != got[0] || s.name != "alice" {
			t.Fatalf("alice's sessions differ: %v", got)
		}
	}
	if _, err := c.Get(ctx, "bob", errClosed, func(context.Context) (*fake, error) { return nil, errors.New("down") }); err == nil || c.Len() != 1 {
		t.Fatalf("failed dial: %v, %d kept", err, c.Len())
	}
	bob, _ := c.Get(ctx, "bob", errClosed, dial("bob"))
	if bob.name != "bob" || bob == got[0] {
		t.Fatal("bob was given alice's session")
	}
	c.Get(ctx, "alice", errClosed, dial("alice")) // alice is used last: bob is the oldest
	carol, _ := c.Get(ctx, "carol", errClosed, dial("carol"))
	if !bob.closed.Load() || got[0].closed.Load() || c.Len() != 2 {
		t.Fatalf("eviction: bob closed %v, alice closed %v, %d kept", bob.closed.Load(), got[0].closed.Load(), c.Len())
	}
	carol.Close() // the server ended it
	for deadline := time.Now().Add(5 * time.Second); c.Len() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("an ended session is still kept")
		}
	}
	if s, _ := c.Get(ctx, "carol", errClosed, dial("carol")); s == carol {
		t.Fatal("an ended session was given again")
	}
	c.CloseAll()
	wg.Wait() // every watcher ended
	if _, err := c.Get(ctx, "dave", errClosed, dial("dave")); !errors.Is(err, errClosed) {
		t.Fatalf("Get after CloseAll: %v", err)
	}
	if !got[0].closed.Load() {
		t.Fatal("CloseAll left alice's session open")
	}
}

func TestSubject(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		id   *caller.Identity
		want string
	}{{nil, ""}, {&caller.Identity{Subject: "anonymous:s1", Anonymous: true}, ""}, {&caller.Identity{Subject: "alice"}, "alice"}} {
		if got := Subject(caller.WithIdentity(ctx, tc.id)); got != tc.want {
			t.Errorf("Subject(%v) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

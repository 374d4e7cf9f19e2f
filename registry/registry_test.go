package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

func spec(t testing.TB, name string, opts *adapter.ToolOptions) *adapter.Spec {
	t.Helper()
	s, err := adapter.NewRawTool(name, "tool "+name, &jsonschema.Schema{Type: "object"},
		func(context.Context, json.RawMessage) (*adapter.Result, error) { return adapter.TextResult(name), nil }, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func names(seq func(func(*adapter.Spec) bool)) []string {
	var out []string
	for s := range seq {
		out = append(out, s.Name)
	}
	return out
}

// recorder is a listener that keeps every change it sees.
type recorder struct {
	mu      sync.Mutex
	changes []string
}

func (r *recorder) listen(c registry.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, nw := "-", "-"
	if c.Old != nil {
		old = c.Old.Description
	}
	if c.New != nil {
		nw = c.New.Description
	}
	r.changes = append(r.changes, fmt.Sprintf("%s %s %s>%s", c.Op, c.Name, old, nw))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.changes
	r.changes = nil
	return c
}

func TestRegisterLookupUnregister(t *testing.T) {
	reg := registry.New()
	var rec recorder
	cancel := reg.Subscribe(rec.listen)
	defer cancel()

	a, b := spec(t, "a", nil), spec(t, "b", nil)
	if err := reg.Register(b, a); err != nil {
		t.Fatal(err)
	}
	if got, ok := reg.Lookup("a"); !ok || got != a {
		t.Errorf("Lookup(a) = %v, %v", got, ok)
	}
	if _, ok := reg.Lookup("zzz"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
	if reg.Len() != 2 {
		t.Errorf("Len = %d", reg.Len())
	}

	// Duplicates: against the registry and within one call; nothing changes.
	a2 := spec(t, "a", nil)
	a2.Description = "second a"
	c := spec(t, "c", nil)
	if err := reg.Register(c, a2); !errors.Is(err, registry.ErrDuplicate) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("Register duplicate: %v, want ErrDuplicate naming a", err)
	}
	if err := reg.Register(c, spec(t, "c", nil)); !errors.Is(err, registry.ErrDuplicate) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("Register twice in one call: %v", err)
	}
	if _, ok := reg.Lookup("c"); ok {
		t.Error("a failed Register registered c anyway")
	}
	if got, _ := reg.Lookup("a"); got != a {
		t.Error("a failed Register replaced a")
	}

	// Invalid specs are rejected at registration.
	for _, bad := range []*adapter.Spec{
		nil,
		{Name: "no.dots", InputSchema: &jsonschema.Schema{Type: "object"}, Handler: a.Handler},
		{Name: "noschema", Handler: a.Handler},
		{Name: "arrayschema", InputSchema: &jsonschema.Schema{Type: "array"}, Handler: a.Handler},
		{Name: "nohandler", InputSchema: &jsonschema.Schema{Type: "object"}},
	} {
		if err := reg.Register(bad); err == nil {
			t.Errorf("Register(%v) succeeded", bad)
		}
	}

	if err := reg.Replace(a2, c); err != nil {
		t.Fatal(err)
	}
	if got, _ := reg.Lookup("a"); got != a2 {
		t.Error("Replace did not replace a")
	}
	if err := reg.Unregister("b", "nope"); !errors.Is(err, registry.ErrNotRegistered) {
		t.Errorf("Unregister unknown: %v", err)
	}
	if err := reg.Unregister("b", "b"); !errors.Is(err, registry.ErrNotRegistered) {
		t.Errorf("Unregister repeated name: %v", err)
	}
	if _, ok := reg.Lookup("b"); !ok {
		t.Error("a failed Unregister removed b")
	}
	if err := reg.Unregister("b"); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup("b"); ok {
		t.Error("b still registered")
	}
	if diff := cmp.Diff([]string{"a", "c"}, names(reg.List(registry.Filter{}))); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	want := []string{
		"added b ->tool b", "added a ->tool a", // in argument order
		"replaced a tool a>second a", "added c ->tool c",
		"removed b tool b>-",
	}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}

	cancel()
	cancel() // idempotent
	if err := reg.Unregister("a"); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("a cancelled listener saw %v", got)
	}
	if err := reg.Register(); err != nil {
		t.Errorf("empty Register: %v", err)
	}
}

func TestMustRegisterPanics(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(spec(t, "a", nil))
	defer func() {
		if r := recover(); r == nil || !errors.Is(r.(error), registry.ErrDuplicate) {
			t.Errorf("recovered %v, want ErrDuplicate", r)
		}
	}()
	reg.MustRegister(spec(t, "a", nil))
	t.Error("MustRegister did not panic")
}

func TestListFilter(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		spec(t, "zeta", &adapter.ToolOptions{Tags: []string{"fs", "write"}}),
		spec(t, "alpha", &adapter.ToolOptions{Targets: []string{adapter.TargetMCP}, Tags: []string{"fs"}}),
		spec(t, "wx_now", &adapter.ToolOptions{Source: adapter.Source{Server: "wx", RemoteName: "now"}, Targets: []string{adapter.TargetEino}}),
		spec(t, "wx_forecast", &adapter.ToolOptions{Source: adapter.Source{Server: "wx", RemoteName: "forecast"}}),
		spec(t, "gh_issue", &adapter.ToolOptions{Source: adapter.Source{Server: "gh"}, Tags: []string{"write"}}),
		spec(t, "Beta", nil),
	)
	tests := []struct {
		name string
		f    registry.Filter
		want []string
	}{
		{"all, byte order", registry.Filter{}, []string{"Beta", "alpha", "gh_issue", "wx_forecast", "wx_now", "zeta"}},
		{"target mcp", registry.Filter{Target: adapter.TargetMCP}, []string{"Beta", "alpha", "gh_issue", "wx_forecast", "zeta"}},
		{"target eino", registry.Filter{Target: adapter.TargetEino}, []string{"Beta", "gh_issue", "wx_forecast", "wx_now", "zeta"}},
		{"tag fs", registry.Filter{Tags: []string{"fs"}}, []string{"alpha", "zeta"}},
		{"tags fs and write", registry.Filter{Tags: []string{"fs", "write"}}, []string{"zeta"}},
		{"server wx", registry.Filter{Server: "wx"}, []string{"wx_forecast", "wx_now"}},
		{"local", registry.Filter{Server: "local"}, []string{"Beta", "alpha", "zeta"}},
		{"server and target", registry.Filter{Server: "wx", Target: adapter.TargetMCP}, []string{"wx_forecast"}},
		{"func", registry.Filter{Func: func(s *adapter.Spec) bool { return strings.HasPrefix(s.Name, "wx_") }}, []string{"wx_forecast", "wx_now"}},
		{"func and tag", registry.Filter{Tags: []string{"write"}, Func: func(s *adapter.Spec) bool { return !s.Source.IsLocal() }}, []string{"gh_issue"}},
		{"nothing", registry.Filter{Tags: []string{"none"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 3 { // the order is deterministic, not map order
				if diff := cmp.Diff(tt.want, names(reg.List(tt.f))); diff != "" {
					t.Fatalf("List (-want +got):\n%s", diff)
				}
			}
		})
	}
	// Early break stops the iteration.
	var first []string
	for s := range reg.List(registry.Filter{}) {
		first = append(first, s.Name)
		break
	}
	if diff := cmp.Diff([]string{"Beta"}, first); diff != "" {
		t.Errorf("break (-want +got):\n%s", diff)
	}
	// A listing iterates over the snapshot taken when List was called.
	seq := reg.List(registry.Filter{})
	reg.MustRegister(spec(t, "late", nil))
	if slices.Contains(names(seq), "late") {
		t.Error("a listing saw a spec registered after List was called")
	}
}

func TestUpdate(t *testing.T) {
	reg := registry.New()
	a, b := spec(t, "a", nil), spec(t, "b", nil)
	reg.MustRegister(a, b)
	var rec recorder
	defer reg.Subscribe(rec.listen)()

	a2 := spec(t, "a", nil)
	a2.Description = "a v2"
	c := spec(t, "c", nil)

	// Failing batches apply nothing and notify no one.
	failing := [][]registry.Change{
		{{Op: registry.Added, New: c}, {Op: registry.Removed, Name: "missing"}},
		{{Op: registry.Removed, Name: "b"}, {Op: registry.Removed, Name: "b"}},
		{{Op: registry.Added, New: c}, {Op: registry.Added, New: c}},
		{{Op: registry.Replaced, New: spec(t, "nope", nil)}},
		{{Op: registry.Added, New: a2}},
		{{Op: registry.Added}},
		{{Op: registry.Added, Name: "x", New: c}},
		{{Op: registry.Op(9), Name: "a"}},
		{{Op: registry.Added, New: &adapter.Spec{Name: "bad name"}}},
	}
	for i, batch := range failing {
		if err := reg.Update(batch...); err == nil {
			t.Errorf("batch %d succeeded", i)
		}
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("failed batches notified %v", got)
	}
	if diff := cmp.Diff([]string{"a", "b"}, names(reg.List(registry.Filter{}))); diff != "" {
		t.Errorf("after failed batches (-want +got):\n%s", diff)
	}

	err := reg.Update(
		registry.Change{Op: registry.Removed, Name: "b"},
		registry.Change{Op: registry.Added, New: c},
		registry.Change{Op: registry.Replaced, Name: "a", New: a2},
		registry.Change{Op: registry.Added, New: b}, // re-add what this batch removed
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"removed b tool b>-", "added c ->tool c", "replaced a tool a>a v2", "added b ->tool b"}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if got, _ := reg.Lookup("a"); got != a2 {
		t.Error("a not replaced")
	}
}

// TestUpdateAtomic: concurrent readers see either none or all of a batch.
func TestUpdateAtomic(t *testing.T) {
	reg := registry.New()
	v1a, v1b := spec(t, "a", nil), spec(t, "b", nil)
	v1a.Description, v1b.Description = "v1", "v1"
	reg.MustRegister(v1a, v1b)
	v2a, v2b := spec(t, "a", nil), spec(t, "b", nil)
	v2a.Description, v2b.Description = "v2", "v2"

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var torn []string
	var mu sync.Mutex
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				var ds []string
				for s := range reg.List(registry.Filter{}) {
					ds = append(ds, s.Description)
				}
				if len(ds) != 2 || ds[0] != ds[1] {
					mu.Lock()
					torn = append(torn, strings.Join(ds, ","))
					mu.Unlock()
				}
			}
		})
	}
	for i := range 200 {
		x, y := v2a, v2b
		if i%2 == 1 {
			x, y = v1a, v1b
		}
		if err := reg.Update(registry.Change{Op: registry.Replaced, New: x}, registry.Change{Op: registry.Replaced, New: y}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(torn) > 0 {
		t.Errorf("readers saw half-applied batches: %v", torn[:min(len(torn), 5)])
	}
}

// TestListenerOrder: with concurrent writers, every listener sees the same
// sequence, and that sequence is consistent (no removal before its add).
func TestListenerOrder(t *testing.T) {
	reg := registry.New()
	var r1, r2 recorder
	defer reg.Subscribe(r1.listen)()
	defer reg.Subscribe(r2.listen)()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				name := fmt.Sprintf("w%d_%d", w, i)
				if err := reg.Register(spec(t, name, nil)); err != nil {
					t.Error(err)
					return
				}
				if err := reg.Unregister(name); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	c1, c2 := r1.take(), r2.take()
	if len(c1) != 4*50*2 {
		t.Fatalf("listener saw %d changes, want %d", len(c1), 400)
	}
	if diff := cmp.Diff(c1, c2); diff != "" {
		t.Errorf("listeners disagree (-1 +2):\n%s", diff)
	}
	live := map[string]bool{}
	for _, c := range c1 {
		f := strings.Fields(c)
		switch f[0] {
		case "added":
			if live[f[1]] {
				t.Fatalf("%s added twice", f[1])
			}
			live[f[1]] = true
		case "removed":
			if !live[f[1]] {
				t.Fatalf("%s removed before it was added", f[1])
			}
			delete(live, f[1])
		}
	}
	if reg.Len() != 0 || len(live) != 0 {
		t.Errorf("Len = %d, live = %v; want empty", reg.Len(), live)
	}
}

// TestConcurrent exercises register, replace, unregister, lookup, list and
// subscribe together; run with -race.
func TestConcurrent(t *testing.T) {
	reg := registry.New()
	stable := spec(t, "stable", nil)
	reg.MustRegister(stable)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				s := spec(t, fmt.Sprintf("t%d_%d", w, i%10), nil)
				if err := reg.Replace(s); err != nil {
					t.Error(err)
				}
				if i%3 == 0 {
					_ = reg.Unregister(s.Name)
				}
			}
		})
		wg.Go(func() {
			for range 300 {
				if got, ok := reg.Lookup("stable"); !ok || got != stable {
					t.Error("lost the stable spec")
					return
				}
				prev := ""
				for s := range reg.List(registry.Filter{Target: adapter.TargetMCP}) {
					if s.Name <= prev {
						t.Errorf("List out of order: %q after %q", s.Name, prev)
					}
					prev = s.Name
				}
			}
		})
		wg.Go(func() {
			for range 50 {
				cancel := reg.Subscribe(func(registry.Change) {})
				cancel()
			}
		})
	}
	wg.Wait()
	if _, ok := reg.Lookup("stable"); !ok {
		t.Error("stable spec missing")
	}
}

func TestListenerMayReadRegistry(t *testing.T) {
	reg := registry.New()
	var seen []int
	defer reg.Subscribe(func(c registry.Change) {
		// The snapshot is published before listeners run.
		if _, ok := reg.Lookup(c.Name); ok != (c.Op != registry.Removed) {
			t.Errorf("%s %s: Lookup ok = %v", c.Op, c.Name, ok)
		}
		seen = append(seen, reg.Len())
	})()
	reg.MustRegister(spec(t, "a", nil), spec(t, "b", nil))
	if err := reg.Unregister("a"); err != nil {
		t.Fatal(err)
	}
	// A batch is published at once: both listeners calls see Len 2.
	if diff := cmp.Diff([]int{2, 2, 1}, seen); diff != "" {
		t.Errorf("Len seen by listener (-want +got):\n%s", diff)
	}
}

func TestOpString(t *testing.T) {
	for op, want := range map[registry.Op]string{registry.Added: "added", registry.Removed: "removed", registry.Replaced: "replaced", registry.Op(7): "Op(7)"} {
		if got := op.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(op), got, want)
		}
	}
}

// The registry satisfies the executor's catalog.
var _ interface {
	Lookup(string) (*adapter.Spec, bool)
} = (*registry.Registry)(nil)

// Package registry holds a set of tool specs: register, replace, unregister,
// look up, list in a deterministic order, and subscribe to changes.
//
//	reg := registry.New()
//	if err := reg.Register(spec); err != nil {
//		log.Fatal(err)
//	}
//	for s := range reg.List(registry.Filter{Target: adapter.TargetMCP}) {
//		fmt.Println(s.Name)
//	}
//
// A Registry is safe for concurrent use. Lookups and listings take no lock:
// every change publishes an immutable snapshot, so the call path of an
// executor never contends with registration. A *Registry is the catalog an
// adapter.Executor looks tools up in.
//
// # Registration
//
// [Registry.Register] checks each spec ([adapter.Spec.Check]: name, schemas,
// handler) and fails on a name already taken ([ErrDuplicate]);
// [Registry.Replace] overwrites; [Registry.Unregister] removes
// ([ErrNotRegistered] for unknown names). [Registry.Update] applies a mixed
// batch. Every call is all or nothing, and lookups see all of it or none.
//
// # Listing
//
// [Registry.List] yields the specs that match a [Filter] (target, tags,
// source server, predicate), ordered by name, from the snapshot current when
// it was called.
//
// # Changes
//
// [Registry.Subscribe] registers a listener that sees every added, removed and
// replaced spec, in order, after the snapshot that contains the change is
// published. The MCP export uses it to emit notifications/tools/list_changed.
package registry

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentadapter/agentadapter/adapter"
)

// Errors returned by registration.
var (
	// ErrDuplicate: a spec of that name is already registered.
	ErrDuplicate = errors.New("registry: duplicate tool name")
	// ErrNotRegistered: no spec of that name is registered.
	ErrNotRegistered = errors.New("registry: tool not registered")
)

// Registry is a concurrency-safe set of specs keyed by name.
type Registry struct {
	mu   sync.Mutex // serialises writers and listener delivery
	snap atomic.Pointer[snapshot]

	lmu       sync.Mutex
	listeners map[int]func(Change)
	nextID    int
}

type snapshot struct {
	byName map[string]*adapter.Spec
	sorted []*adapter.Spec // by name
}

// New returns an empty registry.
func New() *Registry {
	r := &Registry{listeners: map[int]func(Change){}}
	r.snap.Store(&snapshot{byName: map[string]*adapter.Spec{}})
	return r
}

// Op is the kind of a [Change].
type Op int

const (
	Added Op = iota + 1
	Removed
	Replaced
)

func (o Op) String() string {
	switch o {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Replaced:
		return "replaced"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Change describes one change to the registry. Old is nil for Added, New is
// nil for Removed.
type Change struct {
	Op   Op
	Name string
	Old  *adapter.Spec
	New  *adapter.Spec
}

// Register adds specs. Each is checked ([adapter.Spec.Check]: name, schemas,
// handler); an invalid spec or a name already registered (or repeated among
// specs) fails the whole call and registers nothing.
func (r *Registry) Register(specs ...*adapter.Spec) error {
	changes, err := specChanges(specs, Added)
	if err != nil {
		return err
	}
	return r.commit(changes, false)
}

// MustRegister is like Register but panics on error. Use it at start-up.
func (r *Registry) MustRegister(specs ...*adapter.Spec) {
	if err := r.Register(specs...); err != nil {
		panic(err)
	}
}

// Replace adds specs, replacing any registered under the same names
// (listeners see Replaced for those, Added for the others). A name repeated
// among specs fails the call.
func (r *Registry) Replace(specs ...*adapter.Spec) error {
	changes, err := specChanges(specs, Replaced)
	if err != nil {
		return err
	}
	return r.commit(changes, true)
}

func specChanges(specs []*adapter.Spec, op Op) ([]Change, error) {
	changes := make([]Change, 0, len(specs))
	seen := make(map[string]bool, len(specs))
	for _, s := range specs {
		if s == nil {
			return nil, errors.New("registry: nil spec")
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("%w: %q appears twice in one call", ErrDuplicate, s.Name)
		}
		seen[s.Name] = true
		changes = append(changes, Change{Op: op, Name: s.Name, New: s})
	}
	return changes, nil
}

// Unregister removes the named specs. An unknown name (or one repeated)
// fails the call with ErrNotRegistered and removes nothing.
func (r *Registry) Unregister(names ...string) error {
	changes := make([]Change, len(names))
	for i, n := range names {
		changes[i] = Change{Op: Removed, Name: n}
	}
	return r.commit(changes, false)
}

// Update applies a batch of changes atomically: listeners see them in
// order, and lookups see all or none of them. Added and Replaced use New
// (Name, if set, must match New.Name); Removed uses Name. Added fails on an
// existing name, Removed and Replaced on a missing one; any failure applies
// nothing.
func (r *Registry) Update(changes ...Change) error {
	return r.commit(changes, false)
}

// commit checks changes against the current snapshot, in order, and
// publishes them together. upsert turns a Replaced of a missing name into
// an Added.
func (r *Registry) commit(changes []Change, upsert bool) error {
	for _, c := range changes {
		switch c.Op {
		case Added, Replaced:
			if c.New == nil {
				return fmt.Errorf("registry: %s change of %q has no spec", c.Op, c.Name)
			}
			if c.Name != "" && c.Name != c.New.Name {
				return fmt.Errorf("registry: %s change names %q but its spec is %q", c.Op, c.Name, c.New.Name)
			}
			if err := c.New.Check(); err != nil {
				return err
			}
		case Removed:
		default:
			return fmt.Errorf("registry: unknown change op %v", c.Op)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	names := maps.Clone(old.byName)
	out := make([]Change, 0, len(changes))
	for _, c := range changes {
		name := c.Name
		if c.New != nil {
			name = c.New.Name
		}
		prev, exists := names[name]
		switch {
		case c.Op == Added && exists:
			return fmt.Errorf("%w: %q (registered from %s)", ErrDuplicate, name, prev.Source)
		case c.Op == Replaced && !exists && upsert, c.Op == Added:
			names[name] = c.New
			out = append(out, Change{Op: Added, Name: name, New: c.New})
		case !exists:
			return fmt.Errorf("%w: %q", ErrNotRegistered, name)
		case c.Op == Replaced:
			names[name] = c.New
			out = append(out, Change{Op: Replaced, Name: name, Old: prev, New: c.New})
		case c.Op == Removed:
			delete(names, name)
			out = append(out, Change{Op: Removed, Name: name, Old: prev})
		}
	}
	r.publish(names, out)
	return nil
}

// publish installs byName as the new snapshot and notifies listeners of
// changes. r.mu is held, so listeners see changes in the order they were
// made.
func (r *Registry) publish(byName map[string]*adapter.Spec, changes []Change) {
	sorted := slices.SortedFunc(maps.Values(byName), func(a, b *adapter.Spec) int { return strings.Compare(a.Name, b.Name) })
	r.snap.Store(&snapshot{byName: byName, sorted: sorted})

	r.lmu.Lock()
	ls := make([]func(Change), 0, len(r.listeners))
	ids := make([]int, 0, len(r.listeners))
	for id := range r.listeners {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		ls = append(ls, r.listeners[id])
	}
	r.lmu.Unlock()
	for _, c := range changes {
		for _, l := range ls {
			l(c)
		}
	}
}

// Lookup returns the spec registered under name. It takes no lock.
func (r *Registry) Lookup(name string) (*adapter.Spec, bool) {
	s, ok := r.snap.Load().byName[name]
	return s, ok
}

// Len returns the number of registered specs.
func (r *Registry) Len() int { return len(r.snap.Load().byName) }

// Filter selects specs in [Registry.List]. The zero Filter selects all.
type Filter struct {
	// Target keeps specs exported to that integration (see adapter.TargetMCP).
	Target string
	// Tags keeps specs carrying every one of these tags.
	Tags []string
	// Server keeps tools imported from that MCP server; "local" keeps local
	// tools (so a server named "local" cannot be selected by name).
	Server string
	// Func, if set, keeps specs for which it returns true.
	Func func(*adapter.Spec) bool
	// Model keeps only the specs a model may be offered
	// ([adapter.Spec.ModelVisible]): MCP Apps' app-only tools are left out.
	// The Eino, Genkit and langchaingo integrations set it on every
	// listing and call; the MCP export does not.
	Model bool
}

// Match reports whether s passes the filter.
func (f Filter) Match(s *adapter.Spec) bool {
	if f.Target != "" && !s.HasTarget(f.Target) {
		return false
	}
	for _, t := range f.Tags {
		if !s.HasTag(t) {
			return false
		}
	}
	if f.Server != "" {
		if f.Server == "local" {
			if !s.Source.IsLocal() {
				return false
			}
		} else if s.Source.Server != f.Server {
			return false
		}
	}
	if f.Model && !s.ModelVisible() {
		return false
	}
	return f.Func == nil || f.Func(s)
}

// List returns the specs that match f, ordered by name. It iterates over
// the snapshot current when List was called.
func (r *Registry) List(f Filter) iter.Seq[*adapter.Spec] {
	snap := r.snap.Load()
	return func(yield func(*adapter.Spec) bool) {
		for _, s := range snap.sorted {
			if f.Match(s) && !yield(s) {
				return
			}
		}
	}
}

// Subscribe registers fn to be called, synchronously and in order, for each
// change after this call. fn must not call Register, Replace, Unregister or
// Update on the same registry. The returned function unsubscribes.
func (r *Registry) Subscribe(fn func(Change)) (cancel func()) {
	r.lmu.Lock()
	id := r.nextID
	r.nextID++
	r.listeners[id] = fn
	r.lmu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.lmu.Lock()
			delete(r.listeners, id)
			r.lmu.Unlock()
		})
	}
}

package toolsearch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// Limits of one search.
const (
	// DefaultLimit is the number of hits a search with no limit returns.
	DefaultLimit = 5
	// MaxLimit bounds the hits of one search.
	MaxLimit = 50
	// MaxQueryBytes bounds a query's length.
	MaxQueryBytes = 2048
)

// Errors of [Index.Search].
var (
	// ErrClosed: the index was closed.
	ErrClosed = errors.New("toolsearch: index closed")
	// ErrQueryTooLong: the query is longer than MaxQueryBytes.
	ErrQueryTooLong = fmt.Errorf("toolsearch: query longer than %d bytes", MaxQueryBytes)
)

// A Ranker scores documents for a query: [BM25] is the built-in one; a
// semantic ranker (embeddings) implements the same three methods. Add and
// Remove are called as the registry changes, on the registry's write path:
// they must be quick (an embedding ranker queues the work). Rank returns
// at most limit documents among those keep admits (keep is the caller's
// policy: rank only what keep admits, so that denied documents never crowd
// out the rest), best first; the index checks the policy again on what
// it returns.
type Ranker interface {
	Add(doc Document)
	Remove(name string)
	Rank(ctx context.Context, query string, limit int, keep func(name string) bool) ([]Scored, error)
}

// Scored is a document's score for a query.
type Scored struct {
	Name  string
	Score float64
}

// Document is what the index searches of one spec: its name, title,
// description, and its arguments (the input schema's properties, nested
// objects' included) with their descriptions.
type Document struct {
	Name, Title, Description string
	Args                     []Arg
}

// Arg is one argument of a [Document].
type Arg struct {
	Name, Description string
}

// DocumentOf returns the searchable text of a spec.
func DocumentOf(s *adapter.Spec) Document {
	d := Document{Name: s.Name, Title: s.Title, Description: s.Description}
	d.Args = args(d.Args, s.InputSchema, 0)
	return d
}

// args appends the properties of an object schema, by name, to depth 3.
func args(out []Arg, s *jsonschema.Schema, depth int) []Arg {
	if s == nil || depth > 2 {
		return out
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.Properties[n]
		if p == nil {
			continue
		}
		out = append(out, Arg{Name: n, Description: p.Description})
		out = args(out, p, depth+1)
		out = args(out, p.Items, depth+1)
	}
	return out
}

// Options configure an [Index]. The zero value is valid.
type Options struct {
	// Ranker scores the documents; nil means NewBM25(0, 0).
	Ranker Ranker
}

// Index is a search index over the specs of a registry, kept current by a
// registry subscription: a spec registered, replaced or unregistered is
// found, found anew or gone by the time the registry call returns. It
// indexes every spec (meta-tools aside: specs with a Forward, and the
// names search_tools and call_tool); what a
// caller may find is decided per search, by the allowed predicate, never
// by the index. An Index is safe for concurrent use.
type Index struct {
	reg    *registry.Registry
	ranker Ranker

	mu     sync.Mutex // orders the initial load before the changes
	closed bool
	cancel func()

	found foundSets // what search_tools returned, per run
}

// New returns an index over reg's specs, subscribed to its changes until
// [Index.Close]. opts may be nil.
func New(reg *registry.Registry, opts *Options) (*Index, error) {
	if reg == nil {
		return nil, errors.New("toolsearch: nil registry")
	}
	if opts == nil {
		opts = &Options{}
	}
	ix := &Index{reg: reg, ranker: opts.Ranker}
	if ix.ranker == nil {
		ix.ranker = NewBM25(0, 0)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// Subscribe first, then load: a change published meanwhile waits for
	// the load (on ix.mu) and is applied after it, idempotently.
	ix.cancel = reg.Subscribe(ix.apply)
	for s := range reg.List(registry.Filter{}) {
		ix.add(s)
	}
	return ix, nil
}

func (ix *Index) apply(c registry.Change) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return
	}
	switch c.Op {
	case registry.Added, registry.Replaced:
		ix.add(c.New)
	case registry.Removed:
		ix.ranker.Remove(c.Name)
	}
}

func (ix *Index) add(s *adapter.Spec) {
	if isMeta(s) {
		ix.ranker.Remove(s.Name)
		return
	}
	ix.ranker.Add(DocumentOf(s))
}

// isMeta reports a meta-tool: a spec that forwards (call_tool's kind) or
// one under a meta-tool's name, reserved: never indexed, never called
// through call_tool.
func isMeta(s *adapter.Spec) bool {
	return s.Forward != nil || s.Name == SearchToolsName || s.Name == CallToolName
}

// lookup returns the spec registered under name if a caller whose policy
// is allowed (nil: every spec) may find and call it: the one check of
// search results, call_tool, the always-loaded and deferred tools' calls
// and Loaded.
func (ix *Index) lookup(name string, allowed func(*adapter.Spec) bool) (*adapter.Spec, bool) {
	s, ok := ix.reg.Lookup(name)
	if !ok || isMeta(s) || (allowed != nil && !allowed(s)) {
		return nil, false
	}
	return s, true
}

// Close ends the index's subscription; searches then fail with ErrClosed.
func (ix *Index) Close() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.closed = true
	ix.cancel()
}

// Hit is one search result.
type Hit struct {
	Spec  *adapter.Spec
	Score float64
}

// Search returns the specs that best match query, at most limit (zero or
// less: DefaultLimit; at most MaxLimit), by score then name, among the specs
// registered now that allowed admits. allowed is the caller's policy, the
// predicate its listings and calls use (a registry.Filter's Match, say): a
// spec it denies is never ranked, returned or described. A nil allowed
// admits every spec, which is right only for a caller that may call every
// tool. A query with no searchable word finds nothing.
func (ix *Index) Search(ctx context.Context, query string, limit int, allowed func(*adapter.Spec) bool) ([]Hit, error) {
	if len(query) > MaxQueryBytes {
		return nil, ErrQueryTooLong
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	ix.mu.Lock()
	closed := ix.closed
	ix.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	visible := func(name string) (*adapter.Spec, bool) { return ix.lookup(name, allowed) }
	scored, err := ix.ranker.Rank(ctx, query, limit, func(name string) bool {
		_, ok := visible(name)
		return ok
	})
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(scored))
	for _, sc := range scored {
		if s, ok := visible(sc.Name); ok && len(hits) < limit { // the ranker is not trusted with policy
			hits = append(hits, Hit{Spec: s, Score: sc.Score})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if better(Scored{a.Spec.Name, a.Score}, Scored{b.Spec.Name, b.Score}) {
			return -1
		}
		if a.Spec.Name == b.Spec.Name {
			return 0
		}
		return 1
	})
	return hits, nil
}

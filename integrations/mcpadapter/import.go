package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/defhash"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/pages"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/schema"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/toolspec"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"
	"github.com/agentadapter/agentadapter/registry"
)

// imported is one tool imported from a server.
type imported struct {
	remote     string
	tool       *mcp.Tool // the definition in force (the pinned one)
	hash       string
	spec       *adapter.Spec
	quarantine atomic.Pointer[Quarantine]
}

// ImportError reports a tool that could not be imported.
type ImportError struct {
	Server, Tool string // Tool is the remote name
	Err          error
}

func (e *ImportError) Error() string {
	return fmt.Sprintf("tool %q: %v", e.Tool, e.Err)
}
func (e *ImportError) Unwrap() error { return e.Err }

// ErrCollision is wrapped by the error of a tool whose registry name is
// already taken.
var ErrCollision = errors.New("mcpadapter: tool name collision")

// ErrSchemaLimit is wrapped by the [ImportError] of an imported tool whose
// input or output schema is nested more than 64 schemas deep, holds more
// than 512 schemas, or would cost more than 512 KiB of encoding work on each
// listing (its encoded size, each byte counted once for every schema that
// encloses it). The tool is not imported; the server's other tools are.
//
// An export encodes every schema again on each tools/list. jsonschema-go
// encodes each nested schema by itself, at a fixed cost per schema, and
// encoding/json re-reads each one's encoding at every level above it, so
// the cost grows with the count of schemas and with size times depth: an
// upstream schema 3000 levels deep took seconds of CPU per listing. Real
// schemas, $defs and $ref included, are far inside these bounds; the
// worst accepted one lists in milliseconds.
var ErrSchemaLimit = schema.ErrLimit

// refresh re-lists the server's tools and applies the differences to the
// registry.
func (c *conn) refresh(ctx context.Context) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	s, err := c.ensure(ctx)
	if err != nil {
		return err
	}
	tools, err := c.list(ctx, s)
	if err != nil {
		return err
	}
	return c.apply(tools)
}

// firstImport is start's import: list now, apply after the servers before
// c in the Connect call have applied theirs (prev is closed), so that two
// servers offering the same name resolve the same way every time: the
// first configured wins. It closes done when c has applied, or failed.
func (c *conn) firstImport(ctx context.Context, s *mcp.ClientSession, prev <-chan struct{}, done chan<- struct{}) error {
	defer close(done)
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	tools, err := c.list(ctx, s)
	if prev != nil {
		<-prev // bounded: every conn's start runs under its connect timeout
	}
	if err != nil {
		return err
	}
	return c.apply(tools)
}

// list fetches every page of tools/list (internal/pages).
func (c *conn) list(ctx context.Context, s *mcp.ClientSession) ([]*mcp.Tool, error) {
	if ir := s.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Tools == nil {
		return nil, nil // the server offers no tools
	}
	return pages.Tools(ctx, s, c.m.maxPages(), c.m.opts.ListRetries, func(err error) {
		if transport.IsConnectionError(err) {
			c.lost(s, err)
		}
	})
}

// wanted applies the server's allow list, deny list and filter.
func (c *conn) wanted(t *mcp.Tool) bool {
	if len(c.cfg.Allow) > 0 && !slices.Contains(c.cfg.Allow, t.Name) {
		return false
	}
	if slices.Contains(c.cfg.Deny, t.Name) {
		return false
	}
	return c.cfg.Filter == nil || c.cfg.Filter(t)
}

// apply brings the registry in line with a fresh listing. Tools that cannot
// be imported are skipped and reported; a changed definition quarantines
// the tool instead of replacing it. c.refreshMu is held.
func (c *conn) apply(tools []*mcp.Tool) error {
	var errs []error
	var changes []registry.Change
	next := make(map[string]*imported, len(tools))
	held := map[string]*Quarantine{}
	locals := map[string]string{} // registry name → remote name, this server
	var quarantined []Quarantine
	var skipped []ImportError
	first := c.known == nil
	if first {
		c.known = map[string]bool{}
	}
	for _, t := range tools {
		if t == nil || !c.wanted(t) {
			continue
		}
		isNew := !first && !c.known[t.Name]
		c.known[t.Name] = true
		fail := func(err error) {
			te := &ImportError{Server: c.cfg.Name, Tool: t.Name, Err: err}
			errs = append(errs, te)
			skipped = append(skipped, *te)
		}
		if _, dup := next[t.Name]; dup || held[t.Name] != nil {
			fail(errors.New("listed twice"))
			continue
		}
		local := localName(c.cfg.Name, t.Name, c.cfg.Prefix)
		if other, ok := locals[local]; ok {
			fail(fmt.Errorf("%w: %q from server %q (remote %q) and server %q (remote %q) map to the same name",
				ErrCollision, local, c.cfg.Name, other, c.cfg.Name, t.Name))
			continue
		}
		// Each wire schema is encoded once: the bytes are hashed for the pin
		// and decoded into the spec's schema.
		wire, err := defhash.Encode(t)
		if err != nil {
			fail(err)
			continue
		}
		hash := wire.Hash(t)
		prev := c.tools[t.Name]
		if prev != nil && prev.hash != hash {
			// Changed since pinned: keep the trusted spec, refuse calls.
			q := prev.quarantine.Load()
			if q == nil || q.Got != hash {
				q = &Quarantine{Server: c.cfg.Name, Tool: prev.spec.Name, RemoteName: t.Name, Pinned: prev.hash, Got: hash, Definition: t, Previous: prev.tool}
				quarantined = append(quarantined, *q)
			}
			// The store is deferred until the registry accepts the batch.
			next[t.Name] = &imported{remote: prev.remote, tool: prev.tool, hash: prev.hash, spec: prev.spec}
			next[t.Name].quarantine.Store(q)
			locals[prev.spec.Name] = t.Name
			continue
		}
		if prev == nil {
			if pin, ok := c.m.pin(c.cfg.Name, t.Name); ok && pin != hash {
				q := &Quarantine{Server: c.cfg.Name, Tool: local, RemoteName: t.Name, Pinned: pin, Got: hash, Definition: t}
				if old := c.held[t.Name]; old == nil || old.Got != hash {
					quarantined = append(quarantined, *q)
				}
				held[t.Name] = q
				continue
			} else if !ok && isNew && c.quarantinesNew() {
				q := &Quarantine{Server: c.cfg.Name, Tool: local, RemoteName: t.Name, Got: hash, Definition: t}
				if old := c.held[t.Name]; old == nil || old.Got != hash {
					quarantined = append(quarantined, *q)
				}
				held[t.Name] = q
				continue
			}
		}
		if prev != nil {
			// The hash covers every field of a definition, so an equal
			// hash is an unchanged tool.
			next[t.Name] = prev // unchanged (a quarantine, if any, is lifted below)
			locals[prev.spec.Name] = t.Name
			continue
		}
		imp, err := c.newImport(t, wire, local, hash)
		if err != nil {
			fail(err)
			continue
		}
		if s, ok := c.m.reg.Lookup(local); ok {
			fail(fmt.Errorf("%w: %q from server %q (remote %q) is already registered from %s%s",
				ErrCollision, local, c.cfg.Name, t.Name, s.Source, remoteOf(s)))
			continue
		}
		changes = append(changes, registry.Change{Op: registry.Added, Name: local, New: imp.spec})
		next[t.Name] = imp
		locals[local] = t.Name
	}
	for remote, prev := range c.tools {
		if next[remote] == nil {
			changes = append(changes, registry.Change{Op: registry.Removed, Name: prev.spec.Name})
		}
	}
	if len(changes) > 0 {
		if err := c.m.reg.Update(changes...); err != nil {
			return errors.Join(append(errs, fmt.Errorf("updating the registry: %w", err))...)
		}
	}
	c.mu.Lock()
	for remote, imp := range next {
		if prev := c.tools[remote]; prev == imp {
			if imp.quarantine.Load() != nil {
				imp.quarantine.Store(nil) // the server is back to the pinned definition
			}
		} else if prev != nil && prev.spec == imp.spec {
			// Quarantined: the registry keeps prev's spec, whose handler
			// reads prev's quarantine.
			prev.quarantine.Store(imp.quarantine.Load())
			next[remote] = prev
		}
		c.m.setPinIfAbsent(c.cfg.Name, remote, next[remote].hash)
	}
	c.tools = next
	c.held = held
	c.skipped = skipped
	c.mu.Unlock()
	if f := c.m.opts.OnQuarantine; f != nil {
		for _, q := range quarantined {
			f(q)
		}
	}
	for _, q := range quarantined {
		if q.Pinned == "" {
			c.m.logger.Warn("mcpadapter: new tool quarantined", "server", q.Server, "tool", q.Tool, "got", q.Got)
		} else {
			c.m.logger.Warn("mcpadapter: tool definition changed; tool quarantined", "server", q.Server, "tool", q.Tool, "pinned", q.Pinned, "got", q.Got)
		}
	}
	for _, te := range skipped {
		c.m.logger.Warn("mcpadapter: tool not imported", "server", te.Server, "tool", te.Tool, "error", te.Err)
	}
	return errors.Join(errs...)
}

func remoteOf(s *adapter.Spec) string {
	if s.Source.IsLocal() || s.Source.RemoteName == "" {
		return ""
	}
	return fmt.Sprintf(" (remote %q)", s.Source.RemoteName)
}

// unregisterAll removes the conn's tools from the registry.
func (c *conn) unregisterAll() {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	var changes []registry.Change
	for _, imp := range c.tools {
		if s, ok := c.m.reg.Lookup(imp.spec.Name); ok && s == imp.spec {
			changes = append(changes, registry.Change{Op: registry.Removed, Name: imp.spec.Name})
		}
	}
	if len(changes) > 0 {
		if err := c.m.reg.Update(changes...); err != nil {
			c.m.logger.Warn("mcpadapter: unregistering tools", "server", c.cfg.Name, "error", err)
		}
	}
	c.mu.Lock()
	c.tools = map[string]*imported{}
	c.held = map[string]*Quarantine{}
	c.mu.Unlock()
}

// newImport converts a remote tool into a spec named local, its schemas
// decoded from the encoded wire schemas (internal/toolspec).
func (c *conn) newImport(t *mcp.Tool, wire defhash.Schemas, local, hash string) (*imported, error) {
	imp := &imported{remote: t.Name, hash: hash}
	cfg := toolspec.Config{Server: c.cfg.Name, Trust: c.cfg.Trust, Targets: c.cfg.Targets, Tags: c.cfg.Tags, CallTimeout: c.cfg.CallTimeout, Strict: c.m.opts.Strict, Credential: c.cfg.OAuth.Credential()}
	spec, def, err := toolspec.New(t, wire, local, cfg, func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
		return c.call(ctx, imp, args)
	})
	if err != nil {
		return nil, err
	}
	imp.tool, imp.spec = def, spec
	return imp, nil
}

// LocalName returns the name a [Manager] registers a server's tool under:
// the remote name (or "<server>_<remote>" with Server.Prefix), characters
// outside [A-Za-z0-9_-] replaced by '_', cut to [adapter.MaxNameLen] with a
// hash suffix when longer. A pin is keyed by the remote name
// ([PinKey]); this is the name a client calls.
func LocalName(server, remote string, prefix bool) string {
	return localName(server, remote, prefix)
}

// localName returns the registry name of a remote tool: see toolspec.LocalName.
func localName(server, remote string, prefix bool) string {
	return toolspec.LocalName(server, remote, prefix)
}

func sortStrings(s []string) { sort.Strings(s) }

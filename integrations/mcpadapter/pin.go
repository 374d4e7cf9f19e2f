package mcpadapter

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/defhash"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
	"github.com/agentadapter/agentadapter/registry"
)

// ErrQuarantined is the cause of the error returned by a call of a
// quarantined tool.
var ErrQuarantined = errors.New("mcpadapter: tool quarantined")

// QuarantineGuard is the Guard name set on the error of a call refused
// because its tool is quarantined.
const QuarantineGuard = "mcp-pin"

// NewToolPolicy says whether tools a server adds after its first listing
// are quarantined; see [ManagerOptions.QuarantineNew].
type NewToolPolicy int

const (
	// QuarantineUntrusted quarantines the new tools of untrusted servers
	// and imports those of trusted ones (Server.Trust).
	QuarantineUntrusted NewToolPolicy = iota
	// QuarantineAll quarantines the new tools of every server.
	QuarantineAll
	// QuarantineNone imports new tools as they appear.
	QuarantineNone
)

// quarantinesNew reports whether c's tools added after its first listing
// wait for acceptance.
func (c *conn) quarantinesNew() bool {
	switch c.m.opts.QuarantineNew {
	case QuarantineAll:
		return true
	case QuarantineNone:
		return false
	default:
		return !c.cfg.Trust
	}
}

// Quarantine describes a tool whose definition changed after it was
// pinned, or that appeared after the server's first listing. Its calls are refused until [Manager.Accept] accepts the change.
// The registry keeps the pinned spec meanwhile (so the model never reads
// the new description), or none when the pin comes from an earlier run
// ([ManagerOptions.Pins]). It describes an MCP App's ui:// resource the
// same way when Resource is set: its reads are refused.
type Quarantine struct {
	Server string
	// Tool is the registry name; RemoteName the name on the server.
	Tool, RemoteName string
	// Pinned is the accepted definition hash (empty for a new tool); Got
	// the hash of Definition.
	Pinned, Got string
	// Definition is the changed definition awaiting acceptance, as the
	// server sent it; Previous the pinned one (nil when it was pinned in an
	// earlier run), whose schemas are the imported spec's
	// *jsonschema.Schema values (they encode to the same JSON).
	Definition, Previous *mcp.Tool
	// Resource, when set, is the changed envelope of a ui:// resource
	// awaiting acceptance; Tool and RemoteName are then its URI, Pinned
	// and Got [ResourceEnvelope.Hash]es, and Definition is nil.
	Resource *ResourceEnvelope
}

// DefinitionHash returns the pin of a tool definition: a SHA-256 over its
// name, title, description, input and output schemas, annotations, icons
// and _meta (clients show icons, and _meta reaches the spec), in canonical
// JSON (object keys sorted).
func DefinitionHash(t *mcp.Tool) string { return defhash.Of(t) }

// Pins returns the accepted definition hash of every tool seen, and the
// envelope hash of every ui:// resource read, keyed by [PinKey]. Persist it and pass it back as ManagerOptions.Pins to detect
// changes made between runs.
func (m *Manager) Pins() map[string]string {
	out := map[string]string{}
	for p, err := range m.pins.All(context.Background()) {
		if err != nil {
			m.logger.Error("mcpadapter: reading pins failed", "error", err)
			break
		}
		out[p.Key] = p.Hash
	}
	return out
}

// pin returns the pin of a tool. A store that cannot answer quarantines
// the tool (a pin no definition matches): failing closed.
func (m *Manager) pin(server, remote string) (string, bool) {
	h, ok, err := m.pins.Get(context.Background(), pin.Key(server, remote))
	if err != nil {
		m.logger.Error("mcpadapter: reading a pin failed; tool quarantined", "server", server, "tool", remote, "error", err)
		return "unavailable", true
	}
	return h, ok
}

func (m *Manager) setPinIfAbsent(server, remote, hash string) {
	if _, err := m.pins.SetIfAbsent(context.Background(), pin.Key(server, remote), hash); err != nil {
		m.logger.Error("mcpadapter: storing a pin failed", "server", server, "tool", remote, "error", err)
	}
}

// Quarantined lists the quarantined tools of every server, ordered by
// server and tool.
func (m *Manager) Quarantined() []Quarantine {
	var out []Quarantine
	for _, c := range m.all() {
		c.mu.Lock()
		for _, imp := range c.tools {
			if q := imp.quarantine.Load(); q != nil {
				out = append(out, *q)
			}
		}
		for _, q := range c.held {
			out = append(out, *q)
		}
		c.mu.Unlock()
		out = append(out, c.uiQuarantined()...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Tool < out[j].Tool
	})
	return out
}

// Unquarantined reports whether spec may be listed, found and called:
// false for a tool of m whose changed definition awaits review (the
// registry keeps its pinned spec, whose calls m refuses), true otherwise.
// Compose it into the filter listings and searches share (registry.Filter's
// Func); not from a registry listener: it takes the locks m publishes under.
func (m *Manager) Unquarantined(spec *adapter.Spec) bool {
	c, err := m.conn(spec.Source.Server)
	if err != nil {
		return true // not m's
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	imp := c.tools[spec.Source.RemoteName]
	return imp == nil || imp.quarantine.Load() == nil
}

// Accept accepts the changed definition of a quarantined tool (named as in
// the registry) whose hash ([Quarantine.Got], [DefinitionHash]) is hash:
// the definition is pinned, the registry gets the new spec, and calls are
// served again. The hash is the one the operator reviewed: if the server
// changed the definition since, Accept fails with an error wrapping
// [pin.ErrDefinitionChanged] and the new definition stays quarantined. It also
// fails when the tool is not quarantined or the new definition cannot be
// imported.
//
// A quarantined ui:// resource is accepted the same way, tool being its
// URI: its reads are served again while their envelope hashes to hash.
//
// Before v0.2 Accept took no hash and pinned whatever was quarantined at
// the time of the call; pass the Got of the Quarantine you showed.
func (m *Manager) Accept(server, tool, hash string) error {
	c, err := m.conn(server)
	if err != nil {
		return err
	}
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	c.mu.Lock()
	var prev *imported
	var q *Quarantine
	for _, imp := range c.tools {
		if imp.spec.Name == tool {
			prev, q = imp, imp.quarantine.Load()
		}
	}
	for _, h := range c.held {
		if h.Tool == tool {
			q = h
		}
	}
	c.mu.Unlock()
	if q == nil {
		if found, err := c.acceptUI(tool, hash); found {
			return err
		}
		return fmt.Errorf("mcpadapter: tool %q of server %q is not quarantined", tool, server)
	}
	if hash == "" || q.Got != hash {
		return &ImportError{Server: server, Tool: q.RemoteName, Err: fmt.Errorf("%w (reviewed %s, now %s)", pin.ErrDefinitionChanged, shortHash(hash), shortHash(q.Got))}
	}
	wire, err := defhash.Encode(q.Definition)
	if err != nil {
		return &ImportError{Server: server, Tool: q.RemoteName, Err: err}
	}
	imp, err := c.newImport(q.Definition, wire, q.Tool, q.Got)
	if err != nil {
		return &ImportError{Server: server, Tool: q.RemoteName, Err: err}
	}
	ch := registry.Change{Op: registry.Added, Name: q.Tool, New: imp.spec}
	if prev != nil {
		ch.Op = registry.Replaced
	} else if s, ok := m.reg.Lookup(q.Tool); ok {
		return &ImportError{Server: server, Tool: q.RemoteName, Err: fmt.Errorf("%w: %q is already registered from %s%s", ErrCollision, q.Tool, s.Source, remoteOf(s))}
	}
	if err := m.pins.Set(context.Background(), pin.Key(server, q.RemoteName), q.Got); err != nil {
		return fmt.Errorf("mcpadapter: storing the pin: %w", err)
	}
	if err := m.reg.Update(ch); err != nil {
		return err
	}
	c.mu.Lock()
	c.tools[q.RemoteName] = imp
	delete(c.held, q.RemoteName)
	c.mu.Unlock()
	return nil
}

func quarantineError(imp *imported, q *Quarantine) error {
	return &adapter.Error{
		Kind:    adapter.KindGuardrailBlocked,
		Guard:   QuarantineGuard,
		Message: fmt.Sprintf("tool %q is quarantined: server %q changed its definition after it was approved; calls are refused until the change is accepted", imp.spec.Name, q.Server),
		Err:     ErrQuarantined,
	}
}

// shortHash is a hash as error messages show it: its first 12 hex digits,
// enough to tell two apart, bounded whatever the caller passed.
func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if h == "" {
		return "none"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return strconv.Quote(h)
}

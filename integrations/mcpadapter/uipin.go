package mcpadapter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/uipin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/pin"
)

// An MCP App's ui:// resource is pinned like a tool: what a host applies
// to the app (its Content Security Policy, permissions, sandbox domain and
// border, all in _meta.ui, and the mimeType that makes it an app) is the
// security boundary of code the host runs, so a server cannot widen it
// unseen. The HTML body is not pinned: apps ship new code with every
// build, and the code runs inside the envelope whatever it is. The whole
// _meta is pinned, not only _meta.ui, because hosts read other keys too
// (openai/widgetCSP, openai/widgetDomain); a server that writes a value
// changing on every read there gets each change quarantined.
//
// Only the ui:// URIs that are part of the server's definition are
// pinned: those it lists (resources/list) and those a served tool names in
// _meta.ui.resourceUri (the tool's pin covers the name). A caller can mint
// URIs of a template without end, so a template's URI that neither names
// is never pinned, kept for review or reported: it is served as is when
// the server's new items are imported unreviewed, and refused when they
// wait for review ([ManagerOptions.QuarantineNew]), as nothing reviewed
// vouches for its envelope.

// ResourceEnvelope is the pinned part of an MCP App's ui:// resource: the
// mimeType and _meta of its resources/list entry and of each content a
// read returns, never the body (text or blob).
type ResourceEnvelope struct {
	URI string `json:"uri"`
	// Listed is the resources/list entry's envelope; nil when the server
	// does not list the URI (a template's, which a served tool names).
	Listed *EnvelopePart `json:"listed,omitempty"`
	// Contents are the read's contents' envelopes, in the server's order.
	Contents []EnvelopePart `json:"contents"`
}

// EnvelopePart is the envelope of one listing entry or read content.
type EnvelopePart struct {
	URI      string   `json:"uri,omitempty"`
	MIMEType string   `json:"mimeType,omitempty"`
	Meta     mcp.Meta `json:"_meta,omitempty"`
}

// Hash returns the pin of the envelope: a SHA-256 over its canonical JSON
// (object keys sorted), as [DefinitionHash] is a tool's.
func (e *ResourceEnvelope) Hash() string {
	b, err := json.Marshal(e)
	if err != nil {
		b = fmt.Appendf(nil, "%#v", e) // unreachable for decoded envelopes
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// envelopeOf returns the envelope of a read of uri, listed being its
// listing entry (or nil).
func envelopeOf(uri string, listed *mcp.Resource, out *mcp.ReadResourceResult) *ResourceEnvelope {
	e := &ResourceEnvelope{URI: uri, Contents: []EnvelopePart{}}
	if listed != nil {
		e.Listed = &EnvelopePart{MIMEType: listed.MIMEType, Meta: listed.Meta}
	}
	if out == nil {
		return e
	}
	for _, rc := range out.Contents {
		if rc != nil {
			e.Contents = append(e.Contents, EnvelopePart{URI: rc.URI, MIMEType: rc.MIMEType, Meta: rc.Meta})
		}
	}
	return e
}

// checkUIPin refuses a read of a ui:// resource whose envelope is not the
// pinned one, pinning it on first use (under the rules of the server's
// new tools: [ManagerOptions.QuarantineNew]). A URI the server neither
// lists nor names in a served tool is not pinned: see the top of this
// file. Other resources pass.
func (c *conn) checkUIPin(ctx context.Context, uri string, out *mcp.ReadResourceResult) error {
	if !uipin.IsUI(uri) {
		return nil
	}
	res, _, err := c.upstreamResources(ctx, false)
	if err != nil {
		return err // fail closed: the listing's envelope is part of the pin
	}
	var listed *mcp.Resource
	for _, r := range res {
		if r.URI == uri {
			listed = r
			break
		}
	}
	server := c.cfg.Name
	named := c.namesUI(uri)
	if listed == nil && !named {
		if !c.quarantinesNew() {
			return nil
		}
		return &adapter.Error{Kind: adapter.KindGuardrailBlocked, Guard: QuarantineGuard,
			Message: fmt.Sprintf("resource %q is refused: server %q neither lists it nor names it in a tool's _meta.ui.resourceUri, and its new resources wait for review", clip(uri), server),
			Err:     ErrQuarantined}
	}
	env := envelopeOf(uri, listed, out)
	got := env.Hash()
	pinned, ok := c.m.pin(server, uri)
	u := &c.up.ui
	if !ok {
		isNew, full := u.Unpinned(uri, named)
		if isNew && c.quarantinesNew() {
			return c.holdUI(&Quarantine{Server: server, Tool: uri, RemoteName: uri, Got: got, Resource: env})
		}
		if full {
			return &adapter.Error{Kind: adapter.KindGuardrailBlocked, Guard: QuarantineGuard,
				Message: fmt.Sprintf("server %q has more than %d ui:// resources; the read is refused", server, uipin.MaxPins), Err: ErrQuarantined}
		}
		stored, err := c.m.pins.SetIfAbsent(context.Background(), pin.Key(server, uri), got)
		if err != nil {
			c.m.logger.Error("mcpadapter: storing a pin failed; resource quarantined", "server", server, "uri", uri, "error", err)
			stored = "unavailable"
		}
		u.Mine(uri)
		pinned = stored
	}
	if pinned == got {
		u.Clear(uri) // the server is back to the pinned envelope
		return nil
	}
	return c.holdUI(&Quarantine{Server: server, Tool: uri, RemoteName: uri, Pinned: pinned, Got: got, Resource: env})
}

// holdUI keeps q for review (reporting it when it is new) and returns the
// error of the refused read.
func (c *conn) holdUI(q *Quarantine) error {
	if c.up.ui.Hold(q.Tool, q, func(old *Quarantine) bool { return old.Got == q.Got }) {
		c.m.logger.Warn("mcpadapter: ui:// resource quarantined: its envelope changed", "server", q.Server, "uri", q.Tool, "pinned", shortHash(q.Pinned), "got", shortHash(q.Got))
		if f := c.m.opts.OnQuarantine; f != nil {
			f(*q)
		}
	}
	why := "changed its envelope (mimeType, _meta) after it was approved"
	if q.Pinned == "" {
		why = "added it after its first listing"
	}
	return &adapter.Error{
		Kind:    adapter.KindGuardrailBlocked,
		Guard:   QuarantineGuard,
		Message: fmt.Sprintf("resource %q is quarantined: server %q %s; reads are refused until the change is accepted", clip(q.Tool), q.Server, why),
		Err:     ErrQuarantined,
	}
}

// uiQuarantined returns c's quarantined ui:// resources, dropping those
// whose pin now matches (accepted through a shared [PinStore]).
func (c *conn) uiQuarantined() []Quarantine {
	var out []Quarantine
	for _, q := range c.up.ui.Held() {
		if pin, ok := c.m.pin(q.Server, q.Tool); ok && pin == q.Got {
			c.up.ui.Drop(q.Tool, q)
			continue
		}
		out = append(out, *q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

// acceptUI accepts the reviewed envelope (hash) of a quarantined ui://
// resource; found is false when uri is not one.
func (c *conn) acceptUI(uri, hash string) (found bool, err error) {
	q := c.up.ui.Get(uri)
	if q == nil {
		return false, nil
	}
	if hash == "" || q.Got != hash {
		return true, &ImportError{Server: q.Server, Tool: uri, Err: fmt.Errorf("%w (reviewed %s, now %s)", pin.ErrDefinitionChanged, shortHash(hash), shortHash(q.Got))}
	}
	if err := c.m.pins.Set(context.Background(), pin.Key(q.Server, uri), hash); err != nil {
		return true, fmt.Errorf("mcpadapter: storing the pin: %w", err)
	}
	c.up.ui.Accepted(uri, q, q.Pinned == "")
	return true, nil
}

// namesUI reports whether a tool c serves names uri as its app
// (_meta.ui.resourceUri of the definition in force).
func (c *conn) namesUI(uri string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, imp := range c.tools {
		if imp.tool == nil {
			continue
		}
		if ui, ok := imp.tool.Meta[adapter.MetaKeyUI].(map[string]any); ok && ui["resourceUri"] == uri {
			return true
		}
	}
	return false
}

// clip bounds a URI quoted in a message to a model.
func clip(uri string) string { return truncate(uri, 256) }

// Package toolspec turns an imported MCP tool definition into the
// adapter.Spec a Manager registers: its name in the registry, its decoded
// schemas, and the annotations the server's trust lets it keep.
//
//	spec, def, err := toolspec.New(tool, wire, toolspec.LocalName(server, tool.Name, false), cfg, handler)
//
// It is internal to the module.
package toolspec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/defhash"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/schema"
	mcpwire "github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"
	"github.com/agentadapter/agentadapter/runsync"
)

// Config is what New takes of the server a tool comes from.
type Config struct {
	Server string
	// Trust keeps the server's annotations as the spec's policy.
	Trust         bool
	Targets, Tags []string
	// CallTimeout, when positive, is the spec's Timeout.
	CallTimeout time.Duration
	// Strict compiles the schemas now rather than on the first call.
	Strict bool
	// Credential is the spec's Source.Credential.
	Credential string
}

// New converts a remote tool into a spec named local, its schemas decoded
// from the encoded wire schemas, calls going to handler; def is the
// definition to keep, sharing the spec's schemas.
func New(t *mcp.Tool, wire defhash.Schemas, local string, cfg Config, handler adapter.Handler) (spec *adapter.Spec, def *mcp.Tool, err error) {
	in, err := schema.From(t.InputSchema, wire.In)
	if err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if in == nil {
		in = &jsonschema.Schema{Type: "object"}
	}
	out, err := schema.From(t.OutputSchema, wire.Out)
	if err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	// The definition kept (for Quarantine.Previous) shares the spec's
	// schemas rather than keeping the wire ones as well.
	d := *t
	d.InputSchema, d.OutputSchema = in, nil
	if out != nil {
		d.OutputSchema = out
	}
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	hints := mcpwire.ToolAnnotationsFromMCP(t.Annotations)
	policy := adapter.Annotations{} // the most cautious: destructive, open-world
	if cfg.Trust {
		policy = hints
	}
	spec = &adapter.Spec{
		Name:         local,
		Title:        title,
		Description:  t.Description,
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  policy,
		Targets:      slices.Clone(cfg.Targets),
		Tags:         slices.Clone(cfg.Tags),
		Source:       adapter.Source{Server: cfg.Server, RemoteName: t.Name, Trusted: cfg.Trust, Hints: hints, Credential: cfg.Credential},
		Meta:         t.Meta,
		// The forwarding handler waits on the go-sdk client, which stops
		// when ctx ends: the executor need not be able to abandon it.
		HonorsContext: true,
	}
	if cfg.CallTimeout > 0 {
		spec.Timeout = cfg.CallTimeout
	}
	// The call runs deep (go-sdk's client, its encoder, our transports),
	// often below a goroutine started for the request (an export's): on a
	// runsync worker it finds a stack already grown.
	spec.Handler = func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
		return runsync.OnWorker(ctx, func(ctx context.Context) (*adapter.Result, error) { return handler(ctx, args) })
	}
	// Compiling the schemas is most of an import's cost and most imported
	// tools are never called: they compile on first call, unless Strict
	// asks for every failure up front.
	check := spec.Check
	if cfg.Strict {
		check = spec.Compile
	}
	if err := check(); err != nil {
		return nil, nil, err
	}
	return spec, &d, nil
}

// LocalName returns the registry name of a remote tool: its own name (or
// "<server>_<name>" with prefix), with characters outside [A-Za-z0-9_-]
// replaced by '_', cut to 64 characters with a hash suffix when longer.
func LocalName(server, remote string, prefix bool) string {
	n := remote
	if prefix {
		n = server + "_" + remote
	}
	b := []byte(n)
	for i, ch := range b {
		if !('a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || ch == '_' || ch == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		b = []byte("_")
	}
	if len(b) <= adapter.MaxNameLen {
		return string(b)
	}
	sum := sha256.Sum256([]byte(n))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return string(b[:adapter.MaxNameLen-len(suffix)]) + suffix
}

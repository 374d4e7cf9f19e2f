package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/registry"

	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/cmd/agentadapter/internal/config"
)

// Header hygiene at each hop. Toward an upstream the gateway sends only
// what its own client makes: go-sdk's transport sets Mcp-Protocol-Version,
// the upstream's Mcp-Session-Id, Mcp-Method and Mcp-Name from the body it
// sends (the upstream's own tool name, whatever prefix or rename the
// gateway applies) and Mcp-Param-* from the upstream's own schema and that
// body; the manager's transport adds the server's configured headers. No
// inbound header is copied: a call reaches an upstream as a tool name and
// arguments, its verified identity stays in the gateway. TestServeHeaderHygiene
// records what an HTTP upstream receives.
//
// What a tool's schema mirrors into Mcp-Param-* headers (SEP-2243
// x-mcp-header: a tenant, a region, an account) is meant for the HTTP
// layer's routing and is masked where the gateway keeps text: the ledger
// (paramLedger) and the logs (config.MaskText).

// headerKeyword marks an input-schema property that a 2026-07-28 client
// mirrors into an Mcp-Param-<name> header.
const headerKeyword = "x-mcp-header"

// headerPaths lists the property paths of s that carry x-mcp-header, as
// go-sdk finds them (nested properties).
func headerPaths(s *jsonschema.Schema) [][]string {
	var out [][]string
	var walk func(s *jsonschema.Schema, prefix []string, depth int)
	walk = func(s *jsonschema.Schema, prefix []string, depth int) {
		if s == nil || depth > 32 {
			return
		}
		for name, p := range s.Properties {
			if p == nil {
				continue
			}
			path := append(append([]string(nil), prefix...), name)
			if _, ok := p.Extra[headerKeyword]; ok {
				out = append(out, path)
			}
			walk(p, path, depth+1)
		}
	}
	walk(s, nil, 0)
	return out
}

// paramLedger masks, in each record, the arguments its tool mirrors into
// Mcp-Param-* headers, and their values wherever the record's message
// quotes them, then hands the record on. The executor has masked secrets
// by key name already; ArgsHash still names the arguments that ran.
type paramLedger struct {
	next ledger.Ledger
	reg  *registry.Registry
}

// Durable passes on the store's [ledger.Durable].
func (l *paramLedger) Durable() bool { return isDurable(l.next) }

func (l *paramLedger) Write(ctx context.Context, r *ledger.Record) error {
	if r.Message != "" {
		r.Message = config.MaskParamHeaders(r.Message)
	}
	if len(r.Args) == 0 || r.Tool == "" {
		return l.next.Write(ctx, r)
	}
	spec, ok := l.reg.Lookup(r.Tool)
	if !ok {
		return l.next.Write(ctx, r)
	}
	paths := headerPaths(spec.InputSchema)
	if len(paths) == 0 {
		return l.next.Write(ctx, r)
	}
	var args map[string]any
	d := json.NewDecoder(strings.NewReader(string(r.Args)))
	d.UseNumber()
	if d.Decode(&args) != nil {
		return l.next.Write(ctx, r) // not an object: nothing was mirrored
	}
	var masked []string
	for _, p := range paths {
		if v, ok := maskPath(args, p); ok {
			masked = append(masked, v)
		}
	}
	if len(masked) > 0 {
		if b, err := json.Marshal(args); err == nil {
			r.Args = b
		}
		for _, v := range masked {
			if len(v) >= 3 { // a one-letter value would mask half the message
				r.Message = strings.ReplaceAll(r.Message, v, ledger.Redacted)
			}
		}
	}
	return l.next.Write(ctx, r)
}

// maskPath replaces the value at path in args and returns its text.
func maskPath(args map[string]any, path []string) (string, bool) {
	m := args
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return "", false
		}
		m = next
	}
	k := path[len(path)-1]
	v, ok := m[k]
	if !ok || v == nil || v == ledger.Redacted {
		return "", false
	}
	m[k] = ledger.Redacted
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

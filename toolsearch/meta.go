package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/registry"
)

// The meta-tools' names, the same in every integration and in the
// gateway, so that a model sees one convention everywhere.
const (
	SearchToolsName = "search_tools"
	CallToolName    = "call_tool"
)

// ToolsOptions configure the meta-tools of [Index.Tools]. The zero value
// lets a caller find and call every spec of the registry.
type ToolsOptions struct {
	// Filter is what the caller may find and call: the filter its listings
	// use (kit.Filter's for an integration, the export's for an MCP
	// endpoint). A spec it does not match is never found, and call_tool
	// answers a call of it as of an unknown tool.
	Filter registry.Filter
	// Allowed, if set, narrows Filter per call, with the call's context
	// (the caller's identity: caller.IdentityFrom).
	Allowed func(ctx context.Context, s *adapter.Spec) bool
	// Limit is the number of hits a search_tools call without a limit
	// returns; zero means DefaultLimit.
	Limit int
	// Always names the tools sent beside the meta-tools on every turn: a
	// name, or a path.Match pattern ("fs_*"). Filter and Allowed hold for
	// them as for the rest: a denied one is never returned.
	Always []string
	// Deferred makes Tools return, after the always-loaded tools, every
	// other tool Filter admits, for an integration that sends the model
	// only the tools found so far ([Index.Loaded]): a tool search_tools
	// returned can then be called directly, by its name.
	Deferred bool
}

// always reports whether name is one of o.Always.
func (o *ToolsOptions) always(name string) bool {
	for _, p := range o.Always {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// allowed returns the caller's policy for one call.
func (o *ToolsOptions) allowed(ctx context.Context) func(*adapter.Spec) bool {
	return func(s *adapter.Spec) bool {
		return o.Filter.Match(s) && (o.Allowed == nil || o.Allowed(ctx, s))
	}
}

// Found is one tool in search_tools' result.
type Found struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"inputSchema"`
}

// SearchResult is search_tools' structured result.
type SearchResult struct {
	Tools []Found `json:"tools"`
}

// Tools returns the two meta-tools over ix, call_tool and search_tools,
// for a caller whose policy opts holds (nil: every spec):
//
//   - search_tools {"query": string, "limit": integer} answers with the best
//     matches' names, descriptions and input schemas, as structured content
//     {"tools": [...]} and the same as JSON text;
//   - call_tool {"name": string, "arguments": object} runs the named tool
//     through the executor that runs call_tool, exactly as a direct call of
//     it (adapter.Spec.Forward): its approval, limits, cache and one ledger
//     record under the tool's own name. A tool the policy denies, or one not
//     registered, is an unknown tool (not_found, recorded under that name).
//
// Register them where the caller's tools are listed (in place of the full
// list); they are not indexed themselves. After them come the tools of
// opts.Always that Filter admits, then, with opts.Deferred, the rest that
// Filter admits, each group in the registry's order (by name): the
// definitions are the same from turn to turn (prompt caching). Each of
// those is a copy of the registry's spec that runs, when called, the spec
// registered under its name at the time of the call, if the policy (Allowed
// with the call's context included) still admits it, else answers
// not_found as call_tool does.
func (ix *Index) Tools(opts *ToolsOptions) []*adapter.Spec {
	if opts == nil {
		opts = &ToolsOptions{}
	}
	o := *opts
	f := false
	call := &adapter.Spec{
		Name:        CallToolName,
		Description: "Call a tool found with search_tools, by its name, with its arguments (an object matching the tool's input schema).",
		InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name":      {Type: "string", Description: "the tool's name, as search_tools returned it"},
				"arguments": {Type: "object", Description: "the tool's arguments"},
			},
			Required: []string{"name"},
		},
		Forward: func(ctx context.Context, args json.RawMessage) (*adapter.Request, error) {
			return ix.forward(ctx, &o, args)
		},
		Handler: func(context.Context, json.RawMessage) (*adapter.Result, error) {
			return nil, adapter.NewError(adapter.KindInternal, "call_tool runs through an executor's Forward")
		},
	}
	search := &adapter.Spec{
		Name:        SearchToolsName,
		Title:       "Search tools",
		Description: "Search the available tools by what they do. Returns the best matches' names, descriptions and input schemas; call one with call_tool.",
		InputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"query": {Type: "string", Description: "what the tool should do, in a few words"},
				"limit": {Type: "integer", Description: fmt.Sprintf("how many tools to return (default %d, at most %d)", cmpOr(o.Limit, DefaultLimit), MaxLimit), Minimum: ptr(1.0), Maximum: ptr(float64(MaxLimit))},
			},
			Required: []string{"query"},
		},
		Annotations:   adapter.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: &f},
		HonorsContext: true,
		Handler: func(ctx context.Context, args json.RawMessage) (*adapter.Result, error) {
			return ix.searchTools(ctx, &o, args)
		},
	}
	out := []*adapter.Spec{call, search}
	var rest []*adapter.Spec
	for s := range ix.reg.List(o.Filter) {
		if isMeta(s) {
			continue
		}
		switch {
		case o.always(s.Name):
			out = append(out, ix.direct(&o, s))
		case o.Deferred:
			rest = append(rest, ix.direct(&o, s))
		}
	}
	return append(out, rest...)
}

// direct returns a copy of s that resolves each call against the registry
// and the policy of the call (see Tools).
func (ix *Index) direct(o *ToolsOptions, s *adapter.Spec) *adapter.Spec {
	c := s.Clone()
	name := s.Name
	c.Forward = func(ctx context.Context, args json.RawMessage) (*adapter.Request, error) {
		if s, ok := ix.lookup(name, o.allowed(ctx)); ok {
			return &adapter.Request{Tool: name, Spec: s, Args: args}, nil
		}
		return &adapter.Request{Tool: name}, nil
	}
	return c
}

func (ix *Index) searchTools(ctx context.Context, o *ToolsOptions, args json.RawMessage) (*adapter.Result, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, adapter.NewError(adapter.KindArgsInvalid, "search_tools takes {\"query\": string, \"limit\": integer}")
	}
	hits, err := ix.Search(ctx, in.Query, cmpOr(in.Limit, o.Limit), o.allowed(ctx))
	switch {
	case err == ErrQueryTooLong:
		return nil, adapter.NewError(adapter.KindArgsInvalid, err.Error())
	case err != nil:
		return nil, err
	}
	out := SearchResult{Tools: make([]Found, len(hits))}
	names := make([]string, len(hits))
	for i, h := range hits {
		out.Tools[i] = Found{Name: h.Spec.Name, Description: h.Spec.Description, InputSchema: h.Spec.InputSchema}
		names[i] = h.Spec.Name
	}
	ix.found.add(adapter.RunFromContext(ctx), names)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return &adapter.Result{Content: []adapter.Content{&adapter.TextContent{Text: string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))}}, Structured: out}, nil
}

// forward resolves a call_tool call into the call it names (see Tools).
func (ix *Index) forward(ctx context.Context, o *ToolsOptions, args json.RawMessage) (*adapter.Request, error) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&in); err != nil || in.Name == "" || dec.More() {
		return nil, adapter.NewError(adapter.KindArgsInvalid, "call_tool takes {\"name\": string, \"arguments\": object}")
	}
	if a := bytes.TrimSpace(in.Arguments); len(a) > 0 && a[0] != '{' && !bytes.Equal(a, []byte("null")) {
		return nil, adapter.NewError(adapter.KindArgsInvalid, "call_tool: arguments must be an object")
	}
	s, ok := ix.lookup(in.Name, o.allowed(ctx))
	if !ok {
		return &adapter.Request{Tool: in.Name}, nil // unknown to this caller, as a direct call would be
	}
	return &adapter.Request{Tool: in.Name, Spec: s, Args: in.Arguments}, nil
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

func ptr[T any](v T) *T { return &v }

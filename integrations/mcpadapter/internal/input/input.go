// Package input is the import's handling of an upstream's questions (the
// input requests of an input-required result, SEP-2322): their bounds,
// what a caller declared it can answer, the form they are put to the
// export's MCP caller in, asking a caller before 2026-07-28 by requests
// in its session, and checking an elicitation as go-sdk's client does.
// The conn that relays them (mcpadapter's relay.go) keeps the policy.
//
// It is internal to the module.
package input

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/outbound"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/termprompt"
)

// A call asks at most MaxRounds rounds, each of at most MaxRequests
// requests of MaxRequestBytes in all, with an upstream requestState of at
// most MaxUpstreamState bytes: past any of these the call ends with a
// tool error.
const (
	MaxRounds        = 8
	MaxRequests      = 16
	MaxRequestBytes  = 256 << 10
	MaxUpstreamState = 1536
)

func truncate(s string, n int) string { return outbound.Truncate(s, n) }

// CallerCapsMeta returns meta telling an upstream of 2026-07-28 on s what
// a caller of cc can answer, or meta itself for an older upstream.
func CallerCapsMeta(meta mcp.Meta, s *mcp.ClientSession, cc *mcp.ClientCapabilities) mcp.Meta {
	if r := s.InitializeResult(); r == nil || r.ProtocolVersion < "2026-07-28" {
		return meta
	}
	caps := map[string]any{}
	if cc != nil {
		if cc.Elicitation != nil {
			caps["elicitation"] = cc.Elicitation
		}
		if cc.Sampling != nil {
			caps["sampling"] = cc.Sampling
		}
		if cc.RootsV2 != nil {
			caps["roots"] = cc.RootsV2
		}
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeyClientCapabilities] = caps
	return meta
}

// CallerQuestions returns an upstream's questions as they are put to the
// export's MCP caller: as the upstream asked them, but for the context of
// a sampling request (WithoutContext) and the id of a question that has
// the reserved prefix, in any case: relayed as it came, it would pass for
// one of the export's own (an approval, a wait), to the user and to the
// export reading the answers, so it is namespaced
// (bridge.RelayedInputPrefix). An export fronting another, or a gateway,
// relays its approvals so; each hop adds one prefix, and
// bridge.UpstreamAnswers takes it off on the way back.
func CallerQuestions(reqs mcp.InputRequestMap) mcp.InputRequestMap {
	out := make(mcp.InputRequestMap, len(reqs))
	for id, ir := range reqs {
		if bridge.ReservedID(id) {
			id = bridge.RelayedInputPrefix + id
		}
		out[id] = WithoutContext(ir)
	}
	return out
}

// WithoutContext returns ir, or a copy of it asking for includeContext
// "none" when it is a sampling request asking for "thisServer" or
// "allServers" (or any other value). To the caller the export is one
// server, every upstream at once: the context of either would be other
// upstreams' (and, for "allServers", the caller's other servers'), handed
// to the upstream in the completion. Nothing else of the request changes.
func WithoutContext(ir mcp.InputRequest) mcp.InputRequest {
	switch p := ir.(type) {
	case *mcp.CreateMessageParams:
		if p != nil && p.IncludeContext != "" && p.IncludeContext != "none" {
			cp := *p
			cp.IncludeContext = "none"
			return &cp
		}
	case *mcp.CreateMessageWithToolsParams:
		if p != nil && p.IncludeContext != "" && p.IncludeContext != "none" {
			cp := *p
			cp.IncludeContext = "none"
			return &cp
		}
	}
	return ir
}

// Check bounds a round of questions: it returns what the server did past
// the bounds (to follow `MCP server "name"`), or "".
func Check(reqs mcp.InputRequestMap, state string, round int) string {
	switch {
	case round > MaxRounds:
		return fmt.Sprintf("asked for input more than %d times in one call", MaxRounds)
	case len(reqs) == 0:
		return "is busy (it asked for input without saying what); try again later"
	case len(reqs) > MaxRequests:
		return fmt.Sprintf("asked %d questions at once, more than %d", len(reqs), MaxRequests)
	case len(state) > MaxUpstreamState:
		return fmt.Sprintf("sent a requestState of %d bytes, more than %d", len(state), MaxUpstreamState)
	}
	n := 0
	for id, ir := range reqs {
		b, err := json.Marshal(ir)
		if err != nil {
			return "asked for input that cannot be encoded"
		}
		if n += len(id) + len(b); n > MaxRequestBytes {
			return fmt.Sprintf("asked for input of more than %d bytes", MaxRequestBytes)
		}
	}
	return ""
}

// Unanswerable returns what the server did when it asked a client of caps
// a question it did not declare it can answer (to follow `MCP server
// "name"`), or "".
func Unanswerable(caps *mcp.ClientCapabilities, reqs mcp.InputRequestMap) string {
	for id, ir := range reqs {
		if !CanAnswer(caps, ir) {
			return fmt.Sprintf("asked the client for %s (%q), which the client did not declare it can answer", Kind(ir), truncate(id, 64))
		}
	}
	return ""
}

// MultiRound reports whether the caller's session takes input-required
// results, as go-sdk decides it (no initialize: the latest version).
func MultiRound(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= "2026-07-28"
}

// Kind names the kind of a question: elicitation, sampling, roots.
func Kind(ir mcp.InputRequest) string {
	switch ir.(type) {
	case *mcp.ElicitParams:
		return "elicitation"
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return "sampling"
	case *mcp.ListRootsParams:
		return "roots"
	}
	return fmt.Sprintf("%T", ir)
}

// CanAnswer reports whether a client of caps declared it can answer ir.
func CanAnswer(caps *mcp.ClientCapabilities, ir mcp.InputRequest) bool {
	if caps == nil {
		return false
	}
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		e := caps.Elicitation
		if e == nil || p == nil {
			return false
		}
		if p.Mode == "url" || (p.Mode == "" && p.URL != "") {
			return e.URL != nil
		}
		return e.Form != nil || e.URL == nil // {} means form
	case *mcp.CreateMessageWithToolsParams:
		return caps.Sampling != nil && (p == nil || len(p.Tools) == 0 || caps.Sampling.Tools != nil)
	case *mcp.CreateMessageParams:
		return caps.Sampling != nil
	case *mcp.ListRootsParams:
		return caps.RootsV2 != nil
	}
	return false
}

// AskSession puts questions to a caller before 2026-07-28 by requests in
// its session, one at a time.
func AskSession(ctx context.Context, ss *mcp.ServerSession, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	out := make(mcp.InputResponseMap, len(reqs))
	for id, ir := range reqs {
		var resp mcp.InputResponse
		var err error
		switch p := ir.(type) {
		case *mcp.ElicitParams:
			resp, err = ss.Elicit(ctx, p)
		case *mcp.CreateMessageWithToolsParams:
			resp, err = ss.CreateMessageWithTools(ctx, p)
		case *mcp.CreateMessageParams:
			resp, err = ss.CreateMessage(ctx, p)
		case *mcp.ListRootsParams:
			resp, err = ss.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("unknown input request %T", ir)
		}
		if err != nil {
			return nil, Failure(ctx, id, err)
		}
		out[id] = resp
	}
	return out, nil
}

// Failure is the error of a question id the client could not answer.
func Failure(ctx context.Context, id string, err error) error {
	if ctx.Err() != nil {
		return &adapter.Error{Kind: adapter.KindTimeout, Message: "the client did not answer the MCP server's question in time", Err: err}
	}
	return &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("the client could not answer the MCP server's question %q", truncate(id, 64)), Err: err}
}

// CheckElicit checks an elicitation as go-sdk's client does before asking,
// and returns its form schema, if any.
func CheckElicit(p *mcp.ElicitParams) (*jsonschema.Schema, error) {
	switch p.Mode {
	case "", "form":
		if p.URL != "" {
			return nil, fmt.Errorf("a form with a URL")
		}
		if p.RequestedSchema == nil {
			return nil, nil
		}
		s, err := termprompt.FormSchema(p.RequestedSchema)
		if err != nil {
			return nil, err
		}
		if s.Type != "" && s.Type != "object" {
			return nil, fmt.Errorf("a form schema of type %q", truncate(s.Type, 20))
		}
		return s, nil
	case "url":
		if p.URL == "" || p.RequestedSchema != nil {
			return nil, fmt.Errorf("a URL elicitation without a URL, or with a schema")
		}
		return nil, nil
	}
	return nil, fmt.Errorf("mode %q", truncate(p.Mode, 20))
}

// CheckAnswer checks an accepted answer res to an elicitation of schema
// (CheckElicit's) against it and completes it with its defaults, as
// go-sdk's client does.
func CheckAnswer(schema *jsonschema.Schema, res *mcp.ElicitResult) error {
	if res.Action != "accept" || schema == nil || res.Content == nil {
		return nil
	}
	resolved, err := schema.Resolve(nil)
	if err == nil {
		err = resolved.Validate(res.Content)
	}
	if err == nil {
		err = resolved.ApplyDefaults(&res.Content)
	}
	if err != nil {
		return &adapter.Error{Kind: adapter.KindToolError, Message: "the answer does not match the MCP server's requested schema: " + truncate(err.Error(), 300), Err: err}
	}
	return nil
}

// PlainSampling returns p as the CreateMessageParams a Sampler takes:
// false when it asks for tools or a message has several blocks.
func PlainSampling(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageParams, bool) {
	if p == nil || len(p.Tools) > 0 {
		return nil, false
	}
	cp := &mcp.CreateMessageParams{Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens, Metadata: p.Metadata,
		ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences, SystemPrompt: p.SystemPrompt, Temperature: p.Temperature}
	for _, m := range p.Messages {
		if m == nil || len(m.Content) != 1 {
			return nil, false
		}
		cp.Messages = append(cp.Messages, &mcp.SamplingMessage{Role: m.Role, Content: m.Content[0]})
	}
	return cp, true
}

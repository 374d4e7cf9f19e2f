package export

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// MetaKeyError is the _meta key of an isError result made from an
// [*adapter.Error]: {"kind": "...", "ticket": "..."}, for programs; the model
// reads the text content.
const MetaKeyError = "agentadapter/error"

// handler returns the MCP handler of the named tool. It looks the spec up
// at call time, so a replaced spec takes effect at once.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		spec, ok := s.reg.Lookup(name)
		if !ok || !s.filter.Match(spec) {
			// Removed between the client's listing and this call.
			return s.unknown(ctx, req), nil
		}
		ctx = callContext(ctx, req)
		ctx = s.sessionScope(ctx, req.Session)
		areq := &adapter.Request{Spec: spec, Tool: name, Args: req.Params.Arguments, Integration: Integration, Native: withoutCredentials(req), Timeout: s.opts.Timeout}
		answered := false
		if len(req.Params.InputResponses) > 0 || req.Params.RequestState != "" {
			var err error
			if ctx, err = s.applyAnswers(ctx, name, req, areq); err != nil {
				if r := errorResult(err); r != nil {
					return r, nil // the user stopped waiting for a decision
				}
				return nil, err
			}
			answered = areq.Ticket != ""
		}
		res, err := s.exec.Do(ctx, areq)
		if err != nil {
			if ir := (*InputRequired)(nil); errors.As(err, &ir) {
				return s.askInput(ctx, req, name, ir)
			}
			if adapter.KindOf(err) == adapter.KindApprovalPending {
				return s.held(ctx, req, name, areq.Args, answered, err)
			}
			return errorResultOrProtocol(err)
		}
		return resultToMCP(res, !spec.Source.IsLocal())
	}
}

// scope is what the calls of one client session share.
type scope struct {
	id   string
	run  *adapter.Run
	anon *adapter.Identity // the caller, when the session proved none
}

// AnonymousPrefix prefixes the subject of an anonymous caller: without
// authentication each session is its own caller, "anonymous:" and the
// session id (see [adapter.Identity.Anonymous]).
const AnonymousPrefix = "anonymous:"

// sessionScope puts the calls of one client session in one run (the
// executor's limits count per session) under one session id (approvals
// under adapter.ScopeSession bind to it). A session that proved no
// identity is its own anonymous caller, so that what counts per subject
// (ticket caps, tickets under the default scope, the cache, rate limits)
// tells anonymous clients apart: one cannot fill another's cap, use its
// approval or read its cached results. The scope is forgotten when the
// session ends; a request served statelessly (over HTTP, no session id)
// ends its session, so its scope is kept nowhere.
func (s *Server) sessionScope(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	v, ok := s.sessions.Load(ss)
	if !ok {
		id := ss.ID()
		_, overHTTP := ctx.Value(clientAddrKey{}).(string) // withClientAddr
		stateless := overHTTP && id == ""
		if id == "" {
			id = newSessionID()
		}
		v = &scope{id: id, run: adapter.NewRun(&adapter.RunOptions{ID: "mcp_" + id}), anon: &adapter.Identity{Subject: AnonymousPrefix + id, Anonymous: true}}
		if !stateless {
			var loaded bool
			if v, loaded = s.sessions.LoadOrStore(ss, v); !loaded {
				go func() {
					_ = ss.Wait()
					s.sessions.Delete(ss)
				}()
			}
		}
	}
	sc := v.(*scope)
	ctx = adapter.WithSession(ctx, sc.id)
	if adapter.IdentityFromContext(ctx) == nil {
		ctx = adapter.WithIdentity(ctx, sc.anon)
	}
	if adapter.RunFromContext(ctx) == nil {
		ctx = adapter.ContextWithRun(ctx, sc.run)
	}
	return ctx
}

// newSessionID names a session go-sdk gave no id (a 2026-07-28 request,
// stdio): the time, then 8 random bytes, so that the ledger's run and
// subject indexes take one-call sessions in order (BenchmarkLedgerIDs:
// 28–37 % less ledger CPU per record than random ids).
func newSessionID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixNano()))
	_, _ = rand.Read(b[8:])
	return hex.EncodeToString(b[:])
}

// callContext carries what the executor and handlers must see of the MCP
// request: the verified caller, a progress sink and the client's trace
// context (see withRemoteTrace). The bearer token itself
// goes nowhere: it is not in the context, so an imported tool's handler
// cannot forward it upstream.
func callContext(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		ti := req.Extra.TokenInfo
		ctx = adapter.WithIdentity(ctx, &adapter.Identity{Subject: ti.UserID, Scopes: ti.Scopes, Extra: ti.Extra})
	}
	ctx = wire.WithRemoteTrace(ctx, req.Params.Meta)
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		ss := req.Session
		ctx = adapter.WithProgress(ctx, func(p adapter.Progress) {
			// Progress is advisory: a failed notification must not fail the call.
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message})
		})
	}
	return ctx
}

// withoutCredentials returns req, or a copy of it whose HTTP header lacks
// the credential headers and the others no tool, hook or upstream call
// gets to see (see hiddenHeader), so that nothing downstream can forward
// them.
func withoutCredentials(req *mcp.CallToolRequest) *mcp.CallToolRequest {
	if req.Extra == nil || req.Extra.Header == nil {
		return req
	}
	found := false
	for h := range req.Extra.Header {
		found = found || hiddenHeader(h)
	}
	if !found {
		return req
	}
	extra := *req.Extra
	extra.Header = req.Extra.Header.Clone()
	maps.DeleteFunc(extra.Header, func(h string, _ []string) bool { return hiddenHeader(h) })
	c := *req
	c.Extra = &extra
	return &c
}

// MetaKeyServerInfo is the _meta key under which an MCP server may name
// itself in a result. A relayed result does not carry the upstream's: it
// would name the wrong server to our clients.
const MetaKeyServerInfo = "io.modelcontextprotocol/serverInfo"

// resultToMCP encodes a result: its content blocks as they are (MCP carries
// every kind: the client, not us, decides what its model reads), and
// structuredContent for programs. A structured result of ours with no
// content gets one text block, what adapter.Render makes of it (the JSON),
// as MCP recommends for clients that read text only; a relayed result (an
// imported tool's) is sent as the upstream sent it, content: [] included,
// less the upstream's server info.
func resultToMCP(r *adapter.Result, relayed bool) (*mcp.CallToolResult, error) {
	meta := r.Meta
	if _, ok := meta[MetaKeyServerInfo]; ok && relayed {
		meta = maps.Clone(meta)
		delete(meta, MetaKeyServerInfo)
		if len(meta) == 0 {
			meta = nil
		}
	}
	out := &mcp.CallToolResult{Content: wire.ContentToMCP(r.Content), Meta: mcp.Meta(meta)}
	sj, err := r.StructuredJSON()
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal: the structured result does not encode as JSON"}
	}
	if sj != nil {
		out.StructuredContent = sj
		if len(out.Content) == 0 && !relayed {
			out.Content = []mcp.Content{&mcp.TextContent{Text: adapter.Render(r, nil)}}
		}
	}
	if out.Content == nil {
		out.Content = []mcp.Content{}
	}
	return out, nil
}

// errorResultOrProtocol turns an executor error into an isError result
// when it is the model's business, and into a JSON-RPC error otherwise
// (connection and internal faults: the model cannot act on them).
func errorResultOrProtocol(err error) (*mcp.CallToolResult, error) {
	if pe := missingCapability(err); pe != nil {
		return nil, pe
	}
	if r := errorResult(err); r != nil {
		return r, nil
	}
	msg := "internal error"
	if e := exportError(err); e != nil && e.Message != "" {
		msg = e.Message
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %s", adapter.KindOf(err), msg)}
}

// missingCapability returns the MissingRequiredClientCapabilityError
// (-32021) behind err, an upstream's answer to a call that carried our
// caller's capabilities, as a protocol error to send that caller: the
// capability is the caller's to declare, no tool result can ask for it.
// The upstream's message and data are bounded; nil if there is none.
func missingCapability(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities {
		return nil
	}
	out := &jsonrpc.Error{Code: we.Code, Message: we.Message}
	if len(out.Message) > maxRelayedMessage {
		out.Message = strings.ToValidUTF8(out.Message[:maxRelayedMessage], "") + "..."
	}
	if len(we.Data) <= maxRelayedData && json.Valid(we.Data) {
		out.Data = we.Data
	}
	return out
}

// Bounds of an upstream's protocol error relayed to our caller.
const (
	maxRelayedMessage = 512
	maxRelayedData    = 4096
)

func exportError(err error) *adapter.Error {
	var e *adapter.Error
	errors.As(err, &e)
	return e
}

// errorResult returns the isError result of a model-facing error, or nil:
// its text the model payload, but for an imported tool's isError result
// (the tool_error the import made of it), whose content blocks are relayed
// as the upstream sent them.
func errorResult(err error) *mcp.CallToolResult {
	payload, ok := adapter.ModelPayload(err)
	if !ok {
		return nil
	}
	meta := map[string]any{"kind": string(adapter.KindOf(err))}
	content := []mcp.Content{&mcp.TextContent{Text: payload}}
	if e := exportError(err); e != nil {
		if e.Ticket != "" {
			meta["ticket"] = e.Ticket
		}
		if e.Kind == adapter.KindToolError && errors.Is(e.Err, bridge.IsError) {
			if content = wire.ContentToMCP(e.Content); content == nil {
				content = []mcp.Content{}
			}
		}
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: content,
		Meta:    mcp.Meta{MetaKeyError: meta},
	}
}

package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/callers"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/progress"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/signin"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskclient"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/oauth"
)

var progressSeq atomic.Uint64

// call forwards one call to the server under a deadline, maps the outcome
// to a result or an *adapter.Error, and retries once on a lost connection
// when the tool is read-only or idempotent.
func (c *conn) call(ctx context.Context, imp *imported, args json.RawMessage) (*adapter.Result, error) {
	if q := imp.quarantine.Load(); q != nil {
		next, ok := c.m.acceptedElsewhere(c, q)
		if !ok {
			return nil, quarantineError(imp, q)
		}
		imp = next
	}
	timeout := c.m.callTimeout(&c.cfg)
	if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > timeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	params := &mcp.CallToolParams{Name: imp.remote, Arguments: args}
	if len(args) == 0 {
		params.Arguments = json.RawMessage("{}")
	}
	c.setMeta(ctx, params)
	asTask := false
	if support, wrapped := c.tasks.Get(imp.remote); support == "required" {
		if !wrapped {
			return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("tool %q of MCP server %q runs only as a task, which cannot be sent over this transport", imp.remote, c.cfg.Name)}
		}
		taskclient.Mark(ctx, params, DefaultTaskTTL)
		asTask = true
	}
	var sink *progress.Sink // nil when nobody listens
	if adapter.WantsProgress(ctx) {
		token := "aa-" + strconv.FormatUint(progressSeq.Add(1), 36)
		params.SetProgressToken(token)
		sink = progress.New(ctx)
		c.progress.Store(token, sink)
		defer func() {
			c.progress.Delete(token)
			sink.Close()
		}()
	}

	// A lost call is sent again only when the tool's (trusted) annotations
	// say it is safe; a call that never left is sent again whatever the tool.
	retry := imp.spec.Annotations.ReadOnly || imp.spec.Annotations.Idempotent
	resent := false
	round := 0 // rounds of questions asked, see relay.go
	if st, answers := c.resumeRelay(ctx, imp); st != nil {
		round = st.Round
		params.InputResponses, params.RequestState = answers, st.Up
	}
	for unsent := 0; ; {
		w := &transport.Watch{}
		s, err := c.callSession(ctx)
		if ir := (*InputRequired)(nil); err != nil && !errors.As(err, &ir) { // (ir: a 2026-07-28 caller asked to sign in)
			return nil, c.failure(ctx, imp, err)
		} else if err != nil {
			return nil, err
		}
		callerCapabilities(ctx, s, params)
		var res *mcp.CallToolResult
		if asTask {
			res, err = taskclient.Create(ctx, s, params, func(ctx context.Context) context.Context { return transport.WithWatch(ctx, w) }, DefaultCallTimeout)
		} else {
			res, err = s.CallTool(transport.WithWatch(ctx, w), params)
		}
		if err == nil {
			if t, ok := taskclient.Of(res); ok {
				if t.TaskID != "" {
					// Through an export waiting for the upstream's task, the
					// export's task is minted now (task_mint.go).
					tctx, err := mintTask(ctx)
					if err != nil {
						_ = c.taskFailure(context.WithoutCancel(ctx), s, imp, t.TaskID, nil)
						return nil, err
					}
					ctx = tctx
				}
				return c.awaitTask(ctx, s, imp, t)
			}
			if res.NeedsInput() {
				round++
				if params, err = c.answerInput(ctx, s, imp, params, res, round); err != nil {
					return nil, err
				}
				continue
			}
			c.settleProgress(ctx, sink, imp.remote) // the reports the result may have overtaken
			return c.result(imp, res)
		}
		if w.TooLarge.Load() || c.frameTooLarge.Swap(false) {
			c.lost(s, err) // the go-sdk drops a connection whose message it could not read
			return nil, c.tooLarge()
		}
		if ctx.Err() != nil {
			return nil, c.failure(ctx, imp, err)
		}
		switch transport.Classify(err, w) {
		case transport.NotSent:
			c.lost(s, err)
			if unsent++; unsent <= maxUnsentRetries {
				continue
			}
		case transport.Lost:
			c.lost(s, err)
			if retry && !resent {
				resent = true
				continue
			}
			return nil, &adapter.Error{Kind: adapter.KindConnection,
				Message: fmt.Sprintf("the connection to MCP server %q was lost during the call; it may or may not have run", c.cfg.Name), Err: err}
		}
		return nil, c.failure(ctx, imp, err)
	}
}

// maxUnsentRetries bounds how many times a call that never reached the
// server is sent again on a new session.
const maxUnsentRetries = 2

func (c *conn) tooLarge() error {
	return &adapter.Error{Kind: adapter.KindToolError,
		Message: fmt.Sprintf("the MCP server's result is larger than the %d-byte limit", c.maxResultBytes())}
}

// failure maps a call's error to an *adapter.Error.
func (c *conn) failure(ctx context.Context, imp *imported, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return &adapter.Error{Kind: adapter.KindTimeout, Message: "the MCP server did not answer in time", Err: fmt.Errorf("%w (%v)", ctxErr, err)}
		}
		return ctxErr
	}
	if se := (*oauth.SignInError)(nil); errors.As(err, &se) { // OAuth.PerCaller
		return &adapter.Error{Kind: adapter.KindToolError, Message: se.Error(), Err: err}
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != transport.CodeRejected {
		msg := fmt.Sprintf("the MCP server refused the call: %s", we.Message)
		if we.Code == jsonrpc.CodeMethodNotFound || (we.Code == jsonrpc.CodeInvalidParams && unknownTool(we.Message)) {
			return &adapter.Error{Kind: adapter.KindNotFound, Message: fmt.Sprintf("server %q has no tool %q", c.cfg.Name, imp.remote), Err: err}
		}
		return &adapter.Error{Kind: adapter.KindToolError, Message: msg, Err: err}
	}
	return &adapter.Error{Kind: adapter.KindConnection, Message: fmt.Sprintf("MCP server %q is unreachable", c.cfg.Name), Err: err}
}

func unknownTool(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "unknown tool") || strings.Contains(m, "not found")
}

// errIsError is the cause of the tool error result makes of an isError
// result: the export relays that error's content as is (errorResult).
var errIsError = bridge.IsError

// result converts a CallToolResult, mapping isError to a tool error that
// carries the server's content.
func (c *conn) result(imp *imported, res *mcp.CallToolResult) (*adapter.Result, error) {
	if limit := c.maxResultBytes(); limit > 0 {
		if n := transport.ResultBytes(res, limit); n > limit {
			return nil, c.tooLarge()
		}
	}
	return wire.ResultFromMCP(res, errIsError)
}

func (c *conn) maxResultBytes() int {
	switch n := c.m.opts.MaxResultBytes; {
	case n < 0:
		return 0
	case n == 0:
		return DefaultMaxResultBytes
	default:
		return n
	}
}

// setMeta adds the resolver's _meta and the W3C trace context of the span
// on ctx.
func (c *conn) setMeta(ctx context.Context, p *mcp.CallToolParams) {
	var extra map[string]any
	if f := c.m.opts.Meta; f != nil {
		extra = f(ctx, c.cfg.Name, p.Name)
	}
	// A 2026-07-28 server logs during a request only at the level its
	// _meta asks (it has no session level): ask what our sessions asked
	// with logging/setLevel; each session filters the relay by its own.
	c.up.mu.Lock()
	level := c.up.level
	c.up.mu.Unlock()
	if meta := wire.CallMeta(ctx, extra, !c.m.opts.NoTraceContext, level); meta != nil {
		p.Meta = meta
	}
}

// onProgress relays a server's progress notification to the listener of
// the call that asked for it, while that call runs.
func (c *conn) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := c.progress.Load(tok)
	if !ok {
		return
	}
	v.(*progress.Sink).Report(adapter.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
}

// callSession returns the session a tool call goes on: the conn's own, or
// for an OAuth.PerCaller server the caller's (internal/callers); a caller
// without a token, or unverified, gets the model-facing sign-in error.
func (c *conn) callSession(ctx context.Context) (*mcp.ClientSession, error) {
	if c.cfg.OAuth == nil || !c.cfg.OAuth.PerCaller {
		return c.ensure(ctx)
	}
	sub := callers.Subject(ctx)
	h, err := c.setupOAuth()
	if base := h; err == nil {
		if h, err = h.ForCaller(ctx, sub); err != nil { // no token: the caller is asked to sign in
			h, err = signin.Ask(ctx, relayCaller(ctx), base, sub, err)
		}
	}
	if err != nil {
		return nil, err // a SignInError: see failure
	}
	return c.callers.Get(ctx, sub, ErrClosed, func(ctx context.Context) (*mcp.ClientSession, error) {
		t, err := c.transport(h)
		if err != nil {
			return nil, err
		}
		// Under the conn's context, ended with the call's, as ensure dials:
		// the call's carries its caller's go-sdk protocol version.
		dctx, cancel := context.WithTimeout(c.bg, c.m.connectTimeout(&c.cfg))
		defer context.AfterFunc(ctx, cancel)()
		defer cancel()
		return c.client.Connect(dctx, wrapTasks(&c.tasks, t, c.m.http), nil)
	})
}

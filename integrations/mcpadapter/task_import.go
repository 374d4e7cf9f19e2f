package mcpadapter

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/bridge"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/input"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskclient"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"
)

// Calling an upstream tool that runs only as a task: see
// internal/taskclient. Over streamable HTTP the HTTP client does its
// rewriting (taskclient.Table.WrapHTTP).

// wrapTasks wraps for t the connections of the transports whose go-sdk
// connection needs no unexported method (stdio, in-memory, io). A
// streamable transport without an HTTP client gets one of shared.
func wrapTasks(t *taskclient.Table, tr mcp.Transport, shared http.RoundTripper) mcp.Transport {
	switch tr := tr.(type) {
	case *transport.Stdio, *mcp.CommandTransport, *mcp.InMemoryTransport, *mcp.IOTransport, *mcp.StdioTransport, *mcp.SSEClientTransport:
		return t.Wrap(tr)
	case *mcp.StreamableClientTransport:
		// Its connection cannot be wrapped: its HTTP client is.
		cp := *tr
		var c http.Client
		if tr.HTTPClient != nil {
			c = *tr.HTTPClient
		}
		if c.Transport == nil {
			c.Transport = shared
		}
		c.Transport = t.WrapHTTP(c.Transport)
		cp.HTTPClient = &c
		return &cp
	}
	t.SetWrapped(false)
	return tr
}

// awaitTask polls an upstream task until it ends and returns its result;
// the caller's ctx ending first cancels it upstream.
func (c *conn) awaitTask(ctx context.Context, s *mcp.ClientSession, imp *imported, t *taskclient.Task) (*adapter.Result, error) {
	a := &taskclient.Await{
		Server:  c.cfg.Name,
		Session: s,
		Result:  func(res *mcp.CallToolResult) (*adapter.Result, error) { return c.result(imp, res) },
		Fail: func(ctx context.Context, id string, err error) error {
			return c.taskFailure(ctx, s, imp, id, err)
		},
		Relay:   c.relayInput,
		NotTask: ErrNotTask,
	}
	return a.Run(ctx, t)
}

// relayInput puts an upstream task's round-th questions to our caller's
// client, when the caller is a task itself (an export fronting this
// manager: its client answers through its tasks/update, one question at
// a time if it likes; the upstream gets them all at once). Under the
// policy that governs the server's elicitations, when the manager takes
// them (ManagerOptions.Elicitation), only elicitations are relayed, each
// round governed; without it every question the caller declared it can
// answer is relayed, as relay.go relays an input-required result. Either
// way within the relay's bounds (checkAsk: rounds, questions, bytes; a
// new set of question ids is a new round). Outside a task: ErrNotTask.
func (c *conn) relayInput(ctx context.Context, q mcp.InputRequestMap, round int) (mcp.InputResponseMap, error) {
	q = input.CallerQuestions(q) // what a caller may be asked; bridge.UpstreamAnswers on the way back
	if c.elicitSpec == nil {
		req := relayCaller(ctx)
		if _, ok := ctx.Value(taskKey{}).(*taskRef); !ok || req == nil {
			return nil, ErrNotTask
		}
		if err := c.checkAsk(q, "", round); err != nil {
			return nil, err
		}
		if w := input.Unanswerable(wire.ClientCaps(req), q); w != "" {
			return nil, c.askError(w)
		}
		answers, err := AskInput(ctx, q)
		return bridge.UpstreamAnswers(answers), err
	}
	if _, ok := ctx.Value(taskKey{}).(*taskRef); !ok {
		return nil, ErrNotTask
	}
	if err := c.checkAsk(q, "", round); err != nil {
		return nil, err // the relay's bounds, on this path too
	}
	var messages []string
	for _, r := range q {
		e, ok := r.(*mcp.ElicitParams)
		if !ok {
			return nil, ErrNotTask
		}
		messages = append(messages, e.Message)
	}
	var answers mcp.InputResponseMap
	summary := map[string]any{"server": c.cfg.Name, "relayed": "task input", "messages": messages}
	err := c.govern(ctx, c.elicitSpec, firstPositive(c.m.opts.ElicitationTimeout, DefaultElicitationTimeout), summary,
		func(ctx context.Context) (*adapter.Result, error) {
			var err error
			answers, err = AskInput(ctx, q)
			if err != nil {
				return nil, err
			}
			return adapter.TextResult("answered"), nil
		})
	return bridge.UpstreamAnswers(answers), err
}

// taskFailure cancels the task upstream when the caller gave up on it,
// and maps err.
func (c *conn) taskFailure(ctx context.Context, s *mcp.ClientSession, imp *imported, id string, err error) error {
	if err == nil || ctx.Err() != nil {
		taskclient.Cancel(ctx, s, id)
	}
	if err == nil {
		return nil
	}
	var ae *adapter.Error
	if errors.As(err, &ae) {
		return ae
	}
	return c.failure(ctx, imp, err)
}

// TaskSupport returns the execution.taskSupport the MCP server of an
// imported spec declared for it: TaskRequired, TaskOptional, or
// TaskForbidden (also for a local spec, or a server that said nothing).
// An [Exporter] fronting the manager serves the manager's task-supporting
// tools as tasks with it:
//
//	Tasks: &mcpadapter.TaskOptions{Support: func(spec *adapter.Spec, _ *mcp.CallToolRequest) mcpadapter.TaskSupport {
//		return m.TaskSupport(spec)
//	}}
func (m *Manager) TaskSupport(spec *adapter.Spec) TaskSupport {
	if spec == nil || spec.Source.IsLocal() {
		return TaskForbidden
	}
	m.mu.Lock()
	c := m.conns[spec.Source.Server]
	m.mu.Unlock()
	if c == nil {
		return TaskForbidden
	}
	switch s, _ := c.tasks.Get(spec.Source.RemoteName); s {
	case string(TaskRequired):
		return TaskRequired
	case string(TaskOptional):
		return TaskOptional
	}
	return TaskForbidden
}

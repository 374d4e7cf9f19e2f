package mcpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// Calling an upstream tool that runs only as a task (execution.taskSupport
// "required", the first draft of the tasks protocol, SEP-1686, as the
// TypeScript SDK 1.x serves it): the call is sent with a task param, the
// answer is a task, polled with tasks/get (at its pollInterval, bounded)
// and collected with tasks/result; it is cancelled with tasks/cancel when
// the caller's ctx ends first. Its status reaches the caller as progress.
//
// go-sdk v1.8.0 knows no tasks: mcp.Tool has no execution field (it drops
// taskSupport from tools/list), mcp.CallToolParams has no task field and
// mcp.CallToolResult keeps no task (its UnmarshalJSON drops unknown
// fields). So the connection is wrapped: it reads each tool's taskSupport
// off tools/list answers, adds the task param to the calls marked for it,
// and moves the task of their answers into _meta, where the call finds
// it. go-sdk's streamable HTTP client connection cannot be wrapped (it
// must implement the unexported clientConnection.sessionUpdated, go-sdk
// mcp/transport.go:102-107, streamable.go:2138): over streamable HTTP the
// same rewriting is done by the HTTP client (task_http.go). A transport
// of another type (Server.Transport, NewTransport) is not wrapped, and a
// task-only tool fails over it with a tool error saying so.

// metaTaskTTL marks an outgoing tools/call to be sent as a task (the
// wrapper replaces it with the task param); metaTask carries the task of
// the answer back.
const (
	metaTaskTTL = "agentadapter/task-ttl"
	metaTask    = "agentadapter/task"
)

// Bounds of the polling of an upstream task.
const (
	minTaskPoll     = 50 * time.Millisecond
	maxTaskPoll     = 5 * time.Second
	defaultTaskPoll = time.Second
)

// taskTable is what a conn knows of its server's task support, kept
// across reconnections.
type taskTable struct {
	mu      sync.Mutex
	support map[string]string // remote tool name → taskSupport
	wrapped bool              // the live session's connection is wrapped
	ext     bool              // the server advertises the tasks extension (SEP-2663)
}

func (t *taskTable) extension() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.wrapped && t.ext
}

func (t *taskTable) get(name string) (support string, wrapped bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.support[name], t.wrapped
}

// wrapTasks wraps the connections of the transports whose go-sdk
// connection needs no unexported method (stdio, in-memory, io).
func (t *taskTable) wrapTasks(tr mcp.Transport) mcp.Transport {
	switch tr := tr.(type) {
	case *stdioTransport, *mcp.CommandTransport, *mcp.InMemoryTransport, *mcp.IOTransport, *mcp.StdioTransport, *mcp.SSEClientTransport:
		return &taskTransport{base: tr, tab: t}
	case *mcp.StreamableClientTransport:
		// Its connection cannot be wrapped: its HTTP client is.
		cp := *tr
		hc := http.DefaultClient
		if tr.HTTPClient != nil {
			hc = tr.HTTPClient
		}
		c := *hc
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		c.Transport = &taskRoundTripper{base: base, tab: t}
		cp.HTTPClient = &c
		t.mu.Lock()
		t.wrapped, t.ext = true, false
		t.mu.Unlock()
		return &cp
	}
	t.mu.Lock()
	t.wrapped = false
	t.mu.Unlock()
	return tr
}

type taskTransport struct {
	base mcp.Transport
	tab  *taskTable
}

func (tt *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tt.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	tt.tab.mu.Lock()
	tt.tab.wrapped, tt.tab.ext = true, false
	tt.tab.mu.Unlock()
	return &taskConn{Connection: c, tab: tt.tab, calls: map[any]*watched{}}, nil
}

// taskConn watches tools/list and task calls on a connection.
type taskConn struct {
	mcp.Connection
	tab   *taskTable
	mu    sync.Mutex
	seq   uint64
	calls map[any]*watched // request id → what to watch its answer for
}

// watched is a request whose answer a taskConn waits for: until it
// arrives or the request's ctx ends (its caller gave up: a server may
// never answer it).
type watched struct {
	what string      // "hello", "list" or "task"
	seq  uint64      // the order of writing, for eviction
	stop func() bool // unregisters the watch's end on the ctx
}

// maxWatched bounds the requests a taskConn waits to see answered; past
// it the oldest is forgotten.
const maxWatched = 1024

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	msg, what := c.tab.outgoing(msg)
	if what == "" {
		return c.Connection.Write(ctx, msg)
	}
	id := msg.(*jsonrpc.Request).ID.Raw()
	c.mu.Lock()
	if len(c.calls) >= maxWatched {
		c.evictOldestLocked()
	}
	c.seq++
	w := &watched{what: what, seq: c.seq}
	w.stop = context.AfterFunc(ctx, func() { c.forget(id, w) }) // f runs in a goroutine of its own
	c.calls[id] = w
	c.mu.Unlock()
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.forget(id, w) // no answer will come
	}
	return err
}

// forget stops watching the request id, if w is still its watch.
func (c *taskConn) forget(id any, w *watched) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[id] == w {
		delete(c.calls, id)
	}
}

func (c *taskConn) evictOldestLocked() {
	var oldest any
	var seq uint64
	for id, w := range c.calls {
		if oldest == nil || w.seq < seq {
			oldest, seq = id, w.seq
		}
	}
	if w := c.calls[oldest]; w != nil {
		w.stop()
	}
	delete(c.calls, oldest)
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || !resp.ID.IsValid() {
		return msg, err
	}
	c.mu.Lock()
	w := c.calls[resp.ID.Raw()]
	delete(c.calls, resp.ID.Raw())
	c.mu.Unlock()
	if w == nil {
		return msg, nil
	}
	w.stop()
	return c.tab.incoming(resp, w.what), nil
}

// outgoing rewrites a message to the server as the tasks need, and says
// what to watch its answer for: "hello", "list", "task" or "".
func (t *taskTable) outgoing(msg jsonrpc.Message) (jsonrpc.Message, string) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return msg, ""
	}
	switch req.Method {
	case "initialize":
		// A wrapped connection can take the extension's answers.
		return withParams(req, declareTasks(req.Params, "capabilities")), "hello"
	case "server/discover":
		return msg, "hello"
	case "tools/list":
		return msg, "list"
	case "tools/call":
		p, marked := asTaskCall(req.Params)
		if !marked {
			p = req.Params
		}
		if t.extension() {
			if d := declareTasks(p, "_meta", "io.modelcontextprotocol/clientCapabilities"); d != nil {
				p = d
			}
		} else if !marked {
			return msg, ""
		}
		return withParams(req, p), "task"
	case methodTasksGet, methodTasksCancel, methodTasksUpdate:
		if t.extension() {
			return withParams(req, declareTasks(req.Params, "_meta", "io.modelcontextprotocol/clientCapabilities")), ""
		}
	}
	return msg, ""
}

// incoming reads or rewrites the answer to a watched request.
func (t *taskTable) incoming(resp *jsonrpc.Response, what string) jsonrpc.Message {
	if resp.Error != nil {
		return resp
	}
	switch what {
	case "hello":
		var r struct {
			Capabilities struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"capabilities"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			_, ext := r.Capabilities.Extensions[TasksExtension]
			t.mu.Lock()
			t.ext = ext
			t.mu.Unlock()
		}
	case "list":
		t.learn(resp.Result)
	case "task":
		if r, ok := taskAnswer(resp.Result); ok {
			cp := *resp
			cp.Result = r
			return &cp
		}
	}
	return resp
}

// learn records the taskSupport of the tools of a tools/list answer.
func (t *taskTable) learn(result json.RawMessage) {
	var l struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &l) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.support == nil {
		t.support = map[string]string{}
	}
	for _, tool := range l.Tools {
		if x := tool.Execution; x != nil && (x.TaskSupport == "required" || x.TaskSupport == "optional") {
			if len(t.support) < maxWatched {
				t.support[tool.Name] = x.TaskSupport
			}
		} else {
			delete(t.support, tool.Name)
		}
	}
}

func withParams(req *jsonrpc.Request, p json.RawMessage) jsonrpc.Message {
	if p == nil {
		return req
	}
	r := *req
	r.Params = p
	return &r
}

// declareTasks adds the tasks extension to the client capabilities at
// path in params (only where the object exists, but for its extensions);
// nil if params cannot be read.
func declareTasks(params json.RawMessage, path ...string) json.RawMessage {
	var root map[string]any
	if json.Unmarshal(params, &root) != nil || root == nil {
		return nil
	}
	obj := root
	for _, k := range path {
		next, ok := obj[k].(map[string]any)
		if !ok {
			return nil
		}
		obj = next
	}
	ext, _ := obj["extensions"].(map[string]any)
	if ext == nil {
		ext = map[string]any{}
		obj["extensions"] = ext
	}
	if _, ok := ext[TasksExtension]; ok {
		return nil
	}
	ext[TasksExtension] = map[string]any{}
	out, err := json.Marshal(root)
	if err != nil {
		return nil
	}
	return out
}

// asTaskCall turns the params of a tools/call marked metaTaskTTL into a
// task-augmented call: the mark goes, a task param comes.
func asTaskCall(params json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(params, []byte(metaTaskTTL)) {
		return nil, false // every other call: no decoding
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil {
		return nil, false
	}
	ttl, ok := meta[metaTaskTTL]
	if !ok {
		return nil, false
	}
	delete(meta, metaTaskTTL)
	if len(meta) == 0 {
		delete(p, "_meta")
	} else {
		p["_meta"], _ = json.Marshal(meta)
	}
	p["task"] = json.RawMessage(`{"ttl":` + string(ttl) + `}`)
	out, err := json.Marshal(p)
	return out, err == nil
}

// taskAnswer moves the task of a CreateTaskResult into _meta[metaTask] of
// an empty tool result: the task object of the first draft ({"task":
// {...}}), or the flat result itself (resultType "task", SEP-2663).
func taskAnswer(result json.RawMessage) (json.RawMessage, bool) {
	var r struct {
		Task       json.RawMessage `json:"task"`
		ResultType string          `json:"resultType"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil, false
	}
	if r.ResultType == resultTypeTask {
		r.Task = result
	}
	if len(r.Task) == 0 || r.Task[0] != '{' {
		return nil, false
	}
	out, err := json.Marshal(map[string]any{"content": []any{}, "_meta": map[string]json.RawMessage{metaTask: r.Task}})
	return out, err == nil
}

// upstreamTask is a task as a server reports it (tasks/get, tasks/cancel,
// the task of a CreateTaskResult).
type upstreamTask struct {
	mcp.ResultBase
	TaskID         string   `json:"taskId"`
	Status         string   `json:"status"`
	StatusMessage  string   `json:"statusMessage,omitempty"`
	PollInterval   *float64 `json:"pollInterval,omitempty"`
	PollIntervalMs *float64 `json:"pollIntervalMs,omitempty"` // SEP-2663
	// SEP-2663: the terminal outcome inlined by tasks/get.
	ResultType    string              `json:"resultType,omitempty"`
	Result        json.RawMessage     `json:"result,omitempty"`
	Error         *taskError          `json:"error,omitempty"`
	InputRequests mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// inline reports whether t comes from a SEP-2663 server, which inlines
// the outcome in tasks/get (the first draft has tasks/result).
func (t *upstreamTask) inline() bool { return t.ResultType != "" || t.PollIntervalMs != nil }

func (t *upstreamTask) poll() time.Duration {
	switch {
	case t.PollIntervalMs != nil:
		return time.Duration(*t.PollIntervalMs * float64(time.Millisecond))
	case t.PollInterval != nil:
		return time.Duration(*t.PollInterval * float64(time.Millisecond))
	}
	return defaultTaskPoll
}

type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses answers the task's questions (tasks/update).
	InputResponses mcp.InputResponseMap `json:"inputResponses,omitempty"`
}

// taskMethods registers the methods of the first draft on a client.
func taskMethods(c *mcp.Client) {
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *upstreamTask](c, "tasks/get")
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *upstreamTask](c, "tasks/cancel")
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *upstreamTask](c, "tasks/update")
	_ = mcp.AddSendingCustomMethod[*taskIDParams, *mcp.CallToolResult](c, "tasks/result")
}

// markTask marks a call to be sent as a task that lives as long as the
// call may.
func markTask(ctx context.Context, p *mcp.CallToolParams) {
	ttl := DefaultTaskTTL
	if dl, ok := ctx.Deadline(); ok {
		ttl = time.Until(dl)
	}
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	p.Meta[metaTaskTTL] = max(ttl.Milliseconds(), 1)
}

// taskOf returns the task an answer carries, if any.
func taskOf(res *mcp.CallToolResult) (*upstreamTask, bool) {
	raw, ok := res.Meta[metaTask]
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, false
	}
	var t upstreamTask
	if json.Unmarshal(b, &t) != nil || t.TaskID == "" || len(t.TaskID) > 256 {
		return &upstreamTask{}, true
	}
	return &t, true
}

// awaitTask polls an upstream task until it ends and returns its result;
// the caller's ctx ending first cancels it upstream.
func (c *conn) awaitTask(ctx context.Context, s *mcp.ClientSession, imp *imported, t *upstreamTask) (*adapter.Result, error) {
	if t.TaskID == "" {
		return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q answered with a task without a valid taskId", c.cfg.Name)}
	}
	id := t.TaskID
	inline := t.inline()
	asked := map[string]bool{} // the questions put to our caller, by their ids
	last := ""
	for n := 1; ; n++ {
		if st := t.Status + ": " + t.StatusMessage; st != last && adapter.WantsProgress(ctx) {
			last = st
			adapter.ReportProgress(ctx, adapter.Progress{Progress: float64(n), Message: "task " + st})
		}
		if inline {
			switch t.Status {
			case taskCompleted:
				var res mcp.CallToolResult
				if err := json.Unmarshal(t.Result, &res); err != nil {
					return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q ended the task without a valid result", c.cfg.Name), Err: err}
				}
				return c.result(imp, &res)
			case taskFailed:
				// A protocol-level failure (a tool's own error completes
				// the task with isError): not the model's business.
				msg := "the task failed"
				if t.Error != nil {
					msg += ": " + t.Error.Message
				}
				return nil, &adapter.Error{Kind: adapter.KindInternal, Message: fmt.Sprintf("MCP server %q: %s", c.cfg.Name, msg)}
			case taskInputRequired:
				notRelayed := &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q's task asks for input, which only a caller running as a task can answer", c.cfg.Name)}
				if len(t.InputRequests) == 0 {
					_ = c.taskFailure(context.WithoutCancel(ctx), s, imp, id, nil)
					return nil, notRelayed
				}
				if key := inputKeys(t.InputRequests); !asked[key] {
					asked[key] = true
					answers, err := c.relayInput(ctx, t.InputRequests, len(asked))
					if errors.Is(err, ErrNotTask) {
						_ = c.taskFailure(context.WithoutCancel(ctx), s, imp, id, nil)
						return nil, notRelayed
					}
					var ae *adapter.Error
					if errors.As(err, &ae) && ctx.Err() == nil {
						// Refused (a bound, a question the caller cannot
						// answer): the upstream's task is not left waiting.
						_ = c.taskFailure(context.WithoutCancel(ctx), s, imp, id, nil)
						return nil, ae
					}
					if err == nil {
						_, err = mcp.CallCustomMethod[*taskIDParams, *upstreamTask](ctx, s, methodTasksUpdate, &taskIDParams{TaskID: id, InputResponses: answers})
					}
					if err != nil {
						return nil, c.taskFailure(ctx, s, imp, id, err)
					}
				}
			}
		}
		switch {
		case inline:
		case t.Status == taskCompleted || t.Status == taskFailed || t.Status == taskInputRequired:
			// tasks/result blocks until the task ends; meanwhile the server
			// puts its questions (elicitation) to us on that request.
			res, err := mcp.CallCustomMethod[*taskIDParams, *mcp.CallToolResult](ctx, s, "tasks/result", &taskIDParams{TaskID: id})
			if err != nil {
				return nil, c.taskFailure(ctx, s, imp, id, err)
			}
			delete(res.Meta, "io.modelcontextprotocol/related-task")
			if len(res.Meta) == 0 {
				res.Meta = nil
			}
			return c.result(imp, res)
		}
		if t.Status == taskCancelled {
			return nil, &adapter.Error{Kind: adapter.KindCancelled, Message: fmt.Sprintf("MCP server %q cancelled the task", c.cfg.Name)}
		}
		wait := min(max(t.poll(), minTaskPoll), maxTaskPoll)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, c.taskFailure(ctx, s, imp, id, ctx.Err())
		case <-timer.C:
		}
		next, err := mcp.CallCustomMethod[*taskIDParams, *upstreamTask](ctx, s, "tasks/get", &taskIDParams{TaskID: id})
		if err != nil {
			return nil, c.taskFailure(ctx, s, imp, id, err)
		}
		if next.PollInterval == nil && next.PollIntervalMs == nil {
			next.PollInterval, next.PollIntervalMs = t.PollInterval, t.PollIntervalMs
		}
		if next.TaskID != id {
			_ = c.taskFailure(context.WithoutCancel(ctx), s, imp, id, nil)
			return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q answered tasks/get about another task", c.cfg.Name)}
		}
		t = next
	}
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
	q = callerQuestions(q) // relay.go: what a caller may be asked; upstreamAnswers on the way back
	if c.elicitSpec == nil {
		req := relayCaller(ctx)
		if _, ok := ctx.Value(taskKey{}).(*taskRef); !ok || req == nil {
			return nil, ErrNotTask
		}
		if err := c.checkAsk(q, "", round); err != nil {
			return nil, err
		}
		for id, ir := range q {
			if !canAnswer(req.ClientCapabilities(), ir) {
				return nil, c.askError(fmt.Sprintf("asked the client for %s (%q), which the client did not declare it can answer", inputKind(ir), truncate(id, 64)))
			}
		}
		answers, err := AskInput(ctx, q)
		return upstreamAnswers(answers), err
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
	return upstreamAnswers(answers), err
}

// inputKeys names a set of questions by their ids.
func inputKeys(q mcp.InputRequestMap) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x00")
}

// taskFailure cancels the task upstream when the caller gave up on it,
// and maps err.
func (c *conn) taskFailure(ctx context.Context, s *mcp.ClientSession, imp *imported, id string, err error) error {
	if err == nil || ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_, _ = mcp.CallCustomMethod[*taskIDParams, *upstreamTask](cctx, s, "tasks/cancel", &taskIDParams{TaskID: id})
		cancel()
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
	switch s, _ := c.tasks.get(spec.Source.RemoteName); s {
	case string(TaskRequired):
		return TaskRequired
	case string(TaskOptional):
		return TaskOptional
	}
	return TaskForbidden
}

package taskclient

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
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
// same rewriting is done by the HTTP client ([Table.WrapHTTP], with
// [Table.Outgoing] and [Table.Incoming]). A transport of another
// type (Server.Transport, NewTransport) is not wrapped, and a task-only
// tool fails over it with a tool error saying so.

// MetaTTL marks an outgoing tools/call to be sent as a task (the wrapper
// replaces it with the task param); MetaTask carries the task of the
// answer back.
const (
	MetaTTL  = "agentadapter/task-ttl"
	MetaTask = "agentadapter/task"
)

// Bounds of the polling of an upstream task.
const (
	MinPoll     = 50 * time.Millisecond
	MaxPoll     = 5 * time.Second
	DefaultPoll = time.Second
)

// Table is what a connection knows of its server's task support, kept
// across reconnections. The zero value is ready to use.
type Table struct {
	mu      sync.Mutex
	support map[string]string // remote tool name → taskSupport
	wrapped bool              // the live session's connection is wrapped
	ext     bool              // the server advertises the tasks extension (SEP-2663)
}

// Extension reports whether the live session is wrapped and its server
// advertises the tasks extension.
func (t *Table) Extension() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.wrapped && t.ext
}

// Get returns the taskSupport the server declared for a tool, and whether
// the live session's connection is wrapped (can send tasks).
func (t *Table) Get(name string) (support string, wrapped bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.support[name], t.wrapped
}

// SetWrapped records whether the live session's connection is wrapped; a
// new wrapped connection has not yet seen the server advertise the
// extension.
func (t *Table) SetWrapped(wrapped bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.wrapped = wrapped
	if wrapped {
		t.ext = false
	}
}

// Wrap returns tr with its connections wrapped (for a transport whose
// go-sdk connection needs no unexported method: stdio, in-memory, io).
func (t *Table) Wrap(tr mcp.Transport) mcp.Transport {
	return &transport{base: tr, tab: t}
}

type transport struct {
	base mcp.Transport
	tab  *Table
}

func (tt *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tt.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	tt.tab.SetWrapped(true)
	return &conn{Connection: c, tab: tt.tab, calls: map[any]*watched{}}, nil
}

// conn watches tools/list and task calls on a connection.
type conn struct {
	mcp.Connection
	tab   *Table
	mu    sync.Mutex
	seq   uint64
	calls map[any]*watched // request id → what to watch its answer for
}

// watched is a request whose answer a conn waits for: until it arrives or
// the request's ctx ends (its caller gave up: a server may never answer
// it).
type watched struct {
	what string      // "hello", "list" or "task"
	seq  uint64      // the order of writing, for eviction
	stop func() bool // unregisters the watch's end on the ctx
}

// maxWatched bounds the requests a conn waits to see answered; past it
// the oldest is forgotten.
const maxWatched = 1024

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	msg, what := c.tab.Outgoing(msg)
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
func (c *conn) forget(id any, w *watched) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[id] == w {
		delete(c.calls, id)
	}
}

func (c *conn) evictOldestLocked() {
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

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
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
	return c.tab.Incoming(resp, w.what), nil
}

// Outgoing rewrites a message to the server as the tasks need, and says
// what to watch its answer for: "hello", "list", "task" or "".
func (t *Table) Outgoing(msg jsonrpc.Message) (jsonrpc.Message, string) {
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
		if t.Extension() {
			if d := declareTasks(p, "_meta", "io.modelcontextprotocol/clientCapabilities"); d != nil {
				p = d
			}
		} else if !marked {
			return msg, ""
		}
		return withParams(req, p), "task"
	case taskwire.MethodGet, taskwire.MethodCancel, taskwire.MethodUpdate:
		if t.Extension() {
			return withParams(req, declareTasks(req.Params, "_meta", "io.modelcontextprotocol/clientCapabilities")), ""
		}
	}
	return msg, ""
}

// Incoming reads or rewrites the answer to a watched request, what being
// what [Table.Outgoing] said to watch it for.
func (t *Table) Incoming(resp *jsonrpc.Response, what string) jsonrpc.Message {
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
			_, ext := r.Capabilities.Extensions[taskwire.Extension]
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
func (t *Table) learn(result json.RawMessage) {
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
	if _, ok := ext[taskwire.Extension]; ok {
		return nil
	}
	ext[taskwire.Extension] = map[string]any{}
	out, err := json.Marshal(root)
	if err != nil {
		return nil
	}
	return out
}

// asTaskCall turns the params of a tools/call marked MetaTTL into a
// task-augmented call: the mark goes, a task param comes.
func asTaskCall(params json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(params, []byte(MetaTTL)) {
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
	ttl, ok := meta[MetaTTL]
	if !ok {
		return nil, false
	}
	delete(meta, MetaTTL)
	if len(meta) == 0 {
		delete(p, "_meta")
	} else {
		p["_meta"], _ = json.Marshal(meta)
	}
	p["task"] = json.RawMessage(`{"ttl":` + string(ttl) + `}`)
	out, err := json.Marshal(p)
	return out, err == nil
}

// taskAnswer moves the task of a CreateTaskResult into _meta[MetaTask] of
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
	if r.ResultType == taskwire.ResultTypeTask {
		r.Task = result
	}
	if len(r.Task) == 0 || r.Task[0] != '{' {
		return nil, false
	}
	out, err := json.Marshal(map[string]any{"content": []any{}, "_meta": map[string]json.RawMessage{MetaTask: r.Task}})
	return out, err == nil
}

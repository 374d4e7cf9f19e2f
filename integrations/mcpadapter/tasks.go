package mcpadapter

import (
	"context"
	"encoding/json"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// TasksExtension is the identifier of the MCP tasks extension (SEP-2663):
// a long call answers at once with a task the client polls with
// tasks/get, answers with tasks/update and ends with tasks/cancel.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool's calls may run as tasks, in the words
// of the tool's execution.taskSupport.
type TaskSupport string

// The task supports of a tool.
const (
	// TaskForbidden: calls run synchronously (the default).
	TaskForbidden TaskSupport = "forbidden"
	// TaskOptional: a call runs as a task for a client that negotiated
	// the extension, synchronously for one that did not.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: a call runs only as a task; a client that did not
	// negotiate the extension gets -32021 (missing required client
	// capability).
	TaskRequired TaskSupport = "required"
)

// Defaults of [TaskOptions].
const (
	DefaultTaskTTL          = 10 * time.Minute
	DefaultTaskPollInterval = 500 * time.Millisecond
	DefaultMaxTasks         = 32
)

// maxTasksTotal bounds the tasks an exporter keeps, whoever created them.
const maxTasksTotal = 4096

// The finished results the tasks keep, in bytes of JSON: per caller and
// in all (see TaskOptions).
const (
	maxResultBytesPerCaller = 8 << 20
	maxResultBytes          = 64 << 20
)

// maxTaskRounds bounds the input rounds of one task (questions answered
// through tasks/update).
const maxTaskRounds = 16

// TaskOptions configure the tasks extension of an [Exporter]
// ([ExportOptions.Tasks]).
//
// A task is bound to the caller that created it: its verified subject, or,
// for a caller that proved none, its session (stdio, in-memory, a
// 2025-11-25 HTTP session), or, on the stateless endpoint (2026-07-28,
// where each request is a caller of its own), the client's IP address
// (behind a reverse proxy, the proxy's: use Auth there). Another caller's
// tasks/get, tasks/update or tasks/cancel gets the answer an unknown task
// id gets (-32602).
//
// The finished results kept are bounded in bytes (of their JSON): 8 MiB
// per caller and 64 MiB in all. Past a bound the oldest finished result
// (the caller's own first) is dropped with its task, whose tasks/get then
// answers -32602 "task expired: its result was dropped"; a result past
// 8 MiB alone fails its task (the call ran; its ledger record says so).
// A task's open questions ([AskInput]) count in the same bytes while
// open, at most 1 MiB at once: past a bound AskInput fails.
//
// A task is one call of the executor, hence one ledger record, written
// when it ends; a call the executor holds for approval puts the task in
// input_required with the approval question, and the answer, through
// tasks/update, decides the ticket (the held call and the decided one are
// a record each).
type TaskOptions struct {
	// Support says how the calls of a spec run; it is called for every
	// tools/call of a served spec, with the request (so that a tool may,
	// say, gather input synchronously before it runs as a task), and with
	// a nil request when the tools are listed, for the execution.taskSupport
	// of their definitions. Nil means TaskForbidden for every spec: the
	// extension is advertised, no task is made.
	Support func(spec *adapter.Spec, req *mcp.CallToolRequest) TaskSupport
	// TTL is how long a task is kept after it was created, running or
	// not, and the ttlMs it reports; a task still running then is
	// cancelled. Zero means DefaultTaskTTL.
	TTL time.Duration
	// PollInterval is the pollIntervalMs suggested to clients. Zero means
	// DefaultTaskPollInterval.
	PollInterval time.Duration
	// OptionalForSessions serves the specs Support calls TaskRequired as
	// TaskOptional to a caller of a session (2025-11-25 and before):
	// listed as optional, and run to completion for one that did not
	// negotiate the extension, where a 2026-07-28 caller without it gets
	// -32021. A gateway sets it for its upstreams' task-only tools: most
	// session-era clients know no tasks (and some refuse to call a tool
	// listed as required), and the import awaits the upstream's task.
	OptionalForSessions bool
	// MaxPerCaller bounds the tasks one caller (as a task is bound to it,
	// above) keeps, running or retained. Past it, and past the server's
	// bound of 4096 tasks, a TaskOptional call runs synchronously and a
	// TaskRequired one is refused with run_limit_exceeded. Zero means
	// DefaultMaxTasks.
	MaxPerCaller int
}

func (o *TaskOptions) ttl() time.Duration {
	if o.TTL > 0 {
		return o.TTL
	}
	return DefaultTaskTTL
}

func (o *TaskOptions) pollInterval() time.Duration {
	if o.PollInterval > 0 {
		return o.PollInterval
	}
	return DefaultTaskPollInterval
}

func (o *TaskOptions) maxPerCaller() int {
	if o.MaxPerCaller > 0 {
		return o.MaxPerCaller
	}
	return DefaultMaxTasks
}

// The methods of the extension; tasks/result and tasks/list of the first
// draft (SEP-1686) are gone, and answered -32601.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// enableTasks advertises the extension in caps and registers its methods
// on srv; the exporter's middleware answers them.
func enableTasks(mopts *mcp.ServerOptions) {
	if mopts.Capabilities == nil {
		mopts.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}} // go-sdk's default
	}
	mopts.Capabilities.AddExtension(TasksExtension, map[string]any{})
}

func registerTaskMethods(srv *mcp.Server) error {
	unreachable := func(context.Context, *mcp.ServerSession, *taskParams) (*taskAck, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tasks: not served"}
	}
	for _, m := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel} {
		if err := mcp.AddReceivingCustomMethod(srv, m, unreachable); err != nil {
			return err
		}
	}
	return nil
}

// taskMiddleware serves the extension: tools/call of a task-supporting
// tool, and the tasks/* methods.
func (s *Exporter) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return s.tasks.withExecution(s, lr, wire.ModernSession(req)), nil
			}
			return res, err
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			return s.tasks.call(ctx, s, next, cr)
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
			tr, ok := req.(*mcp.ServerRequest[*taskParams])
			if !ok {
				return next(ctx, method, req)
			}
			if !negotiated(tr.ClientCapabilities()) {
				return nil, missingTasksCapability(method + " needs the " + TasksExtension + " extension")
			}
			if err := checkTaskNameHeader(tr); err != nil {
				return nil, err
			}
			return s.tasks.method(ctx, method, s.taskOwner(ctx, tr), tr.Params)
		}
		return next(ctx, method, req)
	}
}

// withExecution adds execution.taskSupport to the listed tools that run
// as tasks: go-sdk's mcp.Tool has no execution field (protocol.go), so the
// listing is sent as JSON of our own when one does, with the resultType
// "complete" a 2026-07-28 client requires (modern) that go-sdk's encoding
// of the result leaves out.
func (st *taskStore) withExecution(s *Exporter, lr *mcp.ListToolsResult, modern bool) mcp.Result {
	if st.opts.Support == nil {
		return lr
	}
	support := map[int]TaskSupport{}
	for i, t := range lr.Tools {
		if spec, ok := s.reg.Lookup(t.Name); ok && s.filter.Match(spec) {
			if sup := st.opts.Support(spec, nil); sup == TaskOptional || sup == TaskRequired {
				if sup == TaskRequired && st.opts.OptionalForSessions && !modern {
					sup = TaskOptional
				}
				support[i] = sup
			}
		}
	}
	if len(support) == 0 {
		return lr
	}
	data, err := json.Marshal(lr)
	if err != nil {
		return lr
	}
	var wire map[string]json.RawMessage
	var tools []map[string]json.RawMessage
	if json.Unmarshal(data, &wire) != nil || json.Unmarshal(wire["tools"], &tools) != nil || len(tools) != len(lr.Tools) {
		return lr
	}
	for i, sup := range support {
		tools[i]["execution"], _ = json.Marshal(map[string]string{"taskSupport": string(sup)})
	}
	if wire["tools"], err = json.Marshal(tools); err != nil {
		return lr
	}
	if _, ok := wire["resultType"]; !ok && modern {
		wire["resultType"] = json.RawMessage(`"complete"`)
	}
	if data, err = json.Marshal(wire); err != nil {
		return lr
	}
	return &rawResult{data: data}
}

// rawResult is a result sent as the JSON it holds.
type rawResult struct {
	mcp.ResultBase
	data json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.data, nil }

// negotiated reports whether the client declared the extension, for this
// request (_meta, 2026-07-28) or for its session.
func negotiated(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

func missingTasksCapability(msg string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
		RequiredCapabilities: &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}},
	})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: msg, Data: data}
}

// checkTaskNameHeader refuses a request whose Mcp-Name header (SEP-2663
// routing header) names another task than its body, as go-sdk does for
// tools/call; a missing header is let through, as go-sdk's own client
// sends none for methods it does not know.
func checkTaskNameHeader(req *mcp.ServerRequest[*taskParams]) error {
	if req.Extra == nil || req.Extra.Header == nil || req.Params == nil {
		return nil
	}
	v, ok := req.Extra.Header["Mcp-Name"]
	if !ok || len(v) == 0 {
		return nil
	}
	if len(v) > 1 || strings.TrimSpace(v[0]) != req.Params.TaskID {
		return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: "header mismatch: Mcp-Name does not match params.taskId"}
	}
	return nil
}

// errTaskNotFound answers an unknown task id and another caller's alike.
var errTaskNotFound = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task not found"}

// errTaskDropped answers its owner's tasks/get of a task whose result was
// dropped (see TaskOptions).
var errTaskDropped = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
	Message: "task expired: its result was dropped (the server keeps at most 8 MiB of finished results per caller, 64 MiB in all; the oldest go first)"}

package export

import (
	"context"
	"fmt"
	"time"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/tasks"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/wire"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
)

// TasksExtension is the identifier of the MCP tasks extension (SEP-2663):
// a long call answers at once with a task the client polls with
// tasks/get, answers with tasks/update and ends with tasks/cancel.
const TasksExtension = taskwire.Extension

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
	DefaultTaskTTL          = tasks.DefaultTTL
	DefaultTaskPollInterval = tasks.DefaultPollInterval
	DefaultMaxTasks         = tasks.DefaultMaxTasks
)

// TaskOptions configure the tasks extension of a [Server]
// ([Options.Tasks]).
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

// taskMiddleware serves the extension: tools/call of a task-supporting
// tool, and the tasks/* methods.
func (s *Server) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return s.tasks.WithExecution(lr, wire.ModernSession(req), s.lookup), nil
			}
			return res, err
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			return s.callTask(ctx, next, cr)
		case taskwire.MethodGet, taskwire.MethodUpdate, taskwire.MethodCancel:
			tr, ok := req.(*mcp.ServerRequest[*tasks.Params])
			if !ok {
				return next(ctx, method, req)
			}
			if !tasks.Negotiated(tr.ClientCapabilities()) {
				return nil, tasks.MissingCapability(method + " needs the " + TasksExtension + " extension")
			}
			if err := tasks.CheckNameHeader(tr); err != nil {
				return nil, err
			}
			return s.tasks.Method(ctx, method, s.taskOwner(ctx, tr), tr.Params)
		}
		return next(ctx, method, req)
	}
}

// lookup looks up a spec the export serves.
func (s *Server) lookup(name string) (*adapter.Spec, bool) {
	spec, ok := s.reg.Lookup(name)
	return spec, ok && s.filter.Match(spec)
}

// taskOptions are o in the words of the store.
func taskOptions(o *TaskOptions) *tasks.Options {
	if o == nil {
		return nil
	}
	to := &tasks.Options{TTL: o.TTL, PollInterval: o.PollInterval, OptionalForSessions: o.OptionalForSessions, MaxPerCaller: o.MaxPerCaller}
	if o.Support != nil {
		to.Support = func(spec *adapter.Spec, req *mcp.CallToolRequest) string { return string(o.Support(spec, req)) }
	}
	return to
}

// callTask serves a tools/call: as a task when the tool supports it and
// the client negotiated the extension, else by next.
func (s *Server) callTask(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	name := req.Params.Name
	spec, ok := s.lookup(name)
	if !ok || !s.serves(name) {
		return next(ctx, "tools/call", req)
	}
	support := TaskForbidden
	if s.topts.Support != nil {
		support = s.topts.Support(spec, req)
	}
	switch support {
	case TaskOptional, TaskRequired:
	default:
		return next(ctx, "tools/call", req)
	}
	if support == TaskRequired && s.topts.OptionalForSessions && !wire.ModernSession(req) {
		support = TaskOptional
	}
	if !tasks.Negotiated(wire.ClientCaps(req)) {
		if support == TaskRequired {
			return nil, tasks.MissingCapability(fmt.Sprintf("tool %q runs only as a task: the client must negotiate the %s extension", name, TasksExtension))
		}
		return next(ctx, "tools/call", req)
	}
	if !spec.Source.IsLocal() {
		// An imported tool: its task is minted when the upstream makes one.
		return s.tasks.CallImported(ctx, next, req, s.taskOwner(ctx, req), string(support))
	}
	res, err := s.tasks.Start(ctx, next, req, s.taskOwner(ctx, req))
	if err != nil {
		if support == TaskOptional {
			return next(ctx, "tools/call", req) // as for a client without the extension
		}
		return errorResult(&adapter.Error{Kind: adapter.KindRunLimitExceeded, Tool: name, Message: err.Error()}), nil
	}
	return res, nil
}

// ErrNotTask is returned by [AskInput] outside a task.
var ErrNotTask = tasks.ErrNotTask

// AskInput puts questions (elicitations, sampling requests) to the client
// of the task the calling tool runs as, and returns the answers: the task
// reports input_required with the questions on tasks/get until the client
// has answered every one through tasks/update. It returns when all are
// answered, the task is cancelled (context.Canceled) or ctx is done;
// outside a task, at once with ErrNotTask. Questions of more than 1 MiB
// of JSON, or past the bytes the caller's tasks keep (see [TaskOptions]),
// fail at once with an *adapter.Error of KindRunLimitExceeded.
func AskInput(ctx context.Context, questions mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	return tasks.AskInput(ctx, questions)
}

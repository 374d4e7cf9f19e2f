package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// The task supports of a tool (execution.taskSupport).
const (
	Forbidden = "forbidden"
	Optional  = "optional"
	Required  = "required"
)

// Defaults of Options.
const (
	DefaultTTL          = 10 * time.Minute
	DefaultPollInterval = 500 * time.Millisecond
	DefaultMaxTasks     = 32
)

// Options are the export's TaskOptions, Support answering in the words
// of execution.taskSupport.
type Options struct {
	Support             func(spec *adapter.Spec, req *mcp.CallToolRequest) string
	TTL                 time.Duration
	PollInterval        time.Duration
	OptionalForSessions bool
	MaxPerCaller        int
}

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

func (o *Options) ttl() time.Duration {
	if o.TTL > 0 {
		return o.TTL
	}
	return DefaultTTL
}

func (o *Options) pollInterval() time.Duration {
	if o.PollInterval > 0 {
		return o.PollInterval
	}
	return DefaultPollInterval
}

func (o *Options) maxPerCaller() int {
	if o.MaxPerCaller > 0 {
		return o.MaxPerCaller
	}
	return DefaultMaxTasks
}

// Enable advertises the extension in mopts.
func Enable(mopts *mcp.ServerOptions) {
	if mopts.Capabilities == nil {
		mopts.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}} // go-sdk's default
	}
	mopts.Capabilities.AddExtension(taskwire.Extension, map[string]any{})
}

// Register registers the methods of the extension on srv; the exporter's
// middleware answers them.
func Register(srv *mcp.Server) error {
	unreachable := func(context.Context, *mcp.ServerSession, *Params) (*Ack, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "tasks: not served"}
	}
	for _, m := range []string{taskwire.MethodGet, taskwire.MethodUpdate, taskwire.MethodCancel} {
		if err := mcp.AddReceivingCustomMethod(srv, m, unreachable); err != nil {
			return err
		}
	}
	return nil
}

// WithExecution adds execution.taskSupport to the listed tools that run
// as tasks: go-sdk's mcp.Tool has no execution field (protocol.go), so the
// listing is sent as JSON of our own when one does, with the resultType
// "complete" a 2026-07-28 client requires (modern) that go-sdk's encoding
// of the result leaves out.
// served looks a listed tool's spec up (the served ones only).
func (st *Store) WithExecution(lr *mcp.ListToolsResult, modern bool, served func(name string) (*adapter.Spec, bool)) mcp.Result {
	if st.opts.Support == nil {
		return lr
	}
	support := map[int]string{}
	for i, t := range lr.Tools {
		if spec, ok := served(t.Name); ok {
			if sup := st.opts.Support(spec, nil); sup == Optional || sup == Required {
				if sup == Required && st.opts.OptionalForSessions && !modern {
					sup = Optional
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

// Negotiated reports whether the client declared the extension, for this
// request (_meta, 2026-07-28) or for its session.
func Negotiated(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[taskwire.Extension]
	return ok
}

// MissingCapability is the -32021 error of a request that needs the
// extension.
func MissingCapability(msg string) error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
		RequiredCapabilities: &mcp.ClientCapabilities{Extensions: map[string]any{taskwire.Extension: map[string]any{}}},
	})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: msg, Data: data}
}

// CheckNameHeader refuses a request whose Mcp-Name header (SEP-2663
// routing header) names another task than its body, as go-sdk does for
// tools/call; a missing header is let through, as go-sdk's own client
// sends none for methods it does not know.
func CheckNameHeader(req *mcp.ServerRequest[*Params]) error {
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

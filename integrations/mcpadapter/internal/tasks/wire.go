package tasks

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// The wire forms of the tasks extension (SEP-2663). A CreateTaskResult is
// flat (the task's fields at the top level, resultType "task"); every
// other answer carries resultType "complete".

// Params are the params of tasks/get, tasks/update and tasks/cancel.
type Params struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// Ack answers tasks/update and tasks/cancel: no task envelope.
type Ack struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// Info is the Task of the extension.
type Info struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// CreateResult answers a tools/call that made a task.
type CreateResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Info
}

// Detailed answers tasks/get: the task, and by its status the tool's
// result (completed), the protocol error (failed) or the open questions
// (input_required).
type Detailed struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Info
	Result        json.RawMessage `json:"result,omitempty"`
	Error         *taskwire.Error `json:"error,omitempty"`
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// Terminal reports whether a task of status has ended.
func Terminal(status string) bool {
	return status == taskwire.Completed || status == taskwire.Failed || status == taskwire.Cancelled
}

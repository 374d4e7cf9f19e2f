package mcpadapter

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The wire forms of the tasks extension (SEP-2663). A CreateTaskResult is
// flat (the task's fields at the top level, resultType "task"); every
// other answer carries resultType "complete".

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// taskAck answers tasks/update and tasks/cancel: no task envelope.
type taskAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// taskInfo is the Task of the extension.
type taskInfo struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// createTaskResult answers a tools/call that made a task.
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskInfo
}

// detailedTask answers tasks/get: the task, and by its status the tool's
// result (completed), the protocol error (failed) or the open questions
// (input_required).
type detailedTask struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskInfo
	Result        json.RawMessage `json:"result,omitempty"`
	Error         *taskError      `json:"error,omitempty"`
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// taskError is a JSON-RPC error object.
type taskError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

func terminal(status string) bool {
	return status == taskCompleted || status == taskFailed || status == taskCancelled
}

const (
	resultTypeTask     = "task"
	resultTypeComplete = "complete"
)

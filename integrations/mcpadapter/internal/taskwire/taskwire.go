// Package taskwire holds the wire names of the MCP tasks extension
// (SEP-2663, and the first draft, SEP-1686) that both sides of the module
// speak: the export's task store (internal/tasks) and the import's task
// client (internal/taskclient). One declaration, so the two cannot drift.
//
// It is internal to the module.
package taskwire

import "encoding/json"

// Extension is the identifier of the tasks extension, its capability key.
const Extension = "io.modelcontextprotocol/tasks"

// The methods of the extension. MethodResult is the first draft's
// (SEP-1686), which the import still calls on an upstream of that draft;
// the export answers it, as tasks/list, -32601.
const (
	MethodGet    = "tasks/get"
	MethodUpdate = "tasks/update"
	MethodCancel = "tasks/cancel"
	MethodResult = "tasks/result"
)

// The statuses of a task.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// The resultType of a flat task answer (a CreateTaskResult), and of every
// other answer of the extension.
const (
	ResultTypeTask     = "task"
	ResultTypeComplete = "complete"
)

// Error is a JSON-RPC error object, as a failed task reports it.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

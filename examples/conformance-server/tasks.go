package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
)

// The fixtures of the draft suite's tasks-* scenarios (SEP-2663): greet
// runs synchronously, the others as tasks for a client that negotiated
// the extension.
var taskSupport = map[string]export.TaskSupport{
	"slow_compute":       export.TaskOptional,
	"failing_job":        export.TaskRequired,
	"protocol_error_job": export.TaskOptional,
	"confirm_delete":     export.TaskOptional,
	"multi_input":        export.TaskOptional,
}

// taskOptions serves the tasks extension: short TTL and polling, as the
// scenarios poll every 200 ms.
func taskOptions() *export.TaskOptions {
	return &export.TaskOptions{
		Support: func(spec *adapter.Spec, req *mcp.CallToolRequest) export.TaskSupport {
			if spec.Name == "test_tool_with_task" {
				// It gathers its input synchronously (an input-required
				// result), then runs as a task.
				if req != nil && len(req.Params.InputResponses) == 0 {
					return export.TaskForbidden
				}
				return export.TaskRequired
			}
			return taskSupport[spec.Name]
		},
		TTL:          5 * time.Minute,
		PollInterval: 200 * time.Millisecond,
	}
}

func taskTools() []*adapter.Spec {
	return []*adapter.Spec{
		adapter.MustTool("greet", "Says hello.", func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return fmt.Sprintf("Hello, %s!", in.Name), nil
		}, &adapter.ToolOptions{Output: adapter.OutputText}),
		adapter.MustTool("slow_compute", "Sleeps for seconds, then answers.", slowCompute, &adapter.ToolOptions{Output: adapter.OutputText}),
		adapter.MustRawTool("failing_job", "Fails after a second.", noArgs(),
			func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
				if err := sleep(ctx, time.Second); err != nil {
					return nil, err
				}
				return nil, errors.New("failing_job failed, as it always does")
			}, nil),
		adapter.MustRawTool("protocol_error_job", "Fails with a protocol error.", noArgs(),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return nil, &adapter.Error{Kind: adapter.KindInternal, Message: "protocol_error_job crashed"}
			}, nil),
		adapter.MustTool("confirm_delete", "Asks the user to confirm, then deletes.", confirmDelete, &adapter.ToolOptions{Output: adapter.OutputText}),
		adapter.MustRawTool("multi_input", "Asks two questions at once.", noArgs(), multiInput, nil),
		adapter.MustRawTool("test_tool_with_task", "Asks the user's name, then greets them from a task.", noArgs(), toolWithTask, nil),
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func slowCompute(ctx context.Context, in struct {
	Seconds float64 `json:"seconds"`
	Label   string  `json:"label,omitempty"`
}) (string, error) {
	if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
		return "", err
	}
	return fmt.Sprintf("computed %s in %gs", in.Label, in.Seconds), nil
}

func confirm(message string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}},
	}}
}

func confirmDelete(ctx context.Context, in struct {
	Filename string `json:"filename"`
}) (string, error) {
	answers, err := export.AskInput(ctx, mcp.InputRequestMap{"confirm": confirm("Delete " + in.Filename + "?")})
	if err != nil {
		return "", err
	}
	if r, ok := answers["confirm"].(*mcp.ElicitResult); ok && r.Action == "accept" {
		return "deleted " + in.Filename, nil
	}
	return "kept " + in.Filename, nil
}

func multiInput(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	answers, err := export.AskInput(ctx, mcp.InputRequestMap{
		"first":  confirm("First question?"),
		"second": confirm("Second question?"),
	})
	if err != nil {
		return nil, err
	}
	return adapter.TextResult(fmt.Sprintf("%d answers", len(answers))), nil
}

// toolWithTask asks for the user's name by an input-required result, then
// (called again with the answer, as a task) greets them.
func toolWithTask(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	answers, _ := retried(ctx)
	name, _ := accepted(answers, "user_name")["name"].(string)
	if name == "" {
		return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"user_name": askString("What is your name?", "name")}}
	}
	if err := sleep(ctx, 300*time.Millisecond); err != nil {
		return nil, err
	}
	return adapter.TextResult("Hello, " + name + "!"), nil
}

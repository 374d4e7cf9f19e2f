package taskclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/taskwire"
)

// Task is a task as a server reports it (tasks/get, tasks/cancel, the
// task of a CreateTaskResult).
type Task struct {
	mcp.ResultBase
	TaskID         string   `json:"taskId"`
	Status         string   `json:"status"`
	StatusMessage  string   `json:"statusMessage,omitempty"`
	PollInterval   *float64 `json:"pollInterval,omitempty"`
	PollIntervalMs *float64 `json:"pollIntervalMs,omitempty"` // SEP-2663
	// SEP-2663: the terminal outcome inlined by tasks/get.
	ResultType    string              `json:"resultType,omitempty"`
	Result        json.RawMessage     `json:"result,omitempty"`
	Error         *taskwire.Error     `json:"error,omitempty"`
	InputRequests mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// inline reports whether t comes from a SEP-2663 server, which inlines
// the outcome in tasks/get (the first draft has tasks/result).
func (t *Task) inline() bool { return t.ResultType != "" || t.PollIntervalMs != nil }

func (t *Task) poll() time.Duration {
	switch {
	case t.PollIntervalMs != nil:
		return time.Duration(*t.PollIntervalMs * float64(time.Millisecond))
	case t.PollInterval != nil:
		return time.Duration(*t.PollInterval * float64(time.Millisecond))
	}
	return DefaultPoll
}

// IDParams are the params of the tasks methods.
type IDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses answers the task's questions (tasks/update).
	InputResponses mcp.InputResponseMap `json:"inputResponses,omitempty"`
}

// Methods registers the methods of the first draft on a client.
func Methods(c *mcp.Client) {
	_ = mcp.AddSendingCustomMethod[*IDParams, *Task](c, taskwire.MethodGet)
	_ = mcp.AddSendingCustomMethod[*IDParams, *Task](c, taskwire.MethodCancel)
	_ = mcp.AddSendingCustomMethod[*IDParams, *Task](c, taskwire.MethodUpdate)
	_ = mcp.AddSendingCustomMethod[*IDParams, *mcp.CallToolResult](c, taskwire.MethodResult)
}

// Mark marks a call to be sent as a task that lives as long as the call
// may: until ctx's deadline, or ttl without one.
func Mark(ctx context.Context, p *mcp.CallToolParams, ttl time.Duration) {
	if dl, ok := ctx.Deadline(); ok {
		ttl = time.Until(dl)
	}
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	p.Meta[MetaTTL] = max(ttl.Milliseconds(), 1)
}

// Of returns the task an answer carries, if any: a task without a valid
// taskId has an empty TaskID.
func Of(res *mcp.CallToolResult) (*Task, bool) {
	raw, ok := res.Meta[MetaTask]
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, false
	}
	var t Task
	if json.Unmarshal(b, &t) != nil || t.TaskID == "" || len(t.TaskID) > 256 {
		return &Task{}, true
	}
	return &t, true
}

// Cancel cancels the task id upstream, waiting at most 2 seconds, whether
// or not ctx has ended.
func Cancel(ctx context.Context, s *mcp.ClientSession, id string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	_, _ = mcp.CallCustomMethod[*IDParams, *Task](cctx, s, taskwire.MethodCancel, &IDParams{TaskID: id})
	cancel()
}

// Await is the polling of one upstream task, with what it needs of the
// call that created it.
type Await struct {
	// Server names the MCP server in messages.
	Server  string
	Session *mcp.ClientSession
	// Result converts the task's tool result.
	Result func(*mcp.CallToolResult) (*adapter.Result, error)
	// Fail cancels the task upstream when err is nil or ctx has ended, and
	// maps err (nil stays nil).
	Fail func(ctx context.Context, id string, err error) error
	// Relay puts the round-th questions of the task to the caller;
	// NotTask is its error when the caller cannot be asked.
	Relay   func(ctx context.Context, q mcp.InputRequestMap, round int) (mcp.InputResponseMap, error)
	NotTask error
}

// Run polls t until it ends and returns its result; the caller's ctx
// ending first cancels it upstream (through Fail).
func (a *Await) Run(ctx context.Context, t *Task) (*adapter.Result, error) {
	s := a.Session
	if t.TaskID == "" {
		return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q answered with a task without a valid taskId", a.Server)}
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
			case taskwire.Completed:
				var res mcp.CallToolResult
				if err := json.Unmarshal(t.Result, &res); err != nil {
					return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q ended the task without a valid result", a.Server), Err: err}
				}
				return a.Result(&res)
			case taskwire.Failed:
				// A protocol-level failure (a tool's own error completes
				// the task with isError): not the model's business.
				msg := "the task failed"
				if t.Error != nil {
					msg += ": " + t.Error.Message
				}
				return nil, &adapter.Error{Kind: adapter.KindInternal, Message: fmt.Sprintf("MCP server %q: %s", a.Server, msg)}
			case taskwire.InputRequired:
				notRelayed := &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q's task asks for input, which only a caller running as a task can answer", a.Server)}
				if len(t.InputRequests) == 0 {
					_ = a.Fail(context.WithoutCancel(ctx), id, nil)
					return nil, notRelayed
				}
				if key := inputKeys(t.InputRequests); !asked[key] {
					asked[key] = true
					answers, err := a.Relay(ctx, t.InputRequests, len(asked))
					if errors.Is(err, a.NotTask) {
						_ = a.Fail(context.WithoutCancel(ctx), id, nil)
						return nil, notRelayed
					}
					var ae *adapter.Error
					if errors.As(err, &ae) && ctx.Err() == nil {
						// Refused (a bound, a question the caller cannot
						// answer): the upstream's task is not left waiting.
						_ = a.Fail(context.WithoutCancel(ctx), id, nil)
						return nil, ae
					}
					if err == nil {
						_, err = mcp.CallCustomMethod[*IDParams, *Task](ctx, s, taskwire.MethodUpdate, &IDParams{TaskID: id, InputResponses: answers})
					}
					if err != nil {
						return nil, a.Fail(ctx, id, err)
					}
				}
			}
		}
		switch {
		case inline:
		case t.Status == taskwire.Completed || t.Status == taskwire.Failed || t.Status == taskwire.InputRequired:
			// tasks/result blocks until the task ends; meanwhile the server
			// puts its questions (elicitation) to us on that request.
			res, err := mcp.CallCustomMethod[*IDParams, *mcp.CallToolResult](ctx, s, taskwire.MethodResult, &IDParams{TaskID: id})
			if err != nil {
				return nil, a.Fail(ctx, id, err)
			}
			delete(res.Meta, "io.modelcontextprotocol/related-task")
			if len(res.Meta) == 0 {
				res.Meta = nil
			}
			return a.Result(res)
		}
		if t.Status == taskwire.Cancelled {
			return nil, &adapter.Error{Kind: adapter.KindCancelled, Message: fmt.Sprintf("MCP server %q cancelled the task", a.Server)}
		}
		wait := min(max(t.poll(), MinPoll), MaxPoll)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, a.Fail(ctx, id, ctx.Err())
		case <-timer.C:
		}
		next, err := mcp.CallCustomMethod[*IDParams, *Task](ctx, s, taskwire.MethodGet, &IDParams{TaskID: id})
		if err != nil {
			return nil, a.Fail(ctx, id, err)
		}
		if next.PollInterval == nil && next.PollIntervalMs == nil {
			next.PollInterval, next.PollIntervalMs = t.PollInterval, t.PollIntervalMs
		}
		if next.TaskID != id {
			_ = a.Fail(context.WithoutCancel(ctx), id, nil)
			return nil, &adapter.Error{Kind: adapter.KindToolError, Message: fmt.Sprintf("MCP server %q answered tasks/get about another task", a.Server)}
		}
		t = next
	}
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

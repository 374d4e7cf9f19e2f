package taskclient

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Create sends the call that creates an upstream task (params marked by
// [Mark]): watch adds to its ctx what the transport watches, and timeout
// bounds it when ctx has no deadline. The caller giving up while it is in
// flight does not cut it short: the server may have made the task
// already, and only its answer names the task to cancel. So the call goes
// on without the caller's cancellation, for at most createGrace after it,
// and a task it answers with then is cancelled upstream.
func Create(ctx context.Context, s *mcp.ClientSession, params *mcp.CallToolParams, watch func(context.Context) context.Context, timeout time.Duration) (*mcp.CallToolResult, error) {
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	base := watch(context.WithoutCancel(ctx))
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(timeout)
	}
	cctx, cancel := context.WithDeadline(base, dl.Add(createGrace))
	ch := make(chan answer, 1)
	go func() {
		res, err := s.CallTool(cctx, params)
		ch <- answer{res, err}
	}()
	select {
	case a := <-ch:
		cancel()
		return a.res, a.err
	case <-ctx.Done():
	}
	go func() {
		defer cancel()
		timer := time.NewTimer(createGrace)
		defer timer.Stop()
		select {
		case a := <-ch:
			if t, ok := Of(a.res); ok && a.err == nil && t.TaskID != "" {
				Cancel(ctx, s, t.TaskID)
			}
		case <-timer.C:
		}
	}()
	return nil, ctx.Err()
}

// createGrace bounds how long a task-creating call goes on after its
// caller gave up, to learn the task to cancel.
const createGrace = 2 * time.Second

package kit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentadapter/agentadapter/adapter"
)

// UnknownHook returns a framework's hook for a call to a tool the agent
// does not have, handed the tool's name and input: the model reads the
// not_found payload ([Unknown]) and the call is recorded in exec's ledger.
// callID, if not nil, reads the call's id from the hook's context. A nil
// exec panics, naming prefix.
func UnknownHook(prefix string, exec *adapter.Executor, integration string, callID func(context.Context) string) func(ctx context.Context, name, input string) (string, error) {
	if exec == nil {
		panic(fmt.Errorf("%s: %w", prefix, ErrNilExecutor))
	}
	return func(ctx context.Context, name, input string) (string, error) {
		req := &adapter.Request{Tool: name, Args: json.RawMessage(input), Integration: integration}
		if callID != nil {
			req.CallID = callID(ctx)
		}
		return Unknown(ctx, exec, req), nil
	}
}

package kit

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Contain runs call, one call of a tool the executor does not run (one the
// framework built, wrapped by an integration's middleware), so that its
// failure ends the call and not the run: a panic is logged (slog.Default)
// and becomes [PanicPayload], an error the model can read becomes
// [FailurePayload]; either comes back as payload, with the zero o and a
// nil err. An error pass reports (the framework's own control flow, such
// as an interrupt) comes back as it is, as do faults; a nil pass passes
// none.
func Contain[O any](ctx context.Context, tool, callID string, pass func(error) bool, call func() (O, error)) (o O, payload string, err error) {
	defer func() {
		if v := recover(); v != nil {
			slog.Default().Error("tool panicked", "tool", tool, "call_id", callID, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			var zero O
			o, payload, err = zero, PanicPayload(tool, callID), nil
		}
	}()
	o, err = call()
	if err == nil || pass != nil && pass(err) {
		return o, "", err
	}
	if p, ok := FailurePayload(ctx, tool, callID, err); ok {
		var zero O
		return zero, p, nil
	}
	return o, "", err
}

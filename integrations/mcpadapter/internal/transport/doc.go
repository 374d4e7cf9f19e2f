// Package transport holds the wrappers of the MCP client's transports
// and what they see of a call: the result size limit enforced while a
// response is read (HTTP and stdio), the legacy SSE stream's own context,
// the stdio child's shutdown, and the classification of a failed call by
// cause (was it sent, may it have run).
//
//	w := &transport.Watch{}
//	res, err := session.CallTool(transport.WithWatch(ctx, w), params)
//	if err != nil && transport.Classify(err, w) == transport.NotSent {
//		// safe to send again
//	}
//
// It is internal to the module.
package transport

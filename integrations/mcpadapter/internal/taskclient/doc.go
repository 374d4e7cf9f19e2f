// Package taskclient is the client side of MCP tasks (SEP-1686 and its
// successor SEP-2663) that go-sdk v1.8.0 lacks: a connection wrapper that
// reads each tool's taskSupport off tools/list answers, sends the calls
// marked for it as tasks and hands their answers back, and the polling of
// an upstream task until it ends.
//
//	var tab taskclient.Table
//	s, err := client.Connect(ctx, tab.Wrap(transport), nil)
//	if support, wrapped := tab.Get("slow_tool"); support == "required" && wrapped {
//		taskclient.Mark(ctx, params, ttl) // the call goes out as a task
//	}
//
// It is internal to the module.
package taskclient

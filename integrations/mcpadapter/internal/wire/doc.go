// Package wire holds the MCP wire conversions both halves of mcpadapter
// share: content blocks and tool annotations between adapter and go-sdk
// types, the resultType of a 2026-07-28 result, and W3C trace context
// carried in a request's _meta.
//
//	res := &mcp.CallToolResult{Content: wire.ContentToMCP(r.Content)}
//	content := wire.ContentFromMCP(res.Content) // and back, losing nothing
//
// It is internal to the module.
package wire

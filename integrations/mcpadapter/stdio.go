package mcpadapter

import "github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/transport"

// stdioTransport runs a command and speaks MCP over its stdin and stdout,
// like mcp.CommandTransport, but bounds every frame the child writes by the
// result size limit while it is read (internal/transport).
type stdioTransport = transport.Stdio

package export

import "strings"

// credentialHeaders are inbound headers that prove who the caller is:
// the identity they prove is in adapter.ToolCall.Identity, the headers
// themselves go nowhere.
var credentialHeaders = [...]string{"Authorization", "Proxy-Authorization", "Cookie"}

// hiddenParamPrefix starts the headers a 2026-07-28 client mirrors tool
// arguments into (SEP-2243 x-mcp-header): the arguments are in the call
// already, and the values are for the HTTP layer's routing.
const hiddenParamPrefix = "Mcp-Param-"

// hiddenHeader reports whether an inbound header stays out of what a
// tool, a hook or an upstream call sees of the request
// (adapter.ToolCall.Native, [RequestFromContext]): the credentials, the
// session id (it speaks for the client's session) and Mcp-Param-*.
func hiddenHeader(name string) bool {
	for _, h := range credentialHeaders {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return strings.EqualFold(name, "Mcp-Session-Id") ||
		len(name) >= len(hiddenParamPrefix) && strings.EqualFold(name[:len(hiddenParamPrefix)], hiddenParamPrefix)
}

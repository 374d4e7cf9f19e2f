package gateway

import "github.com/agentadapter/agentadapter/integrations/mcpadapter"

// AuthOptions returns the inbound authentication of the MCP endpoints, or
// nil when none is configured, so that other HTTP surfaces of the gateway
// (the operator console) require exactly the same tokens.
func (g *Gateway) AuthOptions() (*mcpadapter.AuthOptions, error) {
	o, err := g.mcpHTTPOptions()
	if err != nil {
		return nil, err
	}
	return o.Auth, nil
}

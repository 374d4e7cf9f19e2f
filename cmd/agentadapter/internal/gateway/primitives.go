package gateway

// What the gateway serves of its servers beside tools (resources, resource
// templates, prompts, completions) is export.Upstreams over the
// gateway's manager, one per endpoint. The seams are the tools':
//
//   - a server's allow, deny and prefix apply to its prompts' remote names
//     as to its tools' (the manager's Server carries them), and rename maps
//     a prompt's remote name as a tool's;
//   - a virtual server's servers select prompts and resources, its tools
//     patterns select prompts by the name clients see; resources (their
//     URIs are the upstream's) are selected by server alone;
//   - a read, prompt get or completion is a call of the endpoint's executor:
//     its approval rules (a read's spec is named resources_read, a prompt's
//     as the prompt), limits, cache and ledger apply.

// promptName renames a prompt by its server's rename map, as a tool.
func (g *Gateway) promptName(server, remote, _ string) string {
	return g.serverPolicy(server).Rename[remote]
}

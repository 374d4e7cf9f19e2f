package mcpadapter

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/internal/govern"
)

// Names of the synthetic tools that requests from servers run as: every
// sampling/createMessage and elicitation/create request a server sends goes
// through the executor (ManagerOptions.Executor) as a call of one of these,
// with Spec.Source.Server naming the server. Hooks, guards, approval
// policies and limits see them like any call, and the ledger records each.
// Their arguments summarise the request: images and audio appear as their
// media type and size, never their bytes.
const (
	SamplingTool    = "mcp_sampling"
	ElicitationTool = "mcp_elicitation"
)

// Defaults for ManagerOptions.SamplingTimeout and ElicitationTimeout.
const (
	DefaultSamplingTimeout    = 2 * time.Minute
	DefaultElicitationTimeout = 10 * time.Minute
)

// govern runs work as a call of spec through the manager's executor.
func (c *conn) govern(ctx context.Context, spec *adapter.Spec, timeout time.Duration, args any, work govern.Work) error {
	return govern.Run(ctx, c.m.opts.Executor, &adapter.Request{Spec: spec, Integration: Integration, Timeout: timeout}, args, work)
}

// kindOf returns the kind of an executor error ("" for others).
func kindOf(err error) adapter.Kind { return govern.KindOf(err) }

// serverRequests installs the handlers of the requests servers send, as
// the manager's options ask.
func (c *conn) serverRequests(o *mcp.ClientOptions) {
	if c.m.opts.Sampler != nil {
		c.samplingSpec = govern.NewSpec(SamplingTool, c.cfg.Name, "A sampling/createMessage request of MCP server "+c.cfg.Name+", answered by the application's model.")
		o.CreateMessageHandler = c.sample
	}
	if c.m.opts.Elicitation != nil {
		c.elicitSpec = govern.NewSpec(ElicitationTool, c.cfg.Name, "An elicitation/create request of MCP server "+c.cfg.Name+", put to a person.")
		o.ElicitationHandler = c.elicit
		o.Capabilities = &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		}
	}
}

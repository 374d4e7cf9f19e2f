package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
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

// governKey carries the work of one governed request to the synthetic
// spec's handler: the spec is made once per server, the work per request.
type governKey struct{}

type governed func(ctx context.Context) (*adapter.Result, error)

var anyObject = &jsonschema.Schema{Type: "object"}

// newGovernedSpec returns the synthetic spec of name for server.
func newGovernedSpec(name, server, description string) *adapter.Spec {
	return &adapter.Spec{
		Name:          name,
		Description:   description,
		InputSchema:   anyObject,
		Annotations:   adapter.Annotations{ReadOnly: true},
		Source:        adapter.Source{Server: server, RemoteName: name},
		HonorsContext: true,
		Handler: func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			run, ok := ctx.Value(governKey{}).(governed)
			if !ok {
				return nil, adapter.NewError(adapter.KindInternal, "a server request called without its work")
			}
			return run(ctx)
		},
	}
}

// govern runs work as a call of spec through the manager's executor.
func (c *conn) govern(ctx context.Context, spec *adapter.Spec, timeout time.Duration, args any, work governed) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return adapter.NewError(adapter.KindInternal, "encoding the request summary")
	}
	exec := c.m.opts.Executor
	if exec == nil {
		exec = adapter.Default()
	}
	ctx = context.WithValue(ctx, governKey{}, work)
	_, err = exec.Do(ctx, &adapter.Request{Spec: spec, Args: raw, Integration: Integration, Timeout: timeout})
	return err
}

// kindOf returns the kind of an executor error ("" for others).
func kindOf(err error) adapter.Kind {
	var ae *adapter.Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return ""
}

// serverRequests installs the handlers of the requests servers send, as
// the manager's options ask.
func (c *conn) serverRequests(o *mcp.ClientOptions) {
	if c.m.opts.Sampler != nil {
		c.samplingSpec = newGovernedSpec(SamplingTool, c.cfg.Name, "A sampling/createMessage request of MCP server "+c.cfg.Name+", answered by the application's model.")
		o.CreateMessageHandler = c.sample
	}
	if c.m.opts.Elicitation != nil {
		c.elicitSpec = newGovernedSpec(ElicitationTool, c.cfg.Name, "An elicitation/create request of MCP server "+c.cfg.Name+", put to a person.")
		o.ElicitationHandler = c.elicit
		o.Capabilities = &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		}
	}
}

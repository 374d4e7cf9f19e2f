// Package govern runs the requests an MCP server sends its client
// (sampling/createMessage, elicitation/create) through the executor, as
// calls of a synthetic spec per server and request kind: hooks, guards,
// approval policies, limits and the ledger see them like any call.
//
//	spec := govern.NewSpec("mcp_sampling", server, description) // once per server
//	err := govern.Run(ctx, exec, &adapter.Request{Spec: spec}, summary, work)
//
// It is internal to the module.
package govern

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// workKey carries the work of one governed request to the synthetic
// spec's handler: the spec is made once per server, the work per request.
type workKey struct{}

// Work is the work of one governed request.
type Work func(ctx context.Context) (*adapter.Result, error)

var anyObject = &jsonschema.Schema{Type: "object"}

// NewSpec returns the synthetic spec of name for server.
func NewSpec(name, server, description string) *adapter.Spec {
	return &adapter.Spec{
		Name:          name,
		Description:   description,
		InputSchema:   anyObject,
		Annotations:   adapter.Annotations{ReadOnly: true},
		Source:        adapter.Source{Server: server, RemoteName: name},
		HonorsContext: true,
		Handler: func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
			run, ok := ctx.Value(workKey{}).(Work)
			if !ok {
				return nil, adapter.NewError(adapter.KindInternal, "a server request called without its work")
			}
			return run(ctx)
		},
	}
}

// Run runs work as the call req (its Spec made by [NewSpec]; Run sets its
// Args to args, the request's summary, encoded) through exec (required:
// nil is an internal error, never a policy-free default).
func Run(ctx context.Context, exec *adapter.Executor, req *adapter.Request, args any, work Work) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return adapter.NewError(adapter.KindInternal, "encoding the request summary")
	}
	if exec == nil {
		return adapter.NewError(adapter.KindInternal, "no executor governs the servers' requests (ManagerOptions.Executor)")
	}
	ctx = context.WithValue(ctx, workKey{}, work)
	req.Args = raw
	_, err = exec.Do(ctx, req)
	return err
}

// KindOf returns the kind of an executor error ("" for others).
func KindOf(err error) adapter.Kind {
	var ae *adapter.Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return ""
}

package kit

import (
	"context"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentadapter/agentadapter/adapter"
)

// maxShapes bounds a [Shapes] cache; registries that replace specs often
// just recompute them.
const maxShapes = 1024

// Shapes caches the [Shape] of each input schema, for tools whose spec the
// registry may replace between calls. The zero value is ready to use; it
// is safe for concurrent use.
type Shapes struct {
	mu sync.Mutex
	m  map[*jsonschema.Schema]*Shape
}

// Of returns the shape of s, computed on first use.
func (c *Shapes) Of(s *jsonschema.Schema) *Shape {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.m[s]; ok {
		return a
	}
	if c.m == nil || len(c.m) >= maxShapes {
		c.m = map[*jsonschema.Schema]*Shape{}
	}
	a := NewShape(s)
	c.m[s] = a
	return a
}

// TextOptions configure [CallText]. The zero value is valid.
type TextOptions struct {
	// Render configures how the result reads to the model.
	Render adapter.RenderOptions
	// DropOmittedNulls reads a null given for an optional, non-nullable
	// property as an omitted one ([DropOmittedNulls]), for models held to
	// strict schemas.
	DropOmittedNulls bool
}

// CallText runs a call whose arguments are text a model wrote, for a
// framework whose tools take and return text: it parses input with
// shape ([ParseInput]), runs req (its Spec set) with those arguments
// through exec and returns adapter.Render's text of the result. Input that
// does not parse fails with args_invalid naming req's tool and call id; an
// executor error comes back with the shape to send ([Shape.Explain]).
// opts may be nil; a nil exec is an internal error wrapping
// [ErrNilExecutor].
func CallText(ctx context.Context, exec *adapter.Executor, req *adapter.Request, input string, shape *Shape, opts *TextOptions) (string, error) {
	if exec == nil {
		return "", noExecutor(req)
	}
	if opts == nil {
		opts = &TextOptions{}
	}
	args, err := ParseInput(input, shape)
	if e, ok := err.(*adapter.Error); ok {
		e.Tool, e.CallID = req.Spec.Name, req.CallID
		return "", e
	}
	if opts.DropOmittedNulls {
		args = DropOmittedNulls(args, req.Spec.InputSchema)
	}
	r := *req
	r.Args = args
	res, err := exec.Do(ctx, &r)
	if err != nil {
		return "", shape.Explain(err)
	}
	return adapter.Render(res, &opts.Render), nil
}

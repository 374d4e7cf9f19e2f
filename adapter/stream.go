package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"sync/atomic"

	"github.com/agentadapter/agentadapter/adapter/internal/argcheck"
	"github.com/agentadapter/agentadapter/runsync"
)

// NewStreamTool returns a spec for a typed Go function that produces its
// result in parts: text chunks of a long answer, progress lines, images as
// they are made. The input schema is inferred from In, as for [NewTool];
// the tool has no structured output (opts.Output is ignored), and its
// result is the parts in order, adjacent text parts joined.
//
// Through [Executor.Stream] (and the integrations that stream) each part
// reaches the caller as soon as fn yields it; through [Executor.Do] the
// caller gets the whole result at the end. Either way the call runs the
// whole pipeline: approval, guards, limits, timeout and ledger apply.
// Output guards must see a result before any of it reaches the caller, so
// an executor with output guards buffers a stream: [Executor.Stream] then
// yields the parts only once the whole result has passed the guards.
//
// An error yielded by fn ends the call with that error (a [KindToolError]
// unless it is an [*Error]).
func NewStreamTool[In any](name, description string, fn func(ctx context.Context, in In) iter.Seq2[Content, error], opts *ToolOptions) (*Spec, error) {
	if opts == nil {
		opts = &ToolOptions{}
	}
	if fn == nil {
		return nil, fmt.Errorf("adapter: tool %q: nil function", name)
	}
	s := newSpec(name, description, opts)
	in, err := inputSchemaFor(reflect.TypeFor[In](), opts)
	if err != nil {
		return nil, fmt.Errorf("adapter: tool %q: %w", name, err)
	}
	s.InputSchema = in
	s.Streaming = true
	s.Handler = func(ctx context.Context, args json.RawMessage) (*Result, error) {
		var in In
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, &Error{Kind: KindArgsInvalid, Message: "arguments do not decode: " + argcheck.JSONErrorText(err), Err: err}
			}
		}
		var parts []Content
		for c, err := range fn(ctx, in) {
			if err != nil {
				return nil, err
			}
			if c == nil {
				continue
			}
			Emit(ctx, c)
			parts = appendPart(parts, c)
		}
		return &Result{Content: parts}, nil
	}
	if err := s.Compile(); err != nil {
		return nil, err
	}
	return s, nil
}

// MustStreamTool is like [NewStreamTool] but panics on error. Use it at
// registration time only.
func MustStreamTool[In any](name, description string, fn func(ctx context.Context, in In) iter.Seq2[Content, error], opts *ToolOptions) *Spec {
	s, err := NewStreamTool(name, description, fn, opts)
	if err != nil {
		panic(err)
	}
	return s
}

// appendPart appends c, joining it to a preceding text part: the model
// reads one text, not one line per chunk.
func appendPart(parts []Content, c Content) []Content {
	if t, ok := c.(*TextContent); ok && len(parts) > 0 {
		if prev, ok := parts[len(parts)-1].(*TextContent); ok && prev.Meta == nil && t.Meta == nil && prev.Annotations == nil && t.Annotations == nil {
			parts[len(parts)-1] = &TextContent{Text: prev.Text + t.Text}
			return parts
		}
	}
	return append(parts, c)
}

type sinkKey struct{}

// sink carries a streaming call's parts to its consumer. Its channel is
// never closed: a handler abandoned at its deadline may still emit, and its
// sends then fall through on stop.
type sink struct {
	ch      chan Content
	stop    chan struct{}
	emitted atomic.Bool
}

// Emit sends a part of a streaming tool's result to the caller, if the call
// is being streamed ([Executor.Stream]); otherwise it does nothing. It
// blocks while the caller is not reading, and returns false once the
// caller has gone. Handlers built with [NewStreamTool] call it for you.
func Emit(ctx context.Context, c Content) bool {
	s, _ := ctx.Value(sinkKey{}).(*sink)
	if s == nil || c == nil {
		return s == nil
	}
	select {
	case s.ch <- c:
		s.emitted.Store(true)
		return true
	case <-s.stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// Stream runs one call through the pipeline, like [Executor.Do], and yields
// the parts of its result as the tool produces them: each part a streaming
// tool ([Spec.Streaming]) emits, or, for other tools (and cached results),
// the result's content blocks at the end. A failure is yielded last, as a
// nil part with an [*Error]. Breaking out of the loop cancels the call.
// With output guards ([Guard.Output]) the stream is buffered: the parts are
// yielded once the whole result has passed the guards, so a part a guard
// would block never reaches the caller.
func (e *Executor) Stream(ctx context.Context, req *Request) iter.Seq2[Content, error] {
	if e.outputGuarded() {
		return func(yield func(Content, error) bool) {
			res, err := e.Do(ctx, req)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, c := range res.Content {
				if !yield(c, nil) {
					return
				}
			}
		}
	}
	return func(yield func(Content, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := &sink{ch: make(chan Content, 16), stop: make(chan struct{})}
		defer close(s.stop)
		fut := runsync.Go(context.WithValue(ctx, sinkKey{}, s), func(ctx context.Context) (*Result, error) {
			return e.Do(ctx, req)
		})
		for {
			select {
			case c := <-s.ch:
				if !yield(c, nil) {
					return
				}
				continue
			case <-fut.Done():
			}
			break
		}
		for { // parts sent just before the call returned
			select {
			case c := <-s.ch:
				if !yield(c, nil) {
					return
				}
				continue
			default:
			}
			break
		}
		res, err := fut.Await(context.Background())
		if err != nil {
			yield(nil, err)
			return
		}
		if s.emitted.Load() {
			return
		}
		for _, c := range res.Content {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// outputGuarded reports whether any guard checks results: then nothing of
// a result may reach the caller before the guards have seen all of it.
func (e *Executor) outputGuarded() bool {
	for i := range e.opts.Guards {
		if e.opts.Guards[i].Output != nil {
			return true
		}
	}
	return false
}

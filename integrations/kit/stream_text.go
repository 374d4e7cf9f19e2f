package kit

import (
	"context"
	"iter"

	"github.com/agentadapter/agentadapter/adapter"
)

// TextStream is a streaming call's result as text, for a framework whose
// tools stream text to the model. [StreamText] starts one; range over
// [TextStream.All] or Close it.
type TextStream struct {
	next   func() (adapter.Content, error, bool)
	stop   func()
	first  adapter.Content
	err    error
	ok     bool
	render *adapter.RenderOptions
}

// StreamText runs req through exec.Stream and waits for its first part. A
// failure before any output (arguments, approval, guards) is returned as
// err, for the integration to answer as it answers [adapter.Executor.Do]'s
// (see [Triage]); the stream is then nil. render configures each part's
// text (adapter.Render); nil is the default policy. A nil exec is an
// internal error wrapping [ErrNilExecutor].
func StreamText(ctx context.Context, exec *adapter.Executor, req *adapter.Request, render *adapter.RenderOptions) (*TextStream, error) {
	if exec == nil {
		return nil, noExecutor(req)
	}
	next, stop := iter.Pull2(exec.Stream(ctx, req))
	first, err, ok := next()
	if ok && first == nil && err != nil {
		stop()
		return nil, err
	}
	return &TextStream{next: next, stop: stop, first: first, err: err, ok: ok, render: render}, nil
}

// All yields the text of each part as the tool produces it (parts with no
// text are skipped). A model-facing failure during the stream arrives as a
// last chunk holding its payload with a nil error, so that the agent keeps
// going; any other failure as a last empty chunk with the error. The call
// ends when the loop does. All may be called once.
func (s *TextStream) All() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		defer s.stop()
		for c, err, ok := s.first, s.err, s.ok; ok; c, err, ok = s.next() {
			if err != nil {
				if p, isPayload := adapter.ModelPayload(err); isPayload {
					yield(p, nil)
				} else {
					yield("", err)
				}
				return
			}
			if text := adapter.Render(&adapter.Result{Content: []adapter.Content{c}}, s.render); text != "" {
				if !yield(text, nil) {
					return
				}
			}
		}
	}
}

// Close ends the call, if [TextStream.All] has not run it to its end.
func (s *TextStream) Close() { s.stop() }

package langchaingoadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/agentadapter/agentadapter/adapter"
	lca "github.com/agentadapter/agentadapter/integrations/langchaingoadapter"
	"github.com/agentadapter/agentadapter/registry"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

var readOnly = adapter.Annotations{ReadOnly: true}

func addSpec() *adapter.Spec {
	return adapter.MustTool("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}, &adapter.ToolOptions{Annotations: readOnly})
}

// failSpec is a tool that always fails with a tool error.
func failSpec() *adapter.Spec {
	return adapter.MustTool("fail", "Always fails.", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		return "", errors.New("disk full while writing " + in.Path)
	}, &adapter.ToolOptions{Annotations: readOnly})
}

// echoSpec returns its validated arguments as text, so tests see exactly
// what reached the handler.
func echoSpec(t testing.TB, name, schemaJSON string) *adapter.Spec {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatal(err)
	}
	return adapter.MustRawTool(name, "Echoes its arguments.", &s, func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		c, err := adapter.CanonicalJSON(args)
		if err != nil {
			return nil, err
		}
		return adapter.TextResult(string(c)), nil
	}, &adapter.ToolOptions{Annotations: readOnly})
}

func newRegistry(t testing.TB, specs ...*adapter.Spec) *registry.Registry {
	t.Helper()
	reg := registry.New()
	if err := reg.Register(specs...); err != nil {
		t.Fatal(err)
	}
	return reg
}

func newExecutor(t testing.TB, reg adapter.Catalog, opts *adapter.ExecutorOptions) *adapter.Executor {
	t.Helper()
	e := adapter.NewExecutor(reg, opts)
	t.Cleanup(func() { e.Close() })
	return e
}

func mustTools(t testing.TB, reg *registry.Registry, exec *adapter.Executor, opts *lca.Options) []tools.Tool {
	t.Helper()
	ts, err := lca.Tools(reg, exec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func mustDispatcher(t testing.TB, reg *registry.Registry, exec *adapter.Executor, opts *lca.DispatcherOptions) *lca.Dispatcher {
	t.Helper()
	d, err := lca.NewDispatcher(reg, exec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// payload decodes a model-facing error payload; ok is false for anything
// else.
func payload(s string) (adapter.PayloadError, bool) {
	var p adapter.Payload
	if err := json.Unmarshal([]byte(s), &p); err != nil || p.Error.Kind == "" {
		return adapter.PayloadError{}, false
	}
	return p.Error, true
}

// recordingHandler records the tool callbacks langchaingo handlers get.
type recordingHandler struct {
	callbacks.SimpleHandler
	mu     sync.Mutex
	events []string
}

func (h *recordingHandler) add(e string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

func (h *recordingHandler) HandleToolStart(_ context.Context, input string) { h.add("start " + input) }
func (h *recordingHandler) HandleToolEnd(_ context.Context, output string)  { h.add("end " + output) }
func (h *recordingHandler) HandleToolError(_ context.Context, err error) {
	h.add("error " + string(adapter.KindOf(err)))
}

func (h *recordingHandler) Events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.events...)
}

// A turn is one scripted model answer, computed from what the model was
// sent.
type turn func(msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentResponse

// scriptedModel is a tool-calling llms.Model that plays turns in order and
// records every request. It fails the request after the last turn.
type scriptedModel struct {
	mu    sync.Mutex
	turns []turn
	reqs  [][]llms.MessageContent
	opts  []llms.CallOptions
}

func (m *scriptedModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, append([]llms.MessageContent(nil), msgs...))
	m.opts = append(m.opts, o)
	if len(m.turns) == 0 {
		return nil, fmt.Errorf("scripted model: no turn left (request %d)", len(m.reqs))
	}
	t := m.turns[0]
	m.turns = m.turns[1:]
	return t(msgs, o), nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func (m *scriptedModel) requests() [][]llms.MessageContent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reqs
}

// callTools answers with tool calls.
func callTools(calls ...llms.ToolCall) turn {
	return func([]llms.MessageContent, llms.CallOptions) *llms.ContentResponse {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{ToolCalls: calls}}}
	}
}

// answer answers with text.
func answer(text string) turn {
	return func([]llms.MessageContent, llms.CallOptions) *llms.ContentResponse {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}
	}
}

// answerWithLastTool answers with the text of the last tool response it was
// sent, so that a test sees that the model received it.
func answerWithLastTool(prefix string) turn {
	return func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentResponse {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: prefix + lastToolContent(msgs)}}}
	}
}

func lastToolContent(msgs []llms.MessageContent) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				return r.Content
			}
		}
	}
	return "<none>"
}

func toolCall(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

// toolResponses returns the tool responses in msgs, keyed by call id.
func toolResponses(msgs []llms.MessageContent) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out[r.ToolCallID] = r.Content
			}
		}
	}
	return out
}

func promptText(msgs []llms.MessageContent) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				b.WriteString(t.Text)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

package genkitadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agentadapter/agentadapter/adapter"
)

// newGenkit returns a Genkit instance for one test. genkit.Init installs a
// never-stopped signal.NotifyContext on the context it is given: cancel
// that context when the test ends, and restore the default signal
// disposition.
func newGenkit(t testing.TB) *genkit.Genkit {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	g := genkit.Init(ctx)
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	return g
}

// step is one turn of a scripted model: it sees the request and answers.
type step func(req *ai.ModelRequest) *ai.Message

// scripted is a fake model playing a fixed script, one step per call, and
// recording what it was sent.
type scripted struct {
	ai.Model
	mu    sync.Mutex
	steps []step
	reqs  []*ai.ModelRequest
}

func defineScripted(t testing.TB, g *genkit.Genkit, name string, steps ...step) *scripted {
	t.Helper()
	s := &scripted{steps: steps}
	s.Model = genkit.DefineModel(g, "test/"+name,
		&ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true}},
		func(ctx context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.reqs = append(s.reqs, req)
			if len(s.steps) == 0 {
				return nil, fmt.Errorf("scripted model %s: no step left for call %d", name, len(s.reqs))
			}
			st := s.steps[0]
			s.steps = s.steps[1:]
			return &ai.ModelResponse{Request: req, Message: st(req), FinishReason: ai.FinishReasonStop}, nil
		})
	return s
}

// requests returns the requests the model received.
func (s *scripted) requests() []*ai.ModelRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*ai.ModelRequest(nil), s.reqs...)
}

// callTool is a model turn requesting one tool call.
func callTool(name, ref string, input any) step {
	return func(*ai.ModelRequest) *ai.Message {
		return ai.NewMessage(ai.RoleModel, nil, ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Ref: ref, Input: input}))
	}
}

// callTools is a model turn requesting several calls at once.
func callTools(reqs ...*ai.ToolRequest) step {
	return func(*ai.ModelRequest) *ai.Message {
		parts := make([]*ai.Part, len(reqs))
		for i, r := range reqs {
			parts[i] = ai.NewToolRequestPart(r)
		}
		return ai.NewMessage(ai.RoleModel, nil, parts...)
	}
}

// echoToolOutputs is a final model turn that answers with the JSON of the
// tool outputs it was just given, so a test can assert what it read.
func echoToolOutputs() step {
	return func(req *ai.ModelRequest) *ai.Message {
		b, _ := json.Marshal(toolOutputs(req))
		return ai.NewModelTextMessage(string(b))
	}
}

// say is a final model turn answering text.
func say(text string) step {
	return func(*ai.ModelRequest) *ai.Message { return ai.NewModelTextMessage(text) }
}

// toolOutputs returns the outputs of the tool responses in the last message
// of req, by tool name (then ref, when several).
func toolOutputs(req *ai.ModelRequest) map[string]any {
	out := map[string]any{}
	if len(req.Messages) == 0 {
		return out
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != ai.RoleTool {
		return out
	}
	for _, p := range last.Content {
		if p.IsToolResponse() {
			key := p.ToolResponse.Name
			if _, dup := out[key]; dup || p.ToolResponse.Ref != "" && len(last.Content) > 1 {
				key += "#" + p.ToolResponse.Ref
			}
			out[key] = normalize(p.ToolResponse.Output)
		}
	}
	return out
}

// normalize round-trips v through JSON so that comparisons see plain maps,
// slices, strings, float64s and bools. A tool output is the text the model
// reads; text that is a JSON object or list is compared as its value.
func normalize(v any) any {
	if s, ok := v.(string); ok && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Valid([]byte(s)) {
		var out any
		_ = json.Unmarshal([]byte(s), &out)
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable %T", v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// payload is the model-facing error payload as a plain value.
func payload(kind adapter.Kind, message, tool string) any {
	p := map[string]any{"error": map[string]any{"kind": string(kind), "message": message}}
	if tool != "" {
		p["error"].(map[string]any)["tool"] = tool
	}
	return p
}

// recorder is a raw tool handler that records the arguments it ran with.
type recorder struct {
	mu   sync.Mutex
	args []json.RawMessage
}

func (r *recorder) handler(out string) adapter.Handler {
	return func(_ context.Context, args json.RawMessage) (*adapter.Result, error) {
		r.mu.Lock()
		r.args = append(r.args, append(json.RawMessage(nil), args...))
		r.mu.Unlock()
		return adapter.TextResult(out), nil
	}
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.args))
	for i, a := range r.args {
		c, err := adapter.CanonicalJSON(a)
		if err != nil {
			out[i] = "invalid: " + string(a)
			continue
		}
		out[i] = string(c)
	}
	return out
}

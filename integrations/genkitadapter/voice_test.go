package genkitadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/integrations/genkitadapter"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/registry"
)

// A model that calls a tool that does not exist reads the not_found payload
// and Generate goes on to the real tool and the answer.
func TestUnknownTools(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	reg := registry.New()
	reg.MustRegister(addSpec())
	ledger := adapter.NewMemoryLedger(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: ledger})
	defer exec.Close()
	tools, err := genkitadapter.Tools(g, reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := defineScripted(t, g, "hallucinating",
		callTool("no_such_tool", "c1", map[string]any{"a": 1}),
		callTool("add", "c2", map[string]any{"a": 2, "b": 3}),
		echoToolOutputs())
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("add"), ai.WithTools(tools...),
		ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)))
	if err != nil {
		t.Fatalf("Generate ended on the unknown tool: %v", err)
	}
	// The made-up call has exactly one record, as every call does.
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var recs []string
	for _, r := range ledger.Records() {
		recs = append(recs, r.Tool+" "+r.Outcome+" "+r.Integration+" "+string(r.Args))
	}
	if want := []string{`no_such_tool not_found genkit {"a":1}`, `add ok genkit {"a":2,"b":3}`}; strings.Join(recs, "|") != strings.Join(want, "|") {
		t.Errorf("records:\n got %q\nwant %q", recs, want)
	}
	if got, want := resp.Text(), `{"add":{"sum":5}}`; got != want {
		t.Errorf("answer = %s, want %s", got, want)
	}
	if n := len(m.requests()); n != 3 {
		t.Fatalf("the model was called %d times, want 3", n)
	}
	// The model's second turn was sent the history up to the not_found
	// answer (genkit reuses one request, so read it from the history).
	notFound, _ := adapter.ModelPayload(adapter.UnknownTool("no_such_tool"))
	if h := resp.History(); len(h) < 3 || len(h[2].Content) != 1 || !h[2].Content[0].IsToolResponse() ||
		!cmp.Equal(normalize(h[2].Content[0].ToolResponse.Output), normalize(notFound)) {
		t.Errorf("history = %v, want the not_found payload answering the first call", h)
	}
	// The answer stays in the history, in order.
	var roles []string
	for _, msg := range resp.History() {
		roles = append(roles, string(msg.Role))
	}
	if got := strings.Join(roles, ","); got != "user,model,tool,model,tool,model" {
		t.Errorf("history roles = %s", got)
	}
	// Without the middleware, genkit ends the generation: the reason it exists.
	m2 := defineScripted(t, g, "hallucinating2", callTool("no_such_tool", "c1", nil), say("never"))
	if _, err := genkit.Generate(ctx, g, ai.WithModel(m2), ai.WithPrompt("x"), ai.WithTools(tools...)); err == nil {
		t.Error("genkit went on past an unknown tool without the middleware; UnknownTools may no longer be needed")
	}
}

// In one turn, a made-up call is answered not_found and the real calls run.
func TestUnknownToolsMixedTurn(t *testing.T) {
	ctx := context.Background()
	g := newGenkit(t)
	reg := registry.New()
	reg.MustRegister(addSpec())
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	tools, err := genkitadapter.Tools(g, reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := defineScripted(t, g, "mixed",
		callTools(&ai.ToolRequest{Name: "ghost", Ref: "c1"}, &ai.ToolRequest{Name: "add", Ref: "c2", Input: map[string]any{"a": 1, "b": 1}}),
		say("ok"))
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("x"), ai.WithTools(tools...), ai.WithMiddleware(genkitadapter.UnknownToolsMiddleware(exec)))
	if err != nil {
		t.Fatal(err)
	}
	var answered []string
	for _, msg := range resp.History() {
		for _, p := range msg.Content {
			if p.IsToolResponse() {
				b, _ := json.Marshal(normalize(p.ToolResponse.Output))
				answered = append(answered, p.ToolResponse.Ref+"="+string(b))
			}
		}
	}
	if got, want := strings.Join(answered, " "), `c1={"error":{"kind":"not_found","message":"no tool named \"ghost\"","tool":"ghost"}} c2={"sum":2}`; got != want {
		t.Errorf("answers = %s\nwant      %s", got, want)
	}
}

// The cross-integration golden: every case's tool, run as genkit runs a
// tool, gives the model exactly the text in internal/kittest.
func TestRenderGolden(t *testing.T) {
	golden, err := kittest.Golden()
	if err != nil {
		t.Fatal(err)
	}
	exec := adapter.NewExecutor(nil, nil)
	defer exec.Close()
	for _, c := range kittest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			tool, err := genkitadapter.NewTool(c.Spec, exec, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := tool.RunRawMultipart(context.Background(), map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			// Genkit's plugins JSON-encode the output: JSON text travels as
			// its value (compared as JSON), other text as a string.
			want := golden[c.Name]
			if c.Name == "image" {
				want = "a red dot:" // the image is a media part
			}
			if c.Name == "audio" {
				want = ""
			}
			if s, isText := r.Output.(string); isText {
				if s != want {
					t.Errorf("genkit output %q, want %q", s, want)
				}
			} else if !json.Valid([]byte(want)) || !cmp.Equal(normalize(r.Output), normalize(want)) {
				t.Errorf("genkit output %#v, want the JSON %s", r.Output, want)
			}
			var media []string
			for _, p := range r.Content {
				media = append(media, p.ContentType)
			}
			switch c.Name {
			case "image":
				if len(media) != 1 || media[0] != "image/png" {
					t.Errorf("media = %v, want one PNG", media)
				}
			case "audio":
				if len(media) != 1 || media[0] != "audio/wav" {
					t.Errorf("media = %v, want one WAV clip", media)
				}
			default:
				if len(media) != 0 {
					t.Errorf("media = %v, want none", media)
				}
			}
		})
	}
}

package openaiadapter_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/integrations/kit/kittest"
	"github.com/agentadapter/agentadapter/integrations/openaiadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// outputItem is a function_call_output item as the fake API receives it.
type outputItem struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

// outputs returns the request's function_call_output items by call id.
func (r wireRequest) outputs(t testing.TB) map[string]outputItem {
	var items []outputItem
	if len(r.Input) > 0 && r.Input[0] == '[' {
		if err := json.Unmarshal(r.Input, &items); err != nil {
			t.Fatalf("input %s: %v", r.Input, err)
		}
	}
	out := map[string]outputItem{}
	for _, it := range items {
		if it.Type == "function_call_output" {
			out[it.CallID] = it
		}
	}
	return out
}

// outputPart is one part of an output list as the wire carries it.
type outputPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// parts returns an output's parts: a string output is one input_text.
func (o outputItem) parts(t testing.TB) []outputPart {
	var s string
	if json.Unmarshal(o.Output, &s) == nil {
		return []outputPart{{Type: "input_text", Text: s}}
	}
	var ps []outputPart
	if err := json.Unmarshal(o.Output, &ps); err != nil {
		t.Fatalf("output %s: %v", o.Output, err)
	}
	return ps
}

// text is what the model reads of an output's text parts, as
// adapter.PartsText joins them.
func (o outputItem) text(t testing.TB) string {
	var texts []string
	for _, p := range o.parts(t) {
		if p.Type == "input_text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// responseLoop is a Responses API loop over the SDK's client, as a user
// writes one with ResponseAnswers: each turn's outputs go back with
// PreviousResponseID until the model answers without calls.
func responseLoop(ctx context.Context, ts *openaiadapter.Toolset, client openai.Client, input string) (*responses.Response, []*heldCallsT, error) {
	ctx, _ = adapter.WithRun(ctx, nil)
	params := responses.ResponseNewParams{Model: "gpt-test", Tools: ts.ResponseTools(),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(input)}}
	for range 10 {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			return nil, nil, err
		}
		items, held, err := ts.ResponseAnswers(ctx, resp.Output)
		if err != nil {
			return resp, nil, err
		}
		if len(held) > 0 {
			return resp, []*heldCallsT{{held[0].Ticket}}, nil
		}
		if len(items) == 0 {
			return resp, nil, nil
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	}
	return nil, nil, errors.New("too many turns")
}

type heldCallsT struct{ ticket string }

// scriptResponses scripts a model asking for one call a turn, in order.
func scriptResponses(calls []kittest.Call) func(int, wireRequest) any {
	return func(n int, _ wireRequest) any {
		if n < len(calls) {
			return response("", functionCall(fmt.Sprint("call_", n), calls[n].Tool, calls[n].Args))
		}
		return response("done")
	}
}

// TestResponsesRender: each render case of the kit, called in a Responses
// API loop over the SDK's client, reaches the model (the fake API) as the
// golden says, images as input_image parts of their own (their text
// beside them as adapter.RenderParts gives it) and audio, which a
// function output cannot carry, as the golden's text.
func TestResponsesRender(t *testing.T) {
	golden, err := kittest.Golden()
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	for _, c := range kittest.Cases() {
		reg.MustRegister(c.Spec)
	}
	exec := adapter.NewExecutor(reg, nil)
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kittest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			api := newFakeAPI(t, scriptResponses([]kittest.Call{{Tool: c.Spec.Name, Args: `{}`}}))
			if _, held, err := responseLoop(bg, ts, api.client(), "go"); err != nil || held != nil {
				t.Fatalf("the loop ended with %v, held %v", err, held)
			}
			reqs := api.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			out, ok := reqs[1].outputs(t)["call_0"]
			if !ok {
				t.Fatalf("the model got no output for call_0: %s", reqs[1].Raw)
			}
			want := golden[c.Name]
			var images []string
			res, err := exec.Do(bg, &adapter.Request{Spec: c.Spec})
			if err == nil {
				for _, p := range adapter.RenderParts(res, nil) {
					if p.Media != nil && p.Media.Kind == adapter.MediaImage {
						images = append(images, "data:"+p.Media.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(p.Media.Data))
						want = adapter.PartsText(adapter.RenderParts(res, nil))
					}
				}
			}
			if got := out.text(t); got != want {
				t.Errorf("the model reads %q\nwant            %q", got, want)
			}
			var got []string
			for _, p := range out.parts(t) {
				if p.Type == "input_image" {
					got = append(got, p.ImageURL)
				}
			}
			if !slices.Equal(got, images) {
				t.Errorf("the model got images %.60q, want %.60q", got, images)
			}
		})
	}
}

// TestResponsesApproval: a held call gets no output; once approved,
// ResponseResume runs it once, and a replay of the same held call runs
// nothing.
func TestResponsesApproval(t *testing.T) {
	var runs atomic.Int32
	reg := registry.New()
	reg.MustRegister(adapter.MustTool("rm", "removes a file", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		runs.Add(1)
		return "removed " + in.Path, nil
	}, &adapter.ToolOptions{Output: adapter.OutputText}))
	port := &approval.Deferred{}
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Approval: adapter.ApprovalOptions{Port: port}})
	defer exec.Close()
	ts, err := openaiadapter.New(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, scriptResponses([]kittest.Call{{Tool: "rm", Args: `{"path":"/tmp/x"}`}}))
	client := api.client()
	resp, err := client.Responses.New(bg, responses.ResponseNewParams{Model: "gpt-test", Tools: ts.ResponseTools(),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("clean up")}})
	if err != nil {
		t.Fatal(err)
	}
	items, held, err := ts.ResponseAnswers(bg, resp.Output)
	if err != nil || len(items) != 0 || len(held) != 1 || held[0].Ticket == "" || held[0].CallID != "call_0" || held[0].Args != `{"path":"/tmp/x"}` {
		t.Fatalf("ResponseAnswers = %d items, held %+v, %v", len(items), held, err)
	}
	if err := port.Approve(bg, held[0].Ticket, "test"); err != nil {
		t.Fatal(err)
	}
	items, still, err := ts.ResponseResume(bg, held)
	if err != nil || len(still) != 0 || len(items) != 1 {
		t.Fatalf("resume: %d items, held %v, %v", len(items), still, err)
	}
	if out := *items[0].OfFunctionCallOutput; out.CallID.Value != "call_0" || textOf(out.Output.OfResponseFunctionCallOutputItemArray) != "removed /tmp/x" {
		t.Errorf("resume: output %+v, want removed /tmp/x for call_0", out)
	}
	// A replay presents the spent ticket: the call is held again, under a new one.
	items, still, err = ts.ResponseResume(bg, held)
	if err != nil || len(items) != 0 || len(still) != 1 || still[0].Ticket == held[0].Ticket {
		t.Fatalf("replay: %d items, held %v, %v", len(items), still, err)
	}
	if runs.Load() != 1 {
		t.Errorf("the approved call ran %d times, want 1", runs.Load())
	}
}

func textOf(parts responses.ResponseFunctionCallOutputItemListParam) string {
	var b strings.Builder
	for _, p := range parts {
		if p.OfInputText != nil {
			b.WriteString(p.OfInputText.Text)
		}
	}
	return b.String()
}

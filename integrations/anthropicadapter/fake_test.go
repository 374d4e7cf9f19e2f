package anthropicadapter_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// turn is what the scripted model answers: tool calls, else text.
type turn struct {
	calls []anthropic.BetaToolUseBlockParam
	text  string
	stop  anthropic.BetaStopReason // for a text turn; empty: end_turn
	// blocks, if set, are the content as is (a fallback seam between calls, say);
	// the turn stops for tool use if one is a call.
	blocks []anthropic.BetaContentBlockParamUnion
}

// fakeAPI is an in-process Messages API (POST /v1/messages): it decodes
// each request as the SDK's own params, records it, and answers with the
// script's turn, written from the SDK's own content block types.
type fakeAPI struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []anthropic.BetaMessageNewParams
	bodies []string
	script func(n int, req *anthropic.BetaMessageNewParams) turn
}

// wireMessage is the Messages API's response, its content blocks the
// SDK's (a tool_use block reads the same in a request and a response).
type wireMessage struct {
	ID         string                                 `json:"id"`
	Type       string                                 `json:"type"`
	Role       string                                 `json:"role"`
	Model      string                                 `json:"model"`
	Content    []anthropic.BetaContentBlockParamUnion `json:"content"`
	StopReason anthropic.BetaStopReason               `json:"stop_reason"`
	Usage      map[string]int                         `json:"usage"`
}

func newFakeAPI(t testing.TB, script func(n int, req *anthropic.BetaMessageNewParams) turn) *fakeAPI {
	f := startAPI(script)
	f.t = t
	t.Cleanup(f.srv.Close)
	return f
}

// startAPI starts a fake API for an example, which closes it.
func startAPI(script func(n int, req *anthropic.BetaMessageNewParams) turn) *fakeAPI {
	f := &fakeAPI{script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no such route"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req anthropic.BetaMessageNewParams
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	tn := f.script(n, &req)
	msg := wireMessage{ID: fmt.Sprint("msg_", n), Type: "message", Role: "assistant", Model: string(req.Model), StopReason: anthropic.BetaStopReasonEndTurn,
		Usage: map[string]int{"input_tokens": 1, "output_tokens": 1}}
	for i := range tn.calls {
		msg.Content = append(msg.Content, anthropic.BetaContentBlockParamUnion{OfToolUse: &tn.calls[i]})
		msg.StopReason = anthropic.BetaStopReasonToolUse
	}
	for _, b := range tn.blocks {
		msg.Content = append(msg.Content, b)
		if b.OfToolUse != nil {
			msg.StopReason = anthropic.BetaStopReasonToolUse
		}
	}
	if len(tn.calls) == 0 && len(tn.blocks) == 0 {
		msg.Content = append(msg.Content, anthropic.NewBetaTextBlock(tn.text))
		if tn.stop != "" {
			msg.StopReason = tn.stop
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(msg); err != nil && f.t != nil {
		f.t.Error(err)
	}
}

// client returns an SDK client whose requests reach f, with no retries.
func (f *fakeAPI) client() anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(f.srv.URL), option.WithHTTPClient(f.srv.Client()), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

func (f *fakeAPI) requests() []anthropic.BetaMessageNewParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]anthropic.BetaMessageNewParams(nil), f.reqs...)
}

func (f *fakeAPI) body(n int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[n]
}

// read is what a tool result says to the model: its text blocks, one a
// line; an is_error result's text must be the runner's "Error: " and the
// payload, which read returns alone. images counts its image blocks.
func read(t testing.TB, r *anthropic.BetaToolResultBlockParam) (text string, isError bool, images int) {
	var parts []string
	for _, c := range r.Content {
		switch {
		case c.OfText != nil:
			parts = append(parts, c.OfText.Text)
		case c.OfImage != nil:
			images++
		}
	}
	text = strings.Join(parts, "\n")
	if r.IsError.Value {
		p, ok := strings.CutPrefix(text, "Error: ")
		if !ok {
			t.Errorf("an is_error result reads %q, not Error: and a payload", text)
		}
		text = p
	}
	return text, r.IsError.Value, images
}

// results are the tool results of a request's last message.
func results(req *anthropic.BetaMessageNewParams) []*anthropic.BetaToolResultBlockParam {
	var out []*anthropic.BetaToolResultBlockParam
	if n := len(req.Messages); n > 0 && req.Messages[n-1].OfUser != nil {
		for _, b := range req.Messages[n-1].OfUser.Content {
			if b.OfToolResult != nil {
				out = append(out, b.OfToolResult)
			}
		}
	}
	return out
}

func ask(q string) anthropic.BetaToolRunnerParams {
	return anthropic.BetaToolRunnerParams{DisableThread: true, BetaMessageNewParams: anthropic.BetaMessageNewParams{
		Model: "claude-test", MaxTokens: 256,
		Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(q))},
	}}
}

func use(id, name, args string) anthropic.BetaToolUseBlockParam {
	return anthropic.BetaToolUseBlockParam{ID: id, Name: name, Input: json.RawMessage(args)}
}

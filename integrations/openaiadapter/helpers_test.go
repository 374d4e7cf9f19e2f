package openaiadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// wireMessage is a chat message as the fake API server receives it.
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// text is the message's content as text: a string, or its text parts joined.
func (m wireMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// wireRequest is a Chat Completions or Responses request as the fake API
// server receives it.
type wireRequest struct {
	Path                string            `json:"-"`
	Model               string            `json:"model"`
	Messages            []wireMessage     `json:"messages"`
	Tools               []json.RawMessage `json:"tools"`
	Input               json.RawMessage   `json:"input"`
	PreviousResponseID  string            `json:"previous_response_id"`
	MaxCompletionTokens int64             `json:"max_completion_tokens"`
	Temperature         float64           `json:"temperature"`
	Stop                []string          `json:"stop"`
	Raw                 string            `json:"-"`
}

// toolText returns the tool message answering the call id, as the
// request carries it.
func (r wireRequest) toolText(id string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.text(), true
		}
	}
	return "", false
}

// invalid is the API's complaint about a request it refuses for what an
// integration could get wrong, in the API's words, or "": a tool call
// that is not an object of a known type, a tool message with no content
// or answering no call of an earlier turn, a function_call_output with no
// output or call id.
func (r wireRequest) invalid() string {
	calls := map[string]bool{}
	for i, m := range r.Messages {
		for j, c := range m.ToolCalls {
			if c.Type != "function" && c.Type != "custom" || c.ID == "" {
				return fmt.Sprintf("Invalid value for 'messages[%d].tool_calls[%d]': expected a function or custom tool call.", i, j)
			}
			calls[c.ID] = true
		}
		if m.Role == "tool" && (len(m.Content) == 0 || string(m.Content) == "null") {
			return fmt.Sprintf("Missing required parameter: 'messages[%d].content'.", i)
		}
		if m.Role == "tool" && !calls[m.ToolCallID] {
			return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
		}
	}
	var items []struct {
		Type   string          `json:"type"`
		CallID *string         `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	if len(r.Input) > 0 && r.Input[0] == '[' && json.Unmarshal(r.Input, &items) != nil {
		return "Invalid type for 'input': expected an array of input items."
	}
	for i, it := range items {
		if it.Type == "function_call_output" && (len(it.Output) == 0 || string(it.Output) == "null") {
			return fmt.Sprintf("Missing required parameter: 'input[%d].output'.", i)
		}
		if it.Type == "function_call_output" && it.CallID == nil {
			return fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i)
		}
	}
	return ""
}

// fakeAPI is an in-process OpenAI API: each request is answered by script,
// given the request's index and the request, with a value of the SDK's
// own response types, marshalled as the API sends it.
type fakeAPI struct {
	t      testing.TB
	srv    *httptest.Server
	script func(n int, r wireRequest) any
	mu     sync.Mutex
	reqs   []wireRequest
}

func newFakeAPI(t testing.TB, script func(n int, r wireRequest) any) *fakeAPI {
	f := &fakeAPI{t: t, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req wireRequest
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		req.Path, req.Raw = r.URL.Path, string(b)
		if msg := req.invalid(); msg != "" {
			f.t.Logf("the API refuses request %s: %s", r.URL.Path, msg) // the SDK's error hides it
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
			return
		}
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		out := f.script(n, req)
		if out == nil {
			http.Error(w, `{"error":{"message":"no scripted reply","type":"server_error"}}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) client() openai.Client {
	return openai.NewClient(option.WithBaseURL(f.srv.URL), option.WithHTTPClient(f.srv.Client()),
		option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

func (f *fakeAPI) requests() []wireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireRequest(nil), f.reqs...)
}

// completion is a Chat Completions reply: text, or tool calls when some.
func completion(text string, calls ...openai.ChatCompletionMessageToolCallUnion) openai.ChatCompletion {
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	return openai.ChatCompletion{ID: "chatcmpl-test", Object: "chat.completion", Model: "gpt-test", Created: 1,
		Choices: []openai.ChatCompletionChoice{{FinishReason: finish, Message: openai.ChatCompletionMessage{Role: "assistant", Content: text, ToolCalls: calls}}}}
}

func toolCall(id, name, args string) openai.ChatCompletionMessageToolCallUnion {
	return openai.ChatCompletionMessageToolCallUnion{ID: id, Type: "function",
		Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: name, Arguments: args}}
}

// response is a Responses API reply: text, or function calls when some.
// Its items are the SDK's own variant types; the envelope holds only the
// fields the API always sends (the SDK's union fields do not marshal as
// the API writes them).
func response(text string, calls ...responses.ResponseFunctionToolCall) map[string]any {
	var out []any
	for _, c := range calls {
		c.ID, c.Status = "fc_"+c.CallID, "completed"
		out = append(out, c)
	}
	if text != "" {
		out = append(out, responses.ResponseOutputMessage{ID: "msg_test", Role: "assistant", Status: "completed", Type: "message",
			Content: []responses.ResponseOutputMessageContentUnion{{Type: "output_text", Text: text}}})
	}
	return map[string]any{"id": "resp_test", "object": "response", "model": "gpt-test", "status": "completed", "created_at": 1, "output": out}
}

func functionCall(id, name, args string) responses.ResponseFunctionToolCall {
	return responses.ResponseFunctionToolCall{CallID: id, Name: name, Arguments: args, Type: "function_call"}
}

func userMsg(s string) []openai.ChatCompletionMessageParamUnion {
	return []openai.ChatCompletionMessageParamUnion{openai.UserMessage(s)}
}

var bg = context.Background()

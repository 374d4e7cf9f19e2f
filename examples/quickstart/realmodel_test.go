package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain keeps the tests offline whatever the shell exports: the real
// model mode is chosen by environment, and TestQuickstart checks the
// scripted run.
func TestMain(m *testing.M) {
	for _, k := range []string{
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_BASE",
		"OPENAI_ORGANIZATION", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
	} {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}

// TestRealModel runs the quickstart against a fake OpenAI-compatible server
// and checks that each framework reached it through its own provider
// package (the OpenAI SDK run through openai-go itself), that the model's tool calls went through the executor (failure,
// approval and retry included), and that each framework printed the
// model's answer. The fake asks for the tools turn by turn, or all in one
// turn, as real models often do: the approval then pauses a turn whose
// other calls have run.
func TestRealModel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		oneTurn bool
		// requests per framework: the tool calls, then (langchaingo only,
		// which has no pause) the retry once approved, and the answer.
		requests map[string]int
		summary  string
	}{
		{"turn by turn", false, map[string]int{"eino": 3, "genkit": 3, "langchaingo": 4, "openai": 3},
			"summary: 16 calls; by framework eino=4 genkit=4 langchaingo=4 openai=4; by outcome approval_pending=4 ok=8 tool_error=4; 3 cache hits"},
		{"one turn", true, map[string]int{"eino": 2, "genkit": 2, "langchaingo": 3, "openai": 2},
			"summary: 20 calls; by framework eino=5 genkit=5 langchaingo=5 openai=5; by outcome approval_pending=4 ok=12 tool_error=4; 3 cache hits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &sectionBuffer{}
			fake := &fakeOpenAI{t: t, out: out, oneTurn: tc.oneTurn, byFW: map[string]*fwRequests{}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			t.Setenv("OPENAI_API_KEY", "test-key")
			t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1/")
			t.Setenv("OPENAI_MODEL", "quickstart-test")

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := run(ctx, out); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			got := out.String()
			defer func() {
				if t.Failed() || os.Getenv("QS_DEBUG") != "" {
					t.Logf("--- output ---\n%s", got)
				}
			}()

			if want := "model: quickstart-test at " + srv.URL + "/v1, through each framework's own OpenAI provider package"; !strings.Contains(got, want) {
				t.Errorf("output lacks %q", want)
			}
			sections := map[string]string{}
			for _, s := range strings.Split(got, "\n== ")[1:] {
				name, body, _ := strings.Cut(s, "\n")
				sections[name] = body
			}
			for _, fw := range []string{"eino", "genkit", "langchaingo", "openai"} {
				r := fake.requests(fw)
				if r.count != tc.requests[fw] {
					t.Errorf("%s: model requests: got %d, want %d", fw, r.count, tc.requests[fw])
				}
				if r.count == 0 {
					continue
				}
				if err := checkClient(fw, r); err != nil {
					t.Errorf("%s: %v", fw, err)
				}
				// The tools went out with their real schemas (langchaingo's
				// OneShot agent would have sent none).
				if want := []string{"convert", "delete_report", "get_weather"}; !slices.Equal(r.tools, want) {
					t.Errorf("%s: tools with schemas in the first request: got %q, want %q", fw, r.tools, want)
				}
				body := sections[fw]
				lines := []string{
					"[" + fw + `] get_weather {"city":"Paris"} -> {"city":"Paris","temp_c":21.5,"humidity":48}`,
					"[" + fw + `] get_weather {"city":"Atlantis"} -> tool_error: no weather station in Atlantis`,
					"[" + fw + `] delete_report {"name":"draft.txt"} -> approval_pending`,
					"[" + fw + `] delete_report {"name":"draft.txt"} -> deleted draft.txt`,
					`approval: delete_report {"name":"draft.txt"} (ticket tkt_`,
				}
				if tc.oneTurn {
					lines = append(lines, "["+fw+`] convert {"amount":20,"from":"EUR","to":"USD"} -> {"amount":21.6,"currency":"USD"}`)
				}
				for _, want := range lines {
					if !strings.Contains(body, want) {
						t.Errorf("%s: output lacks %q", fw, want)
					}
				}
				// The answer is the fake model's, quoting what it read: the
				// result, the failure payload and the deletion.
				_, answer, ok := strings.Cut(body, "  answer: I read: ")
				if !ok {
					t.Errorf("%s: no answer from the model", fw)
					continue
				}
				for _, want := range []string{`"temp_c":21.5`, `"kind":"tool_error","message":"no weather station in Atlantis"`, "deleted draft.txt"} {
					if !strings.Contains(answer, want) {
						t.Errorf("%s: answer lacks %q", fw, want)
					}
				}
			}
			if !strings.Contains(got, tc.summary) {
				t.Errorf("ledger summary: want %q", tc.summary)
			}
		})
	}
}

// checkClient tells each framework's provider package by what it sends.
func checkClient(fw string, r fwRequests) error {
	for _, ua := range r.userAgents {
		var ok bool
		switch fw {
		case "eino":
			// eino-ext's client (a go-openai fork) sets no User-Agent of its own.
			ok = !r.stainless && !strings.Contains(ua, "langchaingo") && !strings.HasPrefix(ua, "OpenAI/")
		case "genkit":
			// genkit's compat_oai plugin is built on openai-go.
			ok = r.stainless && strings.HasPrefix(ua, "OpenAI/Go ")
		case "langchaingo":
			ok = !r.stainless && strings.Contains(ua, "langchaingo/")
		case "openai":
			// openaiadapter drives openai-go itself.
			ok = r.stainless && strings.HasPrefix(ua, "OpenAI/Go ")
		}
		if !ok {
			return fmt.Errorf("requests came from another client: User-Agent %q, X-Stainless-Lang go=%v", ua, r.stainless)
		}
	}
	return nil
}

// sectionBuffer is the run's output, readable while it is written: the fake
// server tells the frameworks apart by the section being printed.
type sectionBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *sectionBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *sectionBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// section is the framework now running ("== name").
func (b *sectionBuffer) section() string {
	s := b.String()
	i := strings.LastIndex(s, "\n== ")
	if i < 0 {
		return ""
	}
	name, _, _ := strings.Cut(s[i+len("\n== "):], "\n")
	return name
}

// fakeOpenAI serves /v1/chat/completions (no streaming) with a script that
// reads the conversation it is sent: first two parallel calls of
// get_weather, then a call of delete_report (oneTurn: all four calls at
// once), the same call again while the last tool message says
// approval_pending, then a text answer quoting every tool message.
type fakeOpenAI struct {
	t       *testing.T
	out     *sectionBuffer
	oneTurn bool

	mu   sync.Mutex
	n    int
	byFW map[string]*fwRequests
}

// fwRequests is what one framework sent.
type fwRequests struct {
	count      int
	userAgents []string
	stainless  bool     // X-Stainless-Lang: go, as openai-go sends
	tools      []string // the tools of its first request that had a parameters schema
}

func (f *fakeOpenAI) requests(fw string) fwRequests {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.byFW[fw]; r != nil {
		return *r
	}
	return fwRequests{}
}

type chatMessage struct {
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

// text reads a message's content, a string or an array of text parts.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(code int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		f.t.Errorf("fake OpenAI: %s %s: %s", r.Method, r.URL.Path, msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		fail(http.StatusNotFound, "not served")
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		fail(http.StatusUnauthorized, "Authorization %q", got)
		return
	}
	var req struct {
		Model    string        `json:"model"`
		Stream   bool          `json:"stream"`
		Messages []chatMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		fail(http.StatusBadRequest, "body: %v", err)
		return
	}
	if req.Stream {
		fail(http.StatusBadRequest, "streaming is not served")
		return
	}
	if req.Model != "quickstart-test" {
		fail(http.StatusBadRequest, "model %q", req.Model)
		return
	}
	// Every tool message answers a call of an earlier assistant message.
	var tools []string
	issued := map[string]bool{}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			issued[tc.ID] = true
		}
		if m.Role == "tool" {
			if !issued[m.ToolCallID] {
				fail(http.StatusBadRequest, "tool message answers unknown call %q", m.ToolCallID)
				return
			}
			tools = append(tools, m.text())
		}
	}

	f.mu.Lock()
	f.n++
	n := f.n
	fw := f.out.section()
	rec := f.byFW[fw]
	if rec == nil {
		rec = &fwRequests{}
		for _, tl := range req.Tools {
			if tl.Type == "function" && tl.Function.Parameters["properties"] != nil {
				rec.tools = append(rec.tools, tl.Function.Name)
			}
		}
		slices.Sort(rec.tools)
		f.byFW[fw] = rec
	}
	rec.count++
	rec.userAgents = append(rec.userAgents, r.Header.Get("User-Agent"))
	rec.stainless = rec.stainless || r.Header.Get("X-Stainless-Lang") == "go"
	f.mu.Unlock()

	type call struct{ name, args string }
	var calls []call
	switch {
	case len(tools) == 0 && f.oneTurn:
		calls = []call{{"get_weather", `{"city":"Paris"}`}, {"get_weather", `{"city":"Atlantis"}`},
			{"convert", `{"amount":20,"from":"EUR","to":"USD"}`}, {"delete_report", `{"name":"draft.txt"}`}}
	case len(tools) == 0:
		calls = []call{{"get_weather", `{"city":"Paris"}`}, {"get_weather", `{"city":"Atlantis"}`}}
	case (len(tools) == 2 && !f.oneTurn) || strings.Contains(tools[len(tools)-1], `"approval_pending"`):
		calls = []call{{"delete_report", `{"name":"draft.txt"}`}}
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "tool_calls"
	if len(calls) == 0 {
		msg["content"] = "I read: " + strings.Join(tools, "; ")
		finish = "stop"
	} else {
		var tcs []map[string]any
		for i, c := range calls {
			tcs = append(tcs, map[string]any{
				"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
				"function": map[string]any{"name": c.name, "arguments": c.args},
			})
		}
		msg["tool_calls"] = tcs
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// Command quickstart is the README's first command. Offline, with scripted
// models, it shows one set of tools governed by one executor inside three
// agent frameworks and the OpenAI Go SDK:
//
//   - tools: two local typed Go functions and one tool imported from an MCP
//     server running in this process;
//   - one executor: approval for destructive tools (deferred tickets), a
//     cache for the read-only weather tool, a JSONL ledger in a temp dir;
//   - the same question asked through an Eino react agent, a Genkit
//     Generate, a langchaingo agent and an OpenAI SDK Chat Completions
//     loop. Each run makes one failing call the model reads and survives,
//     and one call that waits for approval. (The Anthropic SDK's tool
//     runner asks it in examples/anthropic, a module of its own: see its
//     doc for why.)
//
// It prints every tool call each framework makes, what the model read, and
// a summary of the ledger.
//
//	go run ./examples/quickstart
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL and OPENAI_MODEL)
// the same run asks a real model, through each framework's own OpenAI
// provider package: see README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/approval"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/registry"
)

// question is what every framework is asked.
const question = "What is the weather in Paris and in Atlantis, what are 20 EUR in USD, and please delete the draft report."

type WeatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type WeatherOut struct {
	City     string  `json:"city"`
	TempC    float64 `json:"temp_c"`
	Humidity int     `json:"humidity"`
}

type DeleteIn struct {
	Name string `json:"name" jsonschema:"the report to delete"`
}

type ConvertIn struct {
	Amount float64 `json:"amount" jsonschema:"the amount to convert"`
	From   string  `json:"from" jsonschema:"ISO currency code"`
	To     string  `json:"to" jsonschema:"ISO currency code"`
}

type ConvertOut struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// env is what every framework's run shares.
type env struct {
	reg       *registry.Registry
	exec      *adapter.Executor
	approvals *approval.Deferred
	out       io.Writer
	// llm is the real model to use; nil means the scripted ones.
	llm *provider
}

// defaultModel and defaultBaseURL apply when OPENAI_API_KEY is set and
// OPENAI_MODEL or OPENAI_BASE_URL is not.
const (
	defaultModel   = "gpt-4o-mini"
	defaultBaseURL = "https://api.openai.com/v1"
)

// provider is an OpenAI-compatible chat-completions endpoint configured by
// environment.
type provider struct {
	key, baseURL, model string
}

// providerFromEnv returns the endpoint OPENAI_API_KEY, OPENAI_BASE_URL and
// OPENAI_MODEL describe, or nil when OPENAI_API_KEY is unset: the scripted
// models then answer and the run stays offline.
func providerFromEnv() *provider {
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		return nil
	}
	p := &provider{
		key: key,
		// The clients join paths to it as they please: no trailing slash.
		baseURL: strings.TrimRight(os.Getenv("OPENAI_BASE_URL"), "/"),
		model:   os.Getenv("OPENAI_MODEL"),
	}
	if p.baseURL == "" {
		p.baseURL = defaultBaseURL
	}
	if p.model == "" {
		p.model = defaultModel
	}
	return p
}

// lockedWriter keeps each line whole: the frameworks run the tool calls of
// one model turn concurrently, and each call prints a trace line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func run(ctx context.Context, out io.Writer) error {
	out = &lockedWriter{w: out}
	reg := registry.New()
	closedWorld := false
	reg.MustRegister(
		adapter.MustTool("get_weather", "Current weather for a city.",
			func(ctx context.Context, in WeatherIn) (WeatherOut, error) {
				if in.City == "Atlantis" {
					return WeatherOut{}, errors.New("no weather station in Atlantis")
				}
				return WeatherOut{City: in.City, TempC: 21.5, Humidity: 48}, nil
			}, &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true, OpenWorld: &closedWorld}}),
		// No hints: destructive, as MCP assumes by default, so it needs approval.
		adapter.MustTool("delete_report", "Delete a report.",
			func(ctx context.Context, in DeleteIn) (string, error) {
				return "deleted " + in.Name, nil
			}, nil),
	)

	stop, err := importFX(ctx, reg)
	if err != nil {
		return err
	}
	defer stop()

	dir, err := os.MkdirTemp("", "agentadapter-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ledgerPath := filepath.Join(dir, "ledger.jsonl")
	ledger, err := ledger.OpenJSONL(ledgerPath)
	if err != nil {
		return err
	}
	defer ledger.Close()

	e := &env{reg: reg, approvals: &approval.Deferred{}, out: out, llm: providerFromEnv()}
	e.exec = adapter.NewExecutor(reg, &adapter.ExecutorOptions{
		Approval: adapter.ApprovalOptions{Port: e.approvals}, // by annotations: destructive or open-world tools
		Cache:    &adapter.CacheOptions{Tools: map[string]time.Duration{"get_weather": time.Minute}},
		Ledger:   ledger,
		Hooks:    []adapter.Hook{e.trace},
		Timeout:  10 * time.Second,
	})
	defer e.exec.Close()

	fmt.Fprintln(out, "tools:")
	for s := range reg.List(registry.Filter{}) {
		fmt.Fprintf(out, "  %-14s %-6s destructive=%-5v %s\n", s.Name, s.Source, s.Annotations.IsDestructive(), s.Description)
	}
	fmt.Fprintf(out, "executor: approval by annotations (deferred tickets), cache get_weather 1m, JSONL ledger %s\n", ledgerPath)
	if e.llm != nil {
		fmt.Fprintf(out, "model: %s at %s, through each framework's own OpenAI provider package\n", e.llm.model, e.llm.baseURL)
	}

	for _, fw := range []struct {
		name string
		run  func(context.Context, *env) (string, error)
	}{
		{"eino", runEino},
		{"genkit", runGenkit},
		{"langchaingo", runLangchaingo},
		{"openai", runOpenAI},
	} {
		fmt.Fprintf(out, "\n== %s\n", fw.name)
		answer, err := fw.run(ctx, e)
		if err != nil {
			return fmt.Errorf("%s: %w", fw.name, err)
		}
		// A real model may answer in several lines: keep them indented.
		fmt.Fprintf(out, "  answer: %s\n", strings.ReplaceAll(strings.TrimSpace(answer), "\n", "\n          "))
	}

	if err := e.exec.Flush(ctx); err != nil {
		return err
	}
	return summarize(out, ledgerPath)
}

// trace is a hook: it prints every call any framework makes, and what came
// back.
func (e *env) trace(next adapter.Invoker) adapter.Invoker {
	return func(ctx context.Context, c *adapter.ToolCall) (*adapter.Result, error) {
		res, err := next(ctx, c)
		switch {
		case err == nil:
			fmt.Fprintf(e.out, "  [%s] %s %s -> %s\n", c.Integration, c.Tool, c.Args, res.Text())
		default:
			var ae *adapter.Error
			if errors.As(err, &ae) {
				fmt.Fprintf(e.out, "  [%s] %s %s -> %s: %s\n", c.Integration, c.Tool, c.Args, ae.Kind, ae.Message)
			}
		}
		return res, err
	}
}

// approve approves a pending ticket, as an operator would.
func (e *env) approve(ctx context.Context, ticket, tool, args string) error {
	fmt.Fprintf(e.out, "  approval: %s %s (ticket %s) approved by operator\n", tool, args, ticket)
	return e.approvals.Approve(ctx, ticket, "operator")
}

// importFX starts an MCP server in process and imports its tool.
func importFX(ctx context.Context, reg *registry.Registry) (stop func(), err error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "fx", Version: "v1"}, nil)
	closed := false
	mcp.AddTool(server, &mcp.Tool{Name: "convert", Description: "Convert an amount between currencies.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}},
		func(_ context.Context, _ *mcp.CallToolRequest, in ConvertIn) (*mcp.CallToolResult, ConvertOut, error) {
			return nil, ConvertOut{Amount: in.Amount * 1.08, Currency: in.To}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	m := mcpadapter.NewManager(reg, nil)
	// Trust: the server is ours, so its read-only hint is policy (an
	// untrusted server's tools all count as destructive).
	if err := m.Connect(ctx, mcpadapter.Upstream{Name: "fx", Transport: ct, Trust: true}); err != nil {
		ss.Close()
		return nil, err
	}
	return func() { m.Close(); ss.Close() }, nil
}

// step is one tool call of a scripted model.
type step struct{ tool, args string }

// script is what each scripted model asks for, one call per turn; the
// report name differs per framework so that each gets its own approval.
func script(fw string) []step {
	return []step{
		{"get_weather", `{"city":"Paris"}`},
		{"get_weather", `{"city":"Atlantis"}`},
		{"convert", `{"amount":20,"from":"EUR","to":"USD"}`},
		{"delete_report", `{"name":"draft-` + fw + `.txt"}`},
	}
}

// summarize prints the ledger: one line per call, then counts.
func summarize(out io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nledger:")
	byOutcome := map[string]int{}
	byIntegration := map[string]int{}
	hits, n := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r ledger.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return err
		}
		n++
		byOutcome[r.Outcome]++
		byIntegration[r.Integration]++
		if r.CacheHit {
			hits++
		}
		fmt.Fprintf(out, "  %-12s %-14s %-17s cache_hit=%-5v approval=%s\n", r.Integration, r.Tool, r.Outcome, r.CacheHit, r.Approval)
	}
	fmt.Fprintf(out, "summary: %d calls; by framework %s; by outcome %s; %d cache hits\n", n, counts(byIntegration), counts(byOutcome), hits)
	return nil
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

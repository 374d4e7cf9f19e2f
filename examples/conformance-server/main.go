// Command conformance-server serves, through agentadapter specs and an
// executor, the tools, resources and prompts the official MCP conformance
// suite (@modelcontextprotocol/conformance) expects, over streamable HTTP
// on 127.0.0.1.
//
//	go run ./conformance-server -port 3001
//	conformance server --url http://127.0.0.1:3001/mcp --suite active
//
// It prints "listening on URL" once it accepts connections; -port 0 (the
// default) picks a free port.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/progress"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter/export"
	"github.com/agentadapter/agentadapter/registry"
)

// A 1×1 red PNG and a minimal (empty) WAV file.
var (
	redPixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	silentWAV, _   = base64.StdEncoding.DecodeString("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=")
)

func main() {
	port := flag.Int("port", 0, "TCP port on 127.0.0.1 (0: a free port)")
	verbose := flag.Bool("v", false, "log at debug level")
	flag.Parse()

	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	reg := registry.New()
	reg.MustRegister(tools()...)
	reg.MustRegister(taskTools()...)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Logger: logger})
	defer exec.Close()

	ex, err := export.NewServer(reg, exec, &export.Options{
		Name:      "agentadapter-conformance",
		Version:   "v0.0.0",
		Logger:    logger,
		Configure: configure,
		Tasks:     taskOptions(),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer ex.Close()
	addResourcesAndPrompts(ex.MCPServer())
	registerMRTR(reg, ex.MCPServer())
	registerStateless(reg, ex.MCPServer())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := export.Listen(fmt.Sprintf(":%d", *port))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s%s\n", ln.Addr(), export.DefaultPath)
	opts := &export.HTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}
	if err := ex.ServeListener(ctx, ln, opts); err != nil {
		log.Fatal(err)
	}
}

// configure declares the capabilities the resource and prompt scenarios
// need beyond tools: completion and resource subscriptions.
func configure(o *mcp.ServerOptions) {
	o.CompletionHandler = func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	o.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
	o.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	o.HasPrompts = true
	o.HasResources = true
}

func noArgs() *jsonschema.Schema { return &jsonschema.Schema{Type: "object"} }

func content(cs ...adapter.Content) adapter.Handler {
	return func(context.Context, json.RawMessage) (*adapter.Result, error) {
		return &adapter.Result{Content: cs}, nil
	}
}

func text(s string) *adapter.Result { return adapter.TextResult(s) }

func tools() []*adapter.Spec {
	readOnly := &adapter.ToolOptions{Annotations: adapter.Annotations{ReadOnly: true}}
	return []*adapter.Spec{
		adapter.MustRawTool("test_simple_text", "Returns simple text.", noArgs(),
			content(&adapter.TextContent{Text: "This is a simple text response for testing."}), readOnly),
		adapter.MustRawTool("test_image_content", "Returns an image.", noArgs(),
			content(&adapter.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}), readOnly),
		adapter.MustRawTool("test_audio_content", "Returns audio.", noArgs(),
			content(&adapter.AudioContent{Data: silentWAV, MIMEType: "audio/wav"}), readOnly),
		adapter.MustRawTool("test_embedded_resource", "Returns an embedded resource.", noArgs(),
			content(&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}), readOnly),
		adapter.MustRawTool("test_multiple_content_types", "Returns text, an image and a resource.", noArgs(),
			content(
				&adapter.TextContent{Text: "Multiple content types test:"},
				&adapter.ImageContent{Data: redPixelPNG, MIMEType: "image/png"},
				&adapter.EmbeddedResource{Resource: &adapter.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}},
			), readOnly),
		adapter.MustRawTool("test_tool_with_logging", "Sends three log messages while it runs.", noArgs(), withLogging, readOnly),
		adapter.MustRawTool("test_error_handling", "Always fails.", noArgs(),
			func(context.Context, json.RawMessage) (*adapter.Result, error) {
				return nil, errors.New("This tool intentionally returns an error for testing")
			}, readOnly),
		adapter.MustRawTool("test_tool_with_progress", "Reports progress 0, 50, 100 of 100.", noArgs(), withProgress, readOnly),
		adapter.MustTool("test_sampling", "Asks the client's model.", sampling, &adapter.ToolOptions{Output: adapter.OutputText}),
		adapter.MustTool("test_elicitation", "Asks the client's user.", elicitation, &adapter.ToolOptions{Output: adapter.OutputText}),
		adapter.MustRawTool("test_elicitation_sep1034_defaults", "Elicits with defaults for every primitive type.", noArgs(),
			elicit(map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":     map[string]any{"type": "string", "default": "John Doe"},
					"age":      map[string]any{"type": "integer", "default": 30},
					"score":    map[string]any{"type": "number", "default": 95.5},
					"status":   map[string]any{"type": "string", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
					"verified": map[string]any{"type": "boolean", "default": true},
				},
			}), nil),
		adapter.MustRawTool("test_elicitation_sep1330_enums", "Elicits with every enum form.", noArgs(),
			elicit(map[string]any{
				"type": "object",
				"properties": map[string]any{
					"untitledSingle": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}},
					"titledSingle": map[string]any{"type": "string", "oneOf": []any{
						map[string]any{"const": "value1", "title": "First Option"},
						map[string]any{"const": "value2", "title": "Second Option"},
						map[string]any{"const": "value3", "title": "Third Option"},
					}},
					"legacyEnum": map[string]any{"type": "string", "enum": []any{"opt1", "opt2", "opt3"},
						"enumNames": []any{"Option One", "Option Two", "Option Three"}},
					"untitledMulti": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}}},
					"titledMulti": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{
						map[string]any{"const": "value1", "title": "First Choice"},
						map[string]any{"const": "value2", "title": "Second Choice"},
						map[string]any{"const": "value3", "title": "Third Choice"},
					}}},
				},
			}), nil),
		adapter.MustRawTool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", schema2020(),
			content(&adapter.TextContent{Text: "ok"}), readOnly),
		adapter.MustRawTool("test_reconnection", "Closes its event stream mid-call; the client reconnects to get the result.", noArgs(), reconnection, readOnly),
	}
}

func schema2020() *jsonschema.Schema {
	var s jsonschema.Schema
	const src = `{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
		"additionalProperties": false
	}`
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		panic(err)
	}
	return &s
}

// session returns the client session of the call being served.
func session(ctx context.Context) (*mcp.ServerSession, error) {
	req := export.RequestFromContext(ctx)
	if req == nil || req.Session == nil {
		return nil, errors.New("this tool needs an MCP client")
	}
	return req.Session, nil
}

func withLogging(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	ss, err := session(ctx)
	if err != nil {
		return nil, err
	}
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance", Data: msg}); err != nil {
			return nil, err
		}
	}
	return text("Logging completed: 3 messages sent"), nil
}

func withProgress(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		adapter.ReportProgress(ctx, progress.Event{Progress: p, Total: 100})
	}
	return text("Progress completed"), nil
}

type samplingIn struct {
	Prompt string `json:"prompt" jsonschema:"the prompt to send to the LLM"`
}

func sampling(ctx context.Context, in samplingIn) (string, error) {
	params := &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	}
	if multiRoundCall(ctx) {
		answers, state := retried(ctx)
		if s, ok := sampled(answers, "sampling"); ok && state == askedState {
			return "LLM response: " + s, nil
		}
		if caps := callerCaps(ctx); caps == nil || caps.Sampling == nil {
			return "", errors.New("this tool needs the client's sampling capability, which the client did not declare")
		}
		return "", &export.InputRequired{Requests: mcp.InputRequestMap{"sampling": params}, State: askedState}
	}
	ss, err := session(ctx)
	if err != nil {
		return "", err
	}
	res, err := ss.CreateMessage(ctx, params)
	if err != nil {
		return "", err
	}
	t, _ := res.Content.(*mcp.TextContent)
	if t == nil {
		return "", fmt.Errorf("the client answered with %T content", res.Content)
	}
	return "LLM response: " + t.Text, nil
}

type elicitationIn struct {
	Message string `json:"message" jsonschema:"the message to show the user"`
}

func elicitation(ctx context.Context, in elicitationIn) (string, error) {
	res, err := ask(ctx, &mcp.ElicitParams{
		Message: in.Message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []any{"username", "email"},
		},
	})
	if err != nil {
		return "", err
	}
	c, _ := json.Marshal(res.Content)
	return fmt.Sprintf("User response: action=%s, content=%s", res.Action, c), nil
}

func elicit(schema map[string]any) adapter.Handler {
	return func(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
		res, err := ask(ctx, &mcp.ElicitParams{Message: "Please review and update the form fields", RequestedSchema: schema})
		if err != nil {
			return nil, err
		}
		c, _ := json.Marshal(res.Content)
		return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, c)), nil
	}
}

// askedState is the requestState of the old-era tools' questions asked
// with an input-required result: their retry brings it back (the export
// signs it), so an answer counts only as the answer to a question asked.
const askedState = "asked"

// multiRoundCall reports whether the call is served at 2026-07-28 or
// later, where go-sdk refuses server-to-client requests during a call:
// the client is asked with an input-required result (SEP-2322) and its
// retry brings the answers. It decides as go-sdk does, by the version the
// request's session was initialized with (on 2026-07-28, the request's
// _meta).
func multiRoundCall(ctx context.Context) bool {
	req := export.RequestFromContext(ctx)
	if req == nil || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// callerCaps returns the capabilities the call's client declared (on
// 2026-07-28, in the request's _meta), or nil.
func callerCaps(ctx context.Context) *mcp.ClientCapabilities {
	if req := export.RequestFromContext(ctx); req != nil {
		return req.ClientCapabilities()
	}
	return nil
}

// ask puts an elicitation to the call's client in its era: during the
// call by elicitation/create before 2026-07-28, by an input-required
// result (returned as the error) from 2026-07-28 on, whose retry's answer
// it then returns.
func ask(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if multiRoundCall(ctx) {
		answers, state := retried(ctx)
		if res, ok := answers["elicitation"].(*mcp.ElicitResult); ok && state == askedState {
			return res, nil
		}
		if caps := callerCaps(ctx); caps == nil || caps.Elicitation == nil {
			return nil, errors.New("this tool needs the client's elicitation capability, which the client did not declare")
		}
		return nil, &export.InputRequired{Requests: mcp.InputRequestMap{"elicitation": params}, State: askedState}
	}
	ss, err := session(ctx)
	if err != nil {
		return nil, err
	}
	return ss.Elicit(ctx, params)
}

// reconnection closes the call's event stream (SEP-1699) and answers after
// the client has had time to reconnect and resume from the event store.
func reconnection(ctx context.Context, _ json.RawMessage) (*adapter.Result, error) {
	req := export.RequestFromContext(ctx)
	if req != nil && req.Extra != nil && req.Extra.CloseSSEStream != nil {
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 100 * time.Millisecond})
	}
	select {
	case <-time.After(300 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return text("Reconnection test completed"), nil
}

// addResourcesAndPrompts adds the resources and prompts the suite reads.
// The export serves tools; resources and prompts go on its go-sdk server.
func addResourcesAndPrompts(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource", MIMEType: "image/png"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static-binary", MIMEType: "image/png", Blob: redPixelPNG}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://watched-resource", MIMEType: "text/plain", Text: "watched"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A templated resource", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "This is a simple prompt for testing."}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with arguments", Arguments: []*mcp.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{
			Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt with an embedded resource", Arguments: []*mcp.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		uri := req.Params.Arguments["resourceUri"]
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
			{Role: "user", Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}},
				{Role: "user", Content: &mcp.TextContent{Text: "Please analyze the image above."}},
			}}, nil
		})
}

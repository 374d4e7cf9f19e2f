package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rpcErrKind returns the kind a refused read, get or completion carries.
func rpcErrKind(err error) string {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		return fmt.Sprintf("not a JSON-RPC error: %v", err)
	}
	var data struct{ Kind string }
	_ = json.Unmarshal(we.Data, &data)
	return data.Kind
}

// TestServePrimitives: serve fronting server-everything passes its
// resources, templates, prompts, completions, subscriptions and log
// messages to a go-sdk client, with the server's deny and prefix, the
// virtual servers' selection, and one ledger record per read, get and
// completion.
func TestServePrimitives(t *testing.T) {
	dir := t.TempDir()
	ev, path := everything(t)
	writeFile(t, dir, "gateway.json", fmt.Sprintf(`{
  "mcpServers": {
    "everything": {"command": %q, "args": ["stdio"], "env": {"PATH": %q}},
    "notes": {"command": %q}
  },
  "agentadapter": {
    "store": "sqlite:${STATE}/state.db",
    "policy": {"approval": {"default": "never"}},
    "servers": {"everything": {"prefix": true, "deny": ["simple-prompt"], "rename": {"args-prompt": "weather"}}},
    "virtualServers": {
      "notesonly": {"servers": ["notes"]},
      "weatheronly": {"tools": ["weather"]}
    }
  }
}`, ev, path, testServer))
	env := []string{"STATE=" + dir + "/state"}
	s := startServe(t, dir, env, "--config", "gateway.json")
	reads := 0
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { reads += servePrimitives(t, s, version) })
	}

	counts := map[string]int{}
	for _, rec := range ledgerRecords(t, dir, env) {
		tool, _ := rec["tool"].(string)
		counts[tool+" "+fmt.Sprint(rec["outcome"])]++
	}
	wantCounts := map[string]int{
		"resources/read ok": reads, "resources/read not_found": 2,
		"prompts/get ok": 2, "prompts/get not_found": 4,
		"completion/complete ok": 4,
	}
	for k, n := range wantCounts {
		if counts[k] != n {
			t.Errorf("ledger has %d records %q, want %d (all: %v)", counts[k], k, n, counts)
		}
	}
}

// servePrimitives runs the client side of TestServePrimitives at one
// protocol version and returns the reads that succeeded.
func servePrimitives(t *testing.T, s *served, version string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	events := make(chan string, 64)
	note := func(e string) {
		select {
		case events <- e:
		default:
		}
	}
	cs := connectAt(t, s.base+"/mcp", version, &mcp.ClientOptions{
		ResourceUpdatedHandler:     func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { note("updated " + r.Params.URI) },
		LoggingMessageHandler:      func(_ context.Context, r *mcp.LoggingMessageRequest) { note("log " + r.Params.Logger) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note("resources changed") },
	})
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe || caps.Prompts == nil || caps.Completions == nil {
		t.Fatalf("serve's capabilities lack resources (with subscribe), prompts or completions: %+v", caps)
	}

	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var static string
	for _, r := range lr.Resources {
		if strings.HasPrefix(r.URI, "demo://resource/static/document/") && static == "" {
			static = r.URI
		}
	}
	if static == "" {
		t.Fatalf("resources/list through serve has no static document: %d resources", len(lr.Resources))
	}
	lt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || !slices.ContainsFunc(lt.ResourceTemplates, func(t *mcp.ResourceTemplate) bool {
		return t.URITemplate == "demo://resource/dynamic/text/{resourceId}"
	}) {
		t.Fatalf("resources/templates/list through serve: %+v %v", lt, err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: static})
	if err != nil || len(rr.Contents) == 0 || rr.Contents[0].Text == "" {
		t.Fatalf("reading %s through serve: %+v %v", static, rr, err)
	}
	reads := 1

	// The resource links an upstream tool returns are readable through serve.
	res := callTool(t, cs, "everything_get-resource-links", map[string]any{"count": 2})
	var links []string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			links = append(links, l.URI)
		}
	}
	if len(links) != 2 {
		t.Fatalf("get-resource-links returned %d links: %s", len(links), text(res))
	}
	for _, uri := range links {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text == "" && len(rr.Contents[0].Blob) == 0 {
			t.Fatalf("reading the resource link %s through serve: %+v %v", uri, rr, err)
		}
		reads++
	}

	// A resource the upstream registers during the session (its list
	// changes) is announced to the client and readable by its link.
	res = callTool(t, cs, "everything_gzip-file-as-resource", map[string]any{"name": "hello-" + version + ".gz", "data": "data:text/plain;base64,aGVsbG8="})
	var gz string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			gz = l.URI
		}
	}
	if gz == "" {
		t.Fatalf("gzip-file-as-resource returned no link: %s", text(res))
	}
	waitEvent(t, events, "resources changed")
	if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: gz}); err != nil || len(rr.Contents) != 1 || len(rr.Contents[0].Blob) == 0 {
		t.Fatalf("reading the session resource %s through serve: %+v %v", gz, rr, err)
	}
	reads++

	// Prompts: prefixed, renamed, the denied one absent and not to be had.
	lp, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, p := range lp.Prompts {
		prompts = append(prompts, p.Name)
	}
	if !slices.Contains(prompts, "weather") || !slices.Contains(prompts, "everything_completable-prompt") ||
		slices.Contains(prompts, "everything_simple-prompt") || slices.Contains(prompts, "everything_args-prompt") {
		t.Fatalf("prompts/list through serve: %v; want weather (renamed) and everything_completable-prompt, no simple-prompt (denied)", prompts)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "weather", Arguments: map[string]string{"city": "Paris"}})
	if err != nil || len(gp.Messages) != 1 || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, "Paris") {
		t.Fatalf("prompts/get weather through serve: %+v %v", gp, err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "everything_simple-prompt"}); rpcErrKind(err) != "not_found" {
		t.Fatalf("prompts/get of a denied prompt: %v; want not_found", err)
	}

	// Completions of a prompt's argument and of a template's variable.
	cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "everything_completable-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "department", Value: "En"}})
	if err != nil || !slices.Equal(cr.Completion.Values, []string{"Engineering"}) {
		t.Fatalf("completing department through serve: %+v %v", cr, err)
	}
	cr, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "demo://resource/dynamic/text/{resourceId}"},
		Argument: mcp.CompleteParamsArgument{Name: "resourceId", Value: "3"}})
	if err != nil || !slices.Equal(cr.Completion.Values, []string{"3"}) {
		t.Fatalf("completing resourceId through serve: %+v %v", cr, err)
	}

	// Subscriptions and log messages: server-everything sends both every 5 s
	// once toggled on (a second toggle turns them off). 2026-07-28 has
	// no logging/setLevel and no session to send log messages to between
	// requests: only the subscription there.
	sub := "demo://resource/dynamic/text/1"
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: sub}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"updated " + sub: true}
	if version < "2026-07-28" {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		callTool(t, cs, "everything_toggle-simulated-logging", map[string]any{})
		want["log everything"] = true
	}
	if version == "2025-11-25" { // the first run; the updates go on after it
		callTool(t, cs, "everything_toggle-subscriber-updates", map[string]any{})
	}
	for deadline := time.After(20 * time.Second); len(want) > 0; {
		select {
		case e := <-events:
			delete(want, e)
		case <-deadline:
			t.Fatalf("never reached the client through serve: %v", want)
		}
	}

	// Another virtual server sees nothing of a server it does not include;
	// one selecting tools by name sees the prompts of that name alone.
	notes := connectAt(t, s.base+"/mcp/notesonly", version, nil)
	if lr, err := notes.ListResources(ctx, nil); err != nil || slices.ContainsFunc(lr.Resources, func(r *mcp.Resource) bool { return strings.HasPrefix(r.URI, "demo://") }) {
		t.Fatalf("/mcp/notesonly lists everything's resources: %v", err)
	}
	if lp, err := notes.ListPrompts(ctx, nil); err != nil || len(lp.Prompts) != 0 {
		t.Fatalf("/mcp/notesonly lists prompts: %+v %v", lp, err)
	}
	if _, err := notes.ReadResource(ctx, &mcp.ReadResourceParams{URI: static}); rpcErrKind(err) != "not_found" {
		t.Fatalf("/mcp/notesonly read everything's %s: %v; want not_found", static, err)
	}
	if _, err := notes.GetPrompt(ctx, &mcp.GetPromptParams{Name: "weather", Arguments: map[string]string{"city": "Paris"}}); rpcErrKind(err) != "not_found" {
		t.Fatalf("/mcp/notesonly got the prompt weather: %v; want not_found", err)
	}
	w := connectAt(t, s.base+"/mcp/weatheronly", version, nil)
	if lp, err := w.ListPrompts(ctx, nil); err != nil || len(lp.Prompts) != 1 || lp.Prompts[0].Name != "weather" {
		t.Fatalf("/mcp/weatheronly prompts: %+v %v; want weather alone", lp, err)
	}
	if _, err := w.ReadResource(ctx, &mcp.ReadResourceParams{URI: static}); err != nil {
		t.Fatalf("/mcp/weatheronly selects every server's resources (tools patterns select tools and prompts): %v", err)
	}
	reads++
	return reads
}

func waitEvent(t *testing.T, events <-chan string, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-events:
			if e == want {
				return
			}
		case <-deadline:
			t.Fatalf("%q never reached the client through serve", want)
		}
	}
}

// connectAt opens a go-sdk client session at a protocol version.
func connectAt(t *testing.T, url, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s at %s: %v", url, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("%s negotiated %s, want %s", url, got, version)
	}
	return cs
}

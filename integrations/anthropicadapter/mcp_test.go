package anthropicadapter_test

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentadapter/agentadapter/adapter"
	"github.com/agentadapter/agentadapter/adapter/ledger"
	"github.com/agentadapter/agentadapter/integrations/anthropicadapter"
	"github.com/agentadapter/agentadapter/integrations/mcpadapter"
	"github.com/agentadapter/agentadapter/internal/testpeers"
	"github.com/agentadapter/agentadapter/registry"
)

// TestServerEverything: tools of the real @modelcontextprotocol/server-everything,
// imported over stdio through the manager, in a tool-runner conversation:
// the model's next turn holds the text tool's result, the image tool's image
// as an image block, and the failures (the server's own and bad arguments)
// as is_error payloads.
func TestServerEverything(t *testing.T) {
	cmd := testpeers.Command(t, "mcp-server-everything", "stdio")
	ctx := context.Background()
	reg := registry.New()
	led := ledger.NewMemory(0)
	exec := adapter.NewExecutor(reg, &adapter.ExecutorOptions{Ledger: led})
	mgr := mcpadapter.NewManager(reg, &mcpadapter.ManagerOptions{Executor: exec})
	defer func() {
		mgr.Close()
		exec.Close()
	}()
	if err := mgr.Connect(ctx, mcpadapter.Upstream{Name: "everything", Command: cmd.Path, Args: cmd.Args[1:], Env: cmd.Env,
		ConnectTimeout: time.Minute, CallTimeout: time.Minute, Trust: true}); err != nil {
		t.Fatal(err)
	}
	// The image tool's name varies between versions: list the tools.
	var names []string
	for s := range reg.List(registry.Filter{}) {
		names = append(names, s.Name)
	}
	image := names[slices.IndexFunc(names, func(n string) bool { return strings.Contains(n, "image") && strings.Contains(n, "tiny") })]
	for _, n := range []string{"echo", "get-sum", "gzip-file-as-resource"} {
		if !slices.Contains(names, n) {
			t.Fatalf("server-everything has no %s: %q", n, names)
		}
	}
	tools, err := anthropicadapter.Tools(reg, exec, nil)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, script(calls(
		use("toolu_echo", "echo", `{"message":"hello from the runner"}`),
		use("toolu_img", image, `{}`),
		use("toolu_gzip", "gzip-file-as-resource", `{"data":"not a url","outputType":"resource"}`),
		use("toolu_sum", "get-sum", `{"a":2,"b":"x"}`),
	)))
	c := api.client()
	msg, err := tools.Run(ctx, &c.Beta.Messages, ask("try them"))
	if err != nil || msg.Content[0].Text != "done" {
		t.Fatalf("the conversation ended with %v, %v", msg, err)
	}
	reqs := api.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	// The tools the model was offered carry the server's schemas.
	var offered bool
	for _, tl := range reqs[0].Tools {
		if p := tl.OfTool; p != nil && p.Name == "echo" {
			_, offered = p.InputSchema.Properties.(map[string]any)["message"]
		}
	}
	if !offered {
		t.Errorf("echo was not offered with its message property: %+v", reqs[0].Tools)
	}
	if text, isErr := resultOf(t, api, 1, "toolu_echo"); isErr || !strings.Contains(text, "hello from the runner") {
		t.Errorf("echo read %q (is_error %v)", text, isErr)
	}
	var png bool
	for _, r := range results(&reqs[1]) {
		if r.ToolUseID != "toolu_img" {
			continue
		}
		for _, b := range r.Content {
			if b.OfImage != nil && b.OfImage.Source.OfBase64 != nil {
				d, err := base64.StdEncoding.DecodeString(b.OfImage.Source.OfBase64.Data)
				png = err == nil && b.OfImage.Source.OfBase64.MediaType == "image/png" && strings.HasPrefix(string(d), "\x89PNG")
			}
		}
	}
	if !png {
		t.Errorf("%s's image did not reach the model as a PNG image block", image)
	}
	if text, isErr := resultOf(t, api, 1, "toolu_gzip"); !isErr || !strings.Contains(text, `"kind":"tool_error"`) {
		t.Errorf("the server's failure read %q (is_error %v), want a tool_error payload", text, isErr)
	}
	if text, isErr := resultOf(t, api, 1, "toolu_sum"); !isErr || !strings.Contains(text, `"kind":"args_invalid"`) {
		t.Errorf("bad arguments read %q (is_error %v), want args_invalid", text, isErr)
	}
	if err := exec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	runs := map[string]bool{}
	for _, r := range led.Records() {
		runs[r.RunID] = true
	}
	if len(runs) != 1 || runs[""] {
		t.Errorf("the conversation's calls were recorded in runs %v, want one", runs)
	}
}
